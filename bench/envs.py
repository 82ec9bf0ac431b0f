"""Random-play speed of doublecorner's environments beside OpenSpiel's checkers.

Usage::

    python bench/envs.py              # about half a minute
    python bench/envs.py --quick      # a smoke run of a few seconds
    python bench/envs.py --no-peers   # doublecorner only
    python bench/envs.py --json       # one JSON document on stdout instead of the table
    python bench/envs.py --batch-only # of ours, only the batched loops (with OpenSpiel)

Every loop plays whole games from the start position with uniformly random
legal choices, for a fixed time, and counts actions (a multi-jump is one
action per jump in both libraries) and games. The loops, in this interpreter:

* ``Board``: ``legal_moves``, ``push`` of a random whole move and
  ``outcome(claim_draw=True)`` (draws claimed at once, as the environments do):
  the rules kernel alone, one action per move;
* ``ActionGame``: ``legal_actions()`` and ``play()``: the per-jump actions
  without observations;
* ``DoubleCornerAEC``: ``last()`` (observation planes and action mask) and
  ``step()`` for both agents: what a PettingZoo learner pays per step;
* ``DoubleCornerEnv``: ``step()`` against the random opponent, whose reply is
  made inside the agent's step (so a step counts one or two moves);
* ``BatchedGame``: N games in self-play, ``random_actions()`` (a random legal
  action per game, from the masks) and ``step()`` (one compiled call writing
  every mask, observation, reward and end), at N = 1, 64, 256 and 1024, with one
  thread and with two (a thread per half-batch: the kernel releases the GIL).
  Then N = 65,536 is built and stepped, and its bytes per game printed.

OpenSpiel (``pyspiel.load_game("checkers")``, C++ with Python bindings) runs in
its own virtualenv, ``bench/.venvs/open-spiel``, created on first use by
``bench/perft.py``'s machinery, through ``bench/peers/open_spiel_env_worker.py``:
once bare (``legal_actions`` and ``apply_action``) and once ``observed`` (with
``observation_tensor`` and ``legal_actions_mask``, as a learner reads them).
Its games follow its own rules (its own draw rule and a 1000-action cap), so
games/s compares less well than actions/s. Ratios: doublecorner's loops without
observations against OpenSpiel bare, the environments against OpenSpiel observed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

import numpy as np  # noqa: E402

from doublecorner import Board  # noqa: E402
from doublecorner.envs import (  # noqa: E402
    ActionGame,
    BatchedGame,
    DoubleCornerAEC,
    DoubleCornerEnv,
)
from perft import PEERS, PeerError, format_table, progress, run_worker  # noqa: E402

FULL_SECONDS = 4.0  # per loop
QUICK_SECONDS = 0.5
BATCH_SIZES = (1, 64, 256, 1024)
LARGE_BATCH = 65_536
PEER_TIMEOUT = 300.0
WORKER = BENCH_DIR / "peers" / "open_spiel_env_worker.py"


@dataclass(frozen=True)
class Result:
    """One timed loop of random games."""

    name: str
    loop: str
    games: int
    actions: int
    seconds: float
    observed: bool  # whether each step built what a learner reads (planes, mask)

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


def board_game(rng: random.Random) -> int:
    board = Board()
    while board.outcome(claim_draw=True) is None:
        board.push(rng.choice(list(board.legal_moves)))
    return len(board.move_stack)


def action_game(rng: random.Random) -> int:
    game = ActionGame()
    actions = 0
    while game.outcome() is None:
        game.play(rng.choice(list(game.legal_actions())))
        actions += 1
    return actions


def aec_game(rng: random.Random, env: DoubleCornerAEC) -> int:
    env.reset()
    actions = 0
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
        actions += 1
    return actions


def gym_game(rng: random.Random, env: DoubleCornerEnv) -> int:
    observation, _ = env.reset(seed=rng.randrange(2**32))
    actions = 0
    while True:
        action = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
        observation, _, terminated, truncated, _ = env.step(action)
        actions += 1
        if terminated or truncated:
            return actions


def timed(name: str, loop: str, play: Callable[[random.Random], int], seconds: float, *,
          observed: bool) -> Result:
    """Whole random games until ``seconds`` have passed."""
    progress(f"{name}: {loop} ...")
    rng = random.Random(0)
    play(rng)  # warm-up: loads the kernel, not timed
    games = actions = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        actions += play(rng)
        games += 1
        elapsed = time.perf_counter() - start
    return Result(name, loop, games, actions, elapsed, observed)


def bench_ours(seconds: float) -> list[Result]:
    aec, gym = DoubleCornerAEC(), DoubleCornerEnv(opponent="random")
    return [
        timed("doublecorner", "Board: push a random move", board_game, seconds, observed=False),
        timed("doublecorner", "ActionGame: play a random action", action_game, seconds,
              observed=False),
        timed("doublecorner", "DoubleCornerAEC: last() + step()",
              lambda rng: aec_game(rng, aec), seconds, observed=True),
        timed("doublecorner", "DoubleCornerEnv: step() vs random",
              lambda rng: gym_game(rng, gym), seconds, observed=True),
    ]


def timed_batch(games: int, threads: int, seconds: float) -> Result:
    """Random masked self-play in a :class:`BatchedGame` of ``games`` for ``seconds``."""
    progress(f"doublecorner: BatchedGame N={games}, {threads} thread(s) ...")
    batch = BatchedGame(games, seed=0, threads=threads)
    for _ in range(3):  # warm-up: loads the kernel, not timed
        batch.step(batch.random_actions())
    steps = finished = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        for _ in range(max(1, 4096 // games)):
            batch.step(batch.random_actions())
            finished += int(np.count_nonzero(batch.ends))
            steps += 1
        elapsed = time.perf_counter() - start
    batch.close()
    return Result("doublecorner",
                  f"BatchedGame N={games}: random_actions() + step(), {threads} thread(s)",
                  finished, steps * games, elapsed, observed=True)


def large_batch() -> str:
    """Build and step :data:`LARGE_BATCH` games; a line with bytes per game and the speed."""
    progress(f"doublecorner: BatchedGame N={LARGE_BATCH:,} ...")
    start = time.perf_counter()
    batch = BatchedGame(LARGE_BATCH, seed=0)
    built = time.perf_counter() - start
    steps = 20
    start = time.perf_counter()
    for _ in range(steps):
        batch.step(batch.random_actions())
    elapsed = time.perf_counter() - start
    return (f"N = {LARGE_BATCH:,}: {batch.nbytes / LARGE_BATCH:,.0f} bytes per game "
            f"({batch.nbytes / 2**20:,.0f} MiB), built in {built:.2f} s, "
            f"{steps * LARGE_BATCH / elapsed:,.0f} actions/s on one thread")


def bench_batch(seconds: float) -> list[Result]:
    return [timed_batch(games, threads, seconds)
            for threads in (1, 2) for games in BATCH_SIZES]


def bench_open_spiel(seconds: float) -> list[Result]:
    """OpenSpiel's two loops, run by the worker in OpenSpiel's virtualenv.

    :raises PeerError: the virtualenv or the worker failed.
    """
    peer = next(peer for peer in PEERS if peer.name == "open-spiel")
    progress("open-spiel: bare and observed ...")
    stdout = run_worker(peer, WORKER, "--seconds", str(seconds), timeout=PEER_TIMEOUT)
    try:
        records = json.loads(stdout.strip().splitlines()[-1])
        return [Result(f"{record['name']} {peer.requirement.split('==')[1]}",
                       "State: " + ("apply a random action" if record["loop"] == "bare"
                                    else "observation + mask + apply"),
                       int(record["games"]), int(record["actions"]), float(record["seconds"]),
                       record["loop"] == "observed")
                for record in records]
    except (IndexError, KeyError, TypeError, ValueError) as error:
        raise PeerError(f"unreadable worker output: {stdout[-200:]!r}") from error


def ratio(result: Result, peers: Sequence[Result]) -> str:
    """How many times more actions per second than OpenSpiel's loop of the same kind."""
    other = next((peer for peer in peers if peer.observed == result.observed), None)
    if other is None:
        return "-"
    value = result.actions_per_second / other.actions_per_second
    return f"{value:.2f}x"


def format_text(ours: Sequence[Result], peers: Sequence[Result], failure: str | None,
                large: str | None = None) -> str:
    header = ["implementation", "loop", "games", "actions", "seconds", "actions/s", "games/s",
              "vs OpenSpiel"]
    rows = [header] + [
        [result.name, result.loop, f"{result.games:,}", f"{result.actions:,}",
         f"{result.seconds:.2f}", f"{result.actions_per_second:,.0f}",
         f"{result.games_per_second:,.1f}", ratio(result, peers) if result in ours else ""]
        for result in [*ours, *peers]
    ]
    lines = ["random play from the start position, whole games", ""]
    lines += format_table(rows, numeric={2, 3, 4, 5, 6, 7})
    lines += ["", "vs OpenSpiel: actions/s over OpenSpiel's loop of the same kind (with or "
              "without observations).",
              "A DoubleCornerEnv step also makes the random opponent's reply: its games/s "
              "compares with the AEC loop's.",
              "BatchedGame counts every game's action of a step (N per step)."]
    if large:
        lines += [large]
    if failure:
        lines += ["", f"not measured: open-spiel: {failure}"]
    return "\n".join(lines)


def format_json(ours: Sequence[Result], peers: Sequence[Result], failure: str | None,
                large: str | None = None) -> str:
    def record(result: Result) -> dict[str, Any]:
        return dict(asdict(result), actions_per_second=result.actions_per_second,
                    games_per_second=result.games_per_second)

    return json.dumps({"results": [record(result) for result in [*ours, *peers]],
                       "failure": failure, "large_batch": large}, indent=2)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="half a second per loop")
    parser.add_argument("--no-peers", action="store_true", help="measure doublecorner only")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--batch-only", action="store_true",
                        help="of doublecorner's loops, only the batched ones")
    parser.add_argument("--no-large", action="store_true",
                        help=f"skip building and stepping N = {LARGE_BATCH:,} games")
    arguments = parser.parse_args(argv)
    seconds = QUICK_SECONDS if arguments.quick else FULL_SECONDS
    ours = [] if arguments.batch_only else bench_ours(seconds)
    ours += bench_batch(seconds)
    large = None if arguments.no_large else large_batch()
    peers: list[Result] = []
    failure = None
    if not arguments.no_peers:
        try:
            peers = bench_open_spiel(seconds)
        except (PeerError, OSError) as error:
            failure = str(error)
            progress(f"open-spiel: skipped ({error})")
    print((format_json if arguments.json else format_text)(ours, peers, failure, large))
    return 0


if __name__ == "__main__":
    sys.exit(main())
