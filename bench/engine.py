"""Engine speed beside py-draughts' engine, and how exactly the engine keeps time.

Usage::

    python bench/engine.py            # about two minutes
    python bench/engine.py --quick    # a smoke run of a few seconds

Prints, from one run on one core:

* nodes/s of doublecorner's engine and of py-draughts' ``SimpleEngine``
  (in its own virtualenv, ``bench/.venvs/py-draughts``, created on first use
  by ``bench/perft.py``'s machinery), each searching the same positions (the
  start, the positions after every tenth three-move ballot, and the classic
  test positions) for the same time each, and their ratio;
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


def our_speed(fens: Sequence[str], seconds: float) -> tuple[int, float]:
    nodes = 0
    elapsed = 0.0
    for fen in fens:
        engine = Engine(hash_mb=64)
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

    progress(f"doublecorner: {len(fens)} positions x {seconds:g} s ...")
    nodes, elapsed = our_speed(fens, seconds)
    ours = nodes / elapsed
    rows = [("doublecorner Engine", nodes, elapsed, ours, "")]
    if not arguments.no_peers:
        progress(f"py-draughts: {len(fens)} positions x {seconds:g} s ...")
        peer = peer_speed(fens, seconds)
        if isinstance(peer, str):
            print(peer)
        else:
            peer_nodes, peer_seconds = peer
            theirs = peer_nodes / peer_seconds
            rows.append(("py-draughts SimpleEngine (captures forced)", peer_nodes, peer_seconds,
                         theirs, f"doublecorner {ours / theirs:.0f}x faster"))
    print(f"{'engine':<44}{'nodes':>12}{'seconds':>9}{'nodes/s':>12}  ratio")
    for name, count, spent, rate, note in rows:
        print(f"{name:<44}{count:>12,}{spent:>9.1f}{rate:>12,.0f}  {note}")
    verdict = "met" if ours >= NODES_TARGET else "NOT met"
    print(f"target: >= {NODES_TARGET / 1e6:g} M nodes/s: {verdict}")

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
