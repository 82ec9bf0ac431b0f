"""Engine speed beside py-draughts' engine, and how exactly the engine keeps time.

Usage::

    python bench/engine.py            # about two minutes
    python bench/engine.py --quick    # a smoke run of a few seconds

Prints, from one run on one core:

* nodes/s of doublecorner's engine with each evaluation (the network and the
  linear one) and of py-draughts' ``SimpleEngine``
  (in its own virtualenv, ``bench/.venvs/py-draughts``, created on first use
  by ``bench/perft.py``'s machinery), each searching the same positions (the
  start, the positions after every tenth three-move ballot, and the classic
  test positions) for the same time each, and their ratio;
* the cost of one evaluation in nanoseconds: the network's output from its
  accumulator, one incremental accumulator update, a full computation, and
  the linear evaluation (each in a compiled loop over the bench positions);
* the overshoot of time limits: the wall time of ``Engine.search`` beyond
  its ``Limit(time=...)`` over many searches (target: at most 50 ms);
* the latency of a stop: the time from ``Engine.stop()`` in another thread
  to ``search`` returning its move.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from doublecorner import Board, Position  # noqa: E402
from doublecorner.engine import Engine, Limit  # noqa: E402
from doublecorner.engine.search import DEFAULT_EVALUATION, EVALUATIONS  # noqa: E402
from doublecorner.match import three_move_deck  # noqa: E402
from perft import PEERS, PeerError, ensure_venv, progress  # noqa: E402

NODES_TARGET = 3e6
OVERSHOOT_TARGET = 0.050
CLASSIC_POSITIONS = (
    "W:WK15,20:BK28,12",
    "B:W22,K5:BK15,K6",
    "W:WK30,22,16,K2:B21,14,13,K10",
    "W:W30,29,22,21,9,6:B24,20,16,13,8,7",
    "B:W15,19,21,23,25,30,31,32:B2,3,5,10,12,13,16,24",
)
PEER_TIMEOUT = 900.0


def bench_positions() -> list[str]:
    ballots = three_move_deck()[::10]
    return [Board().fen(), *(ballot.board().fen() for ballot in ballots), *CLASSIC_POSITIONS]


def our_speed(fens: Sequence[str], seconds: float, evaluation: str) -> tuple[int, float]:
    nodes = 0
    elapsed = 0.0
    for fen in fens:
        engine = Engine(hash_mb=64, evaluation=evaluation)
        result = engine.search(Position.from_fen(fen), Limit(time=seconds))
        nodes += result.nodes
        elapsed += result.seconds
    return nodes, elapsed


def peer_speed(fens: Sequence[str], seconds: float) -> tuple[int, float] | str:
    peer = next(peer for peer in PEERS if peer.name == "py-draughts")
    try:
        python = ensure_venv(peer)
    except PeerError as error:
        return f"py-draughts unavailable: {error}"
    request = json.dumps({"fens": list(fens), "seconds": seconds})
    completed = subprocess.run([str(python), str(BENCH_DIR / "peers" /
                                                 "py_draughts_engine_worker.py")],
                               input=request, capture_output=True, text=True,
                               timeout=PEER_TIMEOUT, check=False)
    if completed.returncode != 0:
        return f"py-draughts worker failed: {completed.stderr.strip()[-300:]}"
    record = json.loads(completed.stdout.strip().splitlines()[-1])
    return int(record["nodes"]), float(record["seconds"])


def print_evaluation_costs(fens: Sequence[str], repeats: int) -> None:
    """Nanoseconds per evaluation, each kind timed in a compiled loop over the positions."""
    import numpy as np

    from doublecorner.engine.network import Network
    from doublecorner.engine.weights import Weights
    from doublecorner.kernel.evaluate import FEATURE_COUNT

    positions = [Position.from_fen(fen) for fen in fens]
    boards = np.array([[p.black, p.white, p.kings, int(p.turn)] for p in positions], np.int64)
    # Each position with its first legal move made: the update a search does.
    children = np.array([list(first_child(p)) for p in positions], np.int64)
    network = Network.default().quantised
    weights = Weights.default().as_array()
    timings = evaluation_timings(boards, children, network, weights,
                                 np.zeros(FEATURE_COUNT, np.float64), repeats)
    names = ("network output from the accumulator", "network accumulator update (one move)",
             "network from scratch (both accumulators)", "linear evaluation")
    for name, nanoseconds in zip(names, timings, strict=True):
        print(f"{name:<44}{nanoseconds:>8.0f} ns")


def first_child(position: Position) -> tuple[int, int, int]:
    """The bitboards after the position's first legal move (the position if it has none)."""
    from doublecorner.kernel import generate_moves

    rows = generate_moves(position.black, position.white, position.kings, int(position.turn))
    if len(rows) == 0:
        return position.black, position.white, position.kings
    return int(rows[0, 0]), int(rows[0, 1]), int(rows[0, 2])


def evaluation_timings(boards: object, children: object, network: object, weights: object,
                       scratch: object, repeats: int) -> list[float]:
    import numba
    import numpy as np

    from doublecorner.kernel.evaluate import evaluate
    from doublecorner.kernel.network import (
        HIDDEN,
        SCRATCH,
        evaluate_position,
        network_output,
        refresh_accumulators,
        update_accumulators,
    )

    @numba.njit(nogil=True)
    def output_loop(boards, network, accumulators, net_scratch, repeats):  # type: ignore[no-untyped-def]
        total = 0.0
        for _ in range(repeats):
            for index in range(boards.shape[0]):
                total += network_output(accumulators, index, boards[index, 3], 24, network,
                                        net_scratch)
        return total

    @numba.njit(nogil=True)
    def update_loop(boards, children, network, accumulators, repeats):  # type: ignore[no-untyped-def]
        for _ in range(repeats):
            for index in range(boards.shape[0]):
                update_accumulators(boards[index, 0], boards[index, 1], boards[index, 2],
                                    children[index, 0], children[index, 1], children[index, 2],
                                    network, accumulators, index)
        return accumulators[1, 0, 0]

    @numba.njit(nogil=True)
    def full_loop(boards, network, accumulators, net_scratch, repeats):  # type: ignore[no-untyped-def]
        total = 0
        for _ in range(repeats):
            for index in range(boards.shape[0]):
                total += evaluate_position(boards[index, 0], boards[index, 1], boards[index, 2],
                                           boards[index, 3], network, accumulators, net_scratch)
        return total

    @numba.njit(nogil=True)
    def linear_loop(boards, weights, scratch, repeats):  # type: ignore[no-untyped-def]
        total = 0
        for _ in range(repeats):
            for index in range(boards.shape[0]):
                total += evaluate(boards[index, 0], boards[index, 1], boards[index, 2],
                                  boards[index, 3], weights, scratch)
        return total

    count = len(boards)  # type: ignore[arg-type]
    accumulators = np.zeros((count + 1, 2, HIDDEN), np.float32)
    for index in range(count):
        row = boards[index]  # type: ignore[index]
        refresh_accumulators(row[0], row[1], row[2], network, accumulators, index)
    net_scratch = np.zeros(SCRATCH, np.float32)
    runs = (lambda n: output_loop(boards, network, accumulators, net_scratch, n),
            lambda n: update_loop(boards, children, network, accumulators.copy(), n),
            lambda n: full_loop(boards, network, np.zeros((1, 2, HIDDEN), np.float32),
                                net_scratch, n),
            lambda n: linear_loop(boards, weights, scratch, n))
    timings = []
    for run in runs:
        run(1)  # compile
        started = time.perf_counter()
        run(repeats)
        timings.append((time.perf_counter() - started) / (repeats * count) * 1e9)
    return timings


def overshoots(fens: Sequence[str], limits: Sequence[float]) -> list[float]:
    """Wall time of each search beyond its time limit, over every position and limit."""
    engine = Engine(hash_mb=64)
    excess = []
    for seconds in limits:
        for fen in fens:
            position = Position.from_fen(fen)
            started = time.monotonic()
            engine.search(position, Limit(time=seconds))
            excess.append(time.monotonic() - started - seconds)
    return excess


def stop_latencies(fens: Sequence[str], after: float) -> list[float]:
    """Seconds from ``Engine.stop()`` in another thread to ``search`` returning."""
    latencies = []
    for fen in fens:
        engine = Engine(hash_mb=64)
        stopped_at: list[float] = []

        def stop_later(engine: Engine = engine, stopped_at: list[float] = stopped_at) -> None:
            time.sleep(after)
            stopped_at.append(time.monotonic())
            engine.stop()

        stopper = threading.Thread(target=stop_later)
        stopper.start()
        result = engine.search(Position.from_fen(fen))
        returned = time.monotonic()
        stopper.join()
        if result.move is None or result.move not in Board(fen).legal_moves:
            raise SystemExit(f"stopped search returned no legal move in {fen}")
        latencies.append(returned - stopped_at[0])
    return latencies


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds: a smoke run")
    parser.add_argument("--no-peers", action="store_true", help="doublecorner only")
    arguments = parser.parse_args(argv)
    fens = bench_positions()
    seconds = 0.2 if arguments.quick else 2.0
    if arguments.quick:
        fens = fens[:4]
    Engine(hash_mb=1).search(Position.start(), Limit(depth=2))  # load the compiled code

    rows = []
    speeds = {}
    for evaluation in EVALUATIONS:
        progress(f"doublecorner ({evaluation}): {len(fens)} positions x {seconds:g} s ...")
        nodes, elapsed = our_speed(fens, seconds, evaluation)
        speeds[evaluation] = nodes / elapsed
        rows.append((f"doublecorner Engine ({evaluation})", nodes, elapsed, speeds[evaluation],
                     "" if evaluation == EVALUATIONS[0] else
                     f"{speeds[evaluation] / speeds[EVALUATIONS[0]]:.2f}x the network's"))
    ours = speeds[DEFAULT_EVALUATION]
    if not arguments.no_peers:
        progress(f"py-draughts: {len(fens)} positions x {seconds:g} s ...")
        peer = peer_speed(fens, seconds)
        if isinstance(peer, str):
            print(peer)
        else:
            peer_nodes, peer_seconds = peer
            theirs = peer_nodes / peer_seconds
            rows.append(("py-draughts SimpleEngine (captures forced)", peer_nodes, peer_seconds,
                         theirs, f"doublecorner ({DEFAULT_EVALUATION}) {ours / theirs:.0f}x "
                                 "faster"))
    print(f"{'engine':<44}{'nodes':>12}{'seconds':>9}{'nodes/s':>12}  ratio")
    for name, count, spent, rate, note in rows:
        print(f"{name:<44}{count:>12,}{spent:>9.1f}{rate:>12,.0f}  {note}")
    # The target measures the search itself, with the cheap linear evaluation; the
    # network trades nodes for judgement (the ratio is printed above).
    searched = speeds["linear"]
    verdict = "met" if searched >= NODES_TARGET else "NOT met"
    print(f"target: >= {NODES_TARGET / 1e6:g} M nodes/s (the search, linear evaluation): "
          f"{verdict}")
    print_evaluation_costs(fens, repeats=2_000 if arguments.quick else 50_000)

    limits = (0.01, 0.1) if arguments.quick else (0.01, 0.05, 0.1, 0.3)
    progress(f"time limits {limits} on {len(fens)} positions ...")
    excess = overshoots(fens, limits)
    worst = max(excess)
    print(f"time-limit overshoot over {len(excess)} searches: "
          f"mean {1000 * statistics.mean(excess):.1f} ms, max {1000 * worst:.1f} ms "
          f"(target <= {1000 * OVERSHOOT_TARGET:.0f} ms: "
          f"{'met' if worst <= OVERSHOOT_TARGET else 'NOT met'})")
    latencies = stop_latencies(fens[:6], after=0.05 if arguments.quick else 0.3)
    print(f"stop from another thread: mean {1000 * statistics.mean(latencies):.1f} ms, "
          f"max {1000 * max(latencies):.1f} ms to return a legal move")
    return 0


if __name__ == "__main__":
    sys.exit(main())
