"""Tune the evaluation's weights by fitting the results of self-play games.

Usage::

    python bench/tune.py                       # play, fit, check, and print the new weights
    python bench/tune.py --write               # ... and save them as the package's defaults
    python bench/tune.py --games 200 --depth 5 # a smaller or larger data set

The method (a "Texel" fit, after the chess engine that made it popular):

1. Self-play: the engine plays both sides from every opening of the ACF
   three-move deck, at a fixed shallow depth, with a random legal move now
   and then in the first plies so that the games differ. Every quiet
   position (the side to move has no capture) is kept with the game's result
   for Black: 1, 1/2 or 0.
2. Fit: the evaluation is linear in its weights (see
   ``doublecorner.kernel.evaluate``), so each position becomes a row of
   feature values. The weights minimise the mean squared error between the
   result and ``sigmoid(k * eval / 100)``, with ``man`` held at 100 as the
   unit and ``k`` fitted to the starting weights first. scipy's L-BFGS does
   the minimising; a small L2 pull towards the starting weights keeps
   features that rarely occur from drifting.
3. Check: a match of the new weights against the old ones at a fixed depth
   over part of the deck, both colours. The new weights are written (with
   ``--write``) only if they score at least 50 %.

Needs scipy (not a dependency of the package): ``pip install scipy``.
"""

from __future__ import annotations

import argparse
import datetime
import random
import sys
import threading
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np
from scipy.optimize import minimize  # type: ignore[import-untyped]

from doublecorner import Color
from doublecorner.engine import Engine, Limit, Weights
from doublecorner.kernel.evaluate import FEATURE_COUNT, FEATURE_NAMES, MAN, evaluation_features
from doublecorner.kernel.movegen import has_captures
from doublecorner.match import EnginePlayer, run_match, score_of, three_move_deck

RANDOM_MOVE_CHANCE = 0.15  # in the first RANDOM_PLIES plies after the ballot
RANDOM_PLIES = 12
REGULARISATION = 1e-7  # per squared hundredth of a man away from the start


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def self_play(games: int, depth: int, seed: int, threads: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions (rows of black, white, kings, turn) and Black's result of each game."""
    deck = three_move_deck()
    jobs = list(range(games))
    lock = threading.Lock()
    positions: list[tuple[int, int, int, int]] = []
    results: list[float] = []
    done = [0]

    def work() -> None:
        engine = Engine(hash_mb=16)
        while True:
            with lock:
                if not jobs:
                    return
                number = jobs.pop()
            rng = random.Random(seed * 100003 + number)
            board = deck[number % len(deck)].board()
            engine.new_game()
            seen: list[tuple[int, int, int, int]] = []
            while board.outcome(claim_draw=True) is None:  # draws claimed, as a match does
                position = board.position()
                state = (position.black, position.white, position.kings, int(position.turn))
                if not has_captures(*state):
                    seen.append(state)
                if len(board.move_stack) < 3 + RANDOM_PLIES and rng.random() < RANDOM_MOVE_CHANCE:
                    move = rng.choice(sorted(board.legal_moves, key=lambda m: m.path))
                else:
                    chosen = engine.search(position, Limit(depth=depth),
                                           history=board.position_history(),
                                           halfmove_clock=board.halfmove_clock).move
                    assert chosen is not None  # the game is not over, so there is a move
                    move = chosen
                board.push(move)
            outcome = board.outcome(claim_draw=True)
            assert outcome is not None
            black_result = (0.5 if outcome.winner is None
                            else 1.0 if outcome.winner is Color.BLACK else 0.0)
            with lock:
                positions.extend(seen)
                results.extend([black_result] * len(seen))
                done[0] += 1
                if done[0] % 25 == 0:
                    progress(f"self-play: {done[0]}/{games} games, {len(positions)} positions")

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return np.array(positions, dtype=np.int64), np.array(results)


def feature_matrix(positions: np.ndarray) -> np.ndarray:
    """Each position's features, Black's count minus White's (as the evaluation sees them)."""
    rows = np.zeros((len(positions), FEATURE_COUNT))
    for index, (black, white, kings, turn) in enumerate(positions):
        evaluation_features(int(black), int(white), int(kings), int(turn), rows[index])
    return rows


def loss(weights: np.ndarray, features: np.ndarray, results: np.ndarray, k: float) -> float:
    predicted = 1 / (1 + np.exp(-k * (features @ weights) / 100))
    return float(np.mean((results - predicted) ** 2))


def fit_scale(weights: np.ndarray, features: np.ndarray, results: np.ndarray) -> float:
    """The sigmoid's scale that best fits the starting weights."""
    scales = np.linspace(0.1, 4.0, 40)
    return float(min(scales, key=lambda k: loss(weights, features, results, k)))


def fit(start: np.ndarray, features: np.ndarray, results: np.ndarray, k: float) -> np.ndarray:
    free = [index for index in range(FEATURE_COUNT) if index != MAN]

    def objective(values: np.ndarray) -> tuple[float, np.ndarray]:
        weights = start.copy()
        weights[free] = values
        evaluation = features @ weights
        predicted = 1 / (1 + np.exp(-k * evaluation / 100))
        error = predicted - results
        value = float(np.mean(error ** 2))
        slope = 2 * error * predicted * (1 - predicted) * k / 100
        gradient = features[:, free].T @ slope / len(results)
        value += REGULARISATION * float(np.sum((values - start[free]) ** 2))
        gradient += 2 * REGULARISATION * (values - start[free])
        return value, gradient

    solution = minimize(objective, start[free], jac=True, method="L-BFGS-B")
    weights = start.copy()
    weights[free] = np.round(solution.x, 1)
    return weights


def check(new: Weights, old: Weights, depth: int, openings: int) -> tuple[int, int, int]:
    """W/D/L of the new weights against the old at a fixed depth."""
    def player(weights: Weights, name: str) -> EnginePlayer:
        engine_player = EnginePlayer(Limit(depth=depth), hash_mb=16, name=name)
        engine_player.engine = Engine(hash_mb=16, weights=weights)
        return engine_player

    ballots = three_move_deck()[:openings]
    records = run_match(lambda: player(new, "new"), lambda: player(old, "old"), ballots,
                        concurrency=2)
    score = score_of(records)
    return score.wins, score.draws, score.losses


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=624, help="self-play games (default 624)")
    parser.add_argument("--depth", type=int, default=6, help="self-play depth (default 6)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--check-depth", type=int, default=6)
    parser.add_argument("--check-openings", type=int, default=60)
    parser.add_argument("--write", action="store_true",
                        help="save the weights as the package's defaults if the check passes")
    arguments = parser.parse_args(argv)

    old = Weights.default()
    started = time.monotonic()
    positions, results = self_play(arguments.games, arguments.depth, arguments.seed,
                                   arguments.threads)
    progress(f"self-play: {arguments.games} games, {len(positions)} quiet positions in "
             f"{time.monotonic() - started:.0f} s")
    features = feature_matrix(positions)
    start = old.as_array()
    k = fit_scale(start, features, results)
    before = loss(start, features, results, k)
    weights = fit(start, features, results, k)
    after = loss(weights, features, results, k)
    progress(f"fit: scale k = {k:.2f}; mean squared error {before:.5f} -> {after:.5f}")
    new = Weights(dict(zip(FEATURE_NAMES, (float(value) for value in weights), strict=True)))
    for name in FEATURE_NAMES:
        print(f"{name:<16}{old[name]:>9.1f} -> {new[name]:>9.1f}")
    wins, draws, losses = check(new, old, arguments.check_depth, arguments.check_openings)
    points = (wins + draws / 2) / (wins + draws + losses)
    print(f"check at depth {arguments.check_depth}, {2 * arguments.check_openings} games: "
          f"new +{wins} ={draws} -{losses} ({100 * points:.1f}%)")
    if arguments.write:
        if points < 0.5:
            print("not written: the new weights did not score 50 %")
            return 1
        path = Path(str(resources.files("doublecorner.engine").joinpath("weights.json")))
        path.write_text(new.to_json(
            source=(f"bench/tune.py on {datetime.date.today()}: Texel fit to {len(positions)} "
                    f"quiet positions from {arguments.games} self-play games at depth "
                    f"{arguments.depth} over the three-move deck (seed {arguments.seed}); "
                    f"mean squared error {before:.5f} -> {after:.5f} at k = {k:.2f}; "
                    f"check vs previous weights at depth {arguments.check_depth}: "
                    f"+{wins} ={draws} -{losses}")), encoding="utf-8")
        print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
