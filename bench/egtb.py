"""Endgame-table build: time, size on disk and memory peak per piece count.

Each piece count is built from scratch into a fresh temporary folder, in a child
process of its own, so that its memory peak (the child's max RSS) is its own.

    python3 bench/egtb.py --pieces 4 5
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _one(pieces: int, directory: Path) -> dict[str, float | int]:
    from doublecorner.egtb import build, total_positions

    last = [0.0]

    def progress(done: int, total: int, name: str) -> None:
        now = time.monotonic()
        if now - last[0] >= 2 or done == total:
            last[0] = now
            print(f"\r  {pieces} pieces: {100 * done / total:5.1f}%  {name:10}", end="",
                  file=sys.stderr, flush=True)

    report = build(pieces, directory, on_progress=progress)
    print(file=sys.stderr)
    size = sum(path.stat().st_size for path in directory.glob("*.dcdb"))
    return {"pieces": pieces, "positions": total_positions(pieces),
            "seconds": round(report.seconds, 1), "bytes": size,
            "deepest_dtc": report.deepest_dtc,
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pieces", type=int, nargs="+", default=[4])
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.one is not None:
        print(json.dumps(_one(arguments.one, arguments.dir)))
        return 0
    print(f"{'pieces':>6} {'positions':>13} {'seconds':>8} {'MB on disk':>10} "
          f"{'bits/pos':>8} {'max DTC':>7} {'peak RSS MB':>11}")
    for pieces in arguments.pieces:
        with tempfile.TemporaryDirectory(prefix="egtb-bench-") as folder:
            output = subprocess.run([sys.executable, __file__, "--one", str(pieces),
                                     "--dir", folder], check=True, capture_output=False,
                                    stdout=subprocess.PIPE, text=True).stdout
        row = json.loads(output.strip().splitlines()[-1])
        print(f"{row['pieces']:>6} {row['positions']:>13,} {row['seconds']:>8} "
              f"{row['bytes'] / 1e6:>10.2f} {8 * row['bytes'] / row['positions']:>8.3f} "
              f"{row['deepest_dtc']:>7} {row['peak_rss_mb']:>11}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
