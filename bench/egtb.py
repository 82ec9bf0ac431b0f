"""Endgame-table build: time, size on disk and memory peak per piece count.

Each piece count is built from scratch into a fresh temporary folder, in a child
process of its own, so that its memory peak (the child's max RSS) is its own.
``--dtz`` then looks at every win whose distance to conversion (DTC) passes the
40-move count's 80 plies: the distance to the next man move or capture (DTZ)
decides whether the rule can draw it (see ``doublecorner.egtb.dtz``).

    python3 bench/egtb.py --pieces 4 5 --dtz
    python3 bench/egtb.py --pieces 6 --jobs 2 --keep DIR   # 40 minutes; resumable in DIR
    python3 bench/egtb.py --pieces 6 --keep DIR --sample 2000  # a check by search
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


def _long_wins(pieces: int, directory: Path) -> dict[str, float | int]:
    """Wins with a DTC of 80 plies or more: how many, their largest DTZ, how many it dooms."""
    import numpy as np

    from doublecorner.egtb import load_tables, materials
    from doublecorner.egtb.dtz import DtzProber
    from doublecorner.kernel.egtb_index import WIN, unrank_position

    started = time.monotonic()
    tables = load_tables(directory, max_pieces=pieces)
    prober = DtzProber(tables)
    offsets, packed = tables.arrays()
    found = largest = doomed = deepest = 0
    for material in materials(pieces):
        dtc = tables.dtc_array(material)
        deepest = max(deepest, int(dtc.max(initial=0)))
        start = int(offsets[material.code])
        for index in np.flatnonzero(dtc >= 80).tolist():  # in index order: block by block
            at = start + index
            if (packed[at >> 2] >> ((at & 3) * 2)) & 3 != WIN:
                continue
            dtz = prober.dtz(*unrank_position(index, *material))
            found += 1
            largest = max(largest, dtz)
            doomed += dtz >= 80
    return {"deepest_dtc": deepest,  # of every slice, built now or before
            "long_wins": found, "largest_dtz": largest, "doomed_wins": doomed,
            "dtz_seconds": round(time.monotonic() - started, 1)}


def _sampled(pieces: int, directory: Path, count: int) -> dict[str, float | int]:
    """Random positions of ``pieces`` pieces, a short DTC, searched with one piece fewer.

    The engine probes only the smaller tables, so a win or loss it proves rests on
    them and the move generator alone; each one must agree with the new table.
    """
    import random

    from doublecorner.color import Color
    from doublecorner.egtb import Value, load_tables, materials
    from doublecorner.engine import Engine, Limit
    from doublecorner.kernel.egtb_index import unrank_position
    from doublecorner.position import Position

    started = time.monotonic()
    full = load_tables(directory, max_pieces=pieces, lazy_dtc=True)
    engine = Engine(hash_mb=16, tables=load_tables(directory, max_pieces=pieces - 1,
                                                   lazy_dtc=True))
    rng = random.Random(11)
    top = [material for material in materials(pieces) if material.pieces == pieces]
    sampled = proved = contradictions = 0
    while sampled < count:
        material = rng.choice(top)
        position = Position(*unrank_position(rng.randrange(material.size), *material),
                            Color.BLACK)
        dtc = full.dtc(position)
        if dtc > 9:  # beyond what a quick search proves
            continue
        score = engine.search(position, Limit(depth=min(dtc + 4, 12))).score
        sampled += 1
        if score.is_win or score.is_loss:
            proved += 1
            expected = full.value(position)
            if (Value.WIN if score.is_win else Value.LOSS) != expected:
                contradictions += 1
                print(f"contradiction: {position.fen()} table {expected.name}, search {score}",
                      file=sys.stderr)
    return {"sampled": sampled, "proved": proved, "contradictions": contradictions,
            "sample_seconds": round(time.monotonic() - started, 1)}


def _one(pieces: int, directory: Path, jobs: int, dtz: bool,
         sample: int) -> dict[str, float | int]:
    from doublecorner.egtb import build, materials, total_positions
    from doublecorner.egtb.storage import slice_path

    last = [0.0]

    def progress(done: int, total: int, name: str) -> None:
        now = time.monotonic()
        if now - last[0] >= 2 or done == total:
            last[0] = now
            print(f"\r  {pieces} pieces: {100 * done / total:5.1f}%  {name:10}", end="",
                  file=sys.stderr, flush=True)

    report = build(pieces, directory, jobs=jobs, on_progress=progress)
    print(file=sys.stderr)
    size = sum(slice_path(directory, material).stat().st_size
               for material in materials(pieces))  # a kept folder may hold more
    row: dict[str, float | int] = {
        "pieces": pieces, "positions": total_positions(pieces),
        "seconds": round(report.seconds, 1), "bytes": size, "built": len(report.built),
        "deepest_dtc": report.deepest_dtc,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}
    if dtz:
        row |= _long_wins(pieces, directory)
    if sample:
        row |= _sampled(pieces, directory, sample)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pieces", type=int, nargs="+", default=[4])
    parser.add_argument("--jobs", type=int, default=1, help="pairs solved at once (threads)")
    parser.add_argument("--dtz", action="store_true",
                        help="also count the wins the 40-move rule could draw")
    parser.add_argument("--sample", type=int, default=0, metavar="N",
                        help="also search N random positions of the largest piece count "
                             "with the smaller tables: every proof must agree")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="build in DIR instead of a temporary folder (and resume there)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.one is not None:
        print(json.dumps(_one(arguments.one, arguments.dir, arguments.jobs, arguments.dtz,
                              arguments.sample)))
        return 0
    print(f"{'pieces':>6} {'positions':>13} {'built':>5} {'seconds':>8} {'MB on disk':>10} "
          f"{'bits/pos':>8} {'max DTC':>7} {'peak RSS MB':>11}"
          + ("   wins DTC>=80  max DTZ  drawn by rule  seconds" if arguments.dtz else ""))
    for pieces in arguments.pieces:
        with tempfile.TemporaryDirectory(prefix="egtb-bench-") as folder:
            command = [sys.executable, __file__, "--one", str(pieces),
                       "--dir", str(arguments.keep or folder), "--jobs", str(arguments.jobs)]
            command += ["--sample", str(arguments.sample)] + (["--dtz"] if arguments.dtz else [])
            output = subprocess.run(command, check=True, stdout=subprocess.PIPE,
                                    text=True).stdout
        row = json.loads(output.strip().splitlines()[-1])
        line = (f"{row['pieces']:>6} {row['positions']:>13,} {row['built']:>5} "
                f"{row['seconds']:>8} {row['bytes'] / 1e6:>10.2f} "
                f"{8 * row['bytes'] / row['positions']:>8.3f} {row['deepest_dtc']:>7} "
                f"{row['peak_rss_mb']:>11}")
        if arguments.dtz:
            line += (f"   {row['long_wins']:>12,} {row['largest_dtz']:>8} "
                     f"{row['doomed_wins']:>14,} {row['dtz_seconds']:>8}")
        print(line, flush=True)
        if arguments.sample:
            print(f"       {row['sampled']:,} random {pieces}-piece positions searched with "
                  f"the {pieces - 1}-piece tables: {row['proved']:,} proved, "
                  f"{row['contradictions']} contradicting ({row['sample_seconds']} s)",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
