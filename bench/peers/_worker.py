"""What every peer worker shares: the command line, the timing and the JSON line.

A worker runs inside its peer's own virtualenv (see ``bench/perft.py``), counts
the perft of the start position at ``--depth`` and prints one JSON object:
``{"name", "method", "depth", "leaves", "seconds", "note"}``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence

# A first, small run loads lazily built tables and warms caches before the clock starts.
WARMUP_DEPTH = 3


def run_worker(
    name: str,
    method: str,
    perft: Callable[[int], int],
    *,
    note: str = "",
    argv: Sequence[str] | None = None,
) -> int:
    """Time ``perft(depth)`` for the depth given on the command line and print the JSON line."""
    parser = argparse.ArgumentParser(description=f"perft of the start position with {name}")
    parser.add_argument("--depth", type=int, required=True, help="plies to count")
    parser.add_argument("--repeat", type=int, default=1, help="runs; the fastest counts")
    arguments = parser.parse_args(argv)
    depth: int = arguments.depth
    perft(min(depth, WARMUP_DEPTH))
    seconds = float("inf")
    leaves = 0
    for _ in range(max(1, arguments.repeat)):
        start = time.perf_counter()
        leaves = perft(depth)
        seconds = min(seconds, time.perf_counter() - start)
    record = {
        "name": name,
        "method": method,
        "depth": depth,
        "leaves": leaves,
        "seconds": seconds,
        "note": note,
    }
    print(json.dumps(record))
    return 0
