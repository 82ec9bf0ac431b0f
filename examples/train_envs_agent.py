"""Train a tiny draughts agent on the Gymnasium environment and measure it against random play.

The agent looks one move ahead: for each legal move it scores the position
after it with ``tanh(w . features)``, from eleven features read off the
environment's own observation planes (material, advancement, the back row,
the centre, and what the opponent could capture next). It learns ``w`` by
temporal-difference learning, TD(0) on these after-move positions, playing
against ``DoubleCornerEnv``'s random opponent with either colour, then plays
greedily for the evaluation. A move is sent to the environment one action per
hop, as ``move_actions`` encodes it.

Run from the repository (about a minute on one CPU core)::

    python examples/train_envs_agent.py
    python examples/train_envs_agent.py --episodes 300 --eval-games 100   # quicker
    python examples/train_envs_agent.py --opponent engine --level 1       # a harder test

It prints progress lines, the learnt weights and the win rate of the trained
agent (and, for scale, of an untrained one) against the random player.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

from doublecorner import Board, Color, Move
from doublecorner.envs import ActionGame, DoubleCornerEnv, move_actions
from doublecorner.envs.observation import observation

FEATURES = ("own men", "own kings", "opponent men", "opponent kings", "own advancement",
            "opponent advancement", "own back row", "own centre", "opponent can capture",
            "most the opponent can capture", "bias")


def features(board: Board, me: Color) -> np.ndarray:
    """The features of ``board`` (the opponent to move) as ``me`` sees it."""
    planes = observation(ActionGame(board), me)
    own_men, own_kings, opponent_men, opponent_kings = (planes[..., plane] for plane in range(4))
    rows = np.arange(8, dtype=np.float32)
    captures = [len(move.captures) for move in board.legal_moves if move.is_capture]
    return np.array([
        own_men.sum() / 12, own_kings.sum() / 12,
        opponent_men.sum() / 12, opponent_kings.sum() / 12,
        (own_men.sum(axis=1) @ rows) / (12 * 7),
        (opponent_men.sum(axis=1) @ rows[::-1]) / (12 * 7),
        own_men[0].sum() / 4,
        (own_men + own_kings)[3:5, 2:6].sum() / 4,
        float(bool(captures)),
        min(max(captures, default=0), 3) / 3,
        1.0,
    ], dtype=np.float64)


class Agent:
    """A linear after-move evaluation, greedy with ``epsilon`` random moves."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.weights = np.zeros(len(FEATURES))
        self.rng = rng

    def value(self, phi: np.ndarray) -> float:
        return float(np.tanh(self.weights @ phi))

    def choose(self, board: Board, *, epsilon: float) -> tuple[Move, np.ndarray]:
        """A move and the features of the position it leads to."""
        me = board.turn
        scored = []
        for move in sorted(board.legal_moves, key=lambda move: move.path):
            board.push(move)
            phi = features(board, me)
            # A move that wins outright is worth the most; ties are broken at random.
            value = 2.0 if not board.legal_moves else self.value(phi)
            board.pop()
            scored.append((value + 1e-9 * self.rng.random(), move, phi))
        if self.rng.random() < epsilon:
            _, move, phi = scored[int(self.rng.integers(len(scored)))]
            return move, phi
        _, move, phi = max(scored, key=lambda entry: entry[0])
        return move, phi

    def learn(self, phi: np.ndarray, target: float, rate: float) -> None:
        value = self.value(phi)
        self.weights += rate * (target - value) * (1 - value * value) * phi


def play_episode(env: DoubleCornerEnv, agent: Agent, seed: int, *, epsilon: float,
                 rate: float | None) -> float:
    """One episode; the agent learns from it when ``rate`` is given. Returns the reward."""
    env.reset(seed=seed)
    previous: np.ndarray | None = None
    while True:
        move, phi = agent.choose(env.board, epsilon=epsilon)
        if rate is not None and previous is not None:
            agent.learn(previous, agent.value(phi), rate)
        previous = phi
        for action in move_actions(move, env.color):
            _, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            # A draw by the rules truncates the episode but is the game's true end
            # ("result" in info): learn its 0 too. Only a step cap is not an end.
            if rate is not None and (terminated or "result" in info):
                agent.learn(previous, float(reward), rate)
            return float(reward)


def evaluate(env: DoubleCornerEnv, agent: Agent, games: int, first_seed: int) -> str:
    rewards = [play_episode(env, agent, first_seed + game, epsilon=0.0, rate=None)
               for game in range(games)]
    wins, losses = rewards.count(1.0), rewards.count(-1.0)
    draws = games - wins - losses
    return (f"win rate {wins / games:.1%} ({wins} won, {draws} drawn, {losses} lost "
            f"of {games})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1500, help="training games")
    parser.add_argument("--eval-games", type=int, default=400, help="evaluation games")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponent", choices=("random", "engine"), default="random",
                        help="the opponent of the final evaluation (training is vs random)")
    parser.add_argument("--level", type=int, default=1, help="the engine's level, 1-10")
    arguments = parser.parse_args(argv)
    start = time.monotonic()
    rng = np.random.default_rng(arguments.seed)
    env = DoubleCornerEnv(opponent="random", play_as="random", max_steps=400)

    untrained = Agent(rng)
    print(f"untrained agent vs random: "
          f"{evaluate(env, untrained, arguments.eval_games, first_seed=10**6)}", flush=True)

    agent = Agent(rng)
    recent: list[float] = []
    for episode in range(1, arguments.episodes + 1):
        epsilon = max(0.02, 0.2 * (1 - episode / arguments.episodes))
        recent.append(play_episode(env, agent, arguments.seed * 10**5 + episode,
                                   epsilon=epsilon, rate=0.05))
        if episode % 100 == 0:
            print(f"episode {episode:5d}: won {recent.count(1.0):3d} of the last {len(recent)}"
                  f" (epsilon {epsilon:.2f}), {time.monotonic() - start:5.1f} s", flush=True)
            recent = []

    print("learnt weights:")
    for name, weight in zip(FEATURES, agent.weights, strict=True):
        print(f"  {name:<30} {weight:+.3f}")
    if arguments.opponent == "engine":
        env = DoubleCornerEnv(opponent="engine", level=arguments.level, play_as="random",
                              max_steps=400)
    rival = "random" if arguments.opponent == "random" else f"engine level {arguments.level}"
    result = evaluate(env, agent, arguments.eval_games, first_seed=2 * 10**6)
    print(f"trained agent vs {rival}: {result}")
    print(f"total time {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
