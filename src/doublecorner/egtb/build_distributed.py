"""Build endgame tables on a Ray cluster: one task per slice pair, level by level.

The same build as :func:`~doublecorner.egtb.build` (``doublecorner egtb build
--pieces N --ray [ADDRESS]``). The pairs of one level (equal pieces and men,
see :func:`~doublecorner.egtb.material.build_levels`) do not depend on each
other, so each level runs as one task per pair missing on disk; the next level
starts when all are done. A task loads the earlier levels from the table
folder, solves and checks its pair and writes the pair's files there, so the
folder must be one every node shares (a network file system). Files are
written whole or not at all and a pair found whole is not solved again, so a
task whose worker dies is simply run again (see :mod:`doublecorner.distributed`)
and nothing finished is lost. The files are the same as a local build's.

Ray is an optional dependency (``pip install '.[ray]'``), imported
only when a build runs on it; clusters are addressed as for
:mod:`doublecorner.match.distributed`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from doublecorner.distributed import ray_session, run_on_ray
from doublecorner.egtb.build import (
    MAX_PIECES,
    BuildReport,
    ProgressCallback,
    pair_memory,
    read_pair,
    solve_pair,
)
from doublecorner.egtb.material import Material, build_levels, materials, total_positions
from doublecorner.egtb.probe import Tables
from doublecorner.egtb.storage import read_slice


@dataclass(frozen=True, slots=True)
class PairResult:
    """What one task did with its pair."""

    names: tuple[str, ...]
    positions: int
    built: bool  # False: the files were already whole (a task run again)
    deepest_dtc: int


def build_on_ray(max_pieces: int, directory: Path, *, check: bool = True,
                 address: str | None = None,
                 on_progress: ProgressCallback | None = None) -> BuildReport:
    """Build (or finish) every slice of up to ``max_pieces`` pieces, the pairs as Ray tasks.

    Ray is started (``address`` None: here, or the cluster ``RAY_ADDRESS``
    names) or joined (``address``) unless it already runs in this process.
    Each task asks Ray for the memory its pair needs (``pair_memory``), so a
    node runs no more pairs at once than it can hold.

    :raises ValueError: ``max_pieces`` is not in 2..6.
    :raises ImportError: Ray is not installed.
    :raises TableError: a pair fails its check (raised by the task).
    """
    if not 2 <= max_pieces <= MAX_PIECES:
        raise ValueError(f"pieces must be in 2..{MAX_PIECES}, not {max_pieces}")
    started = time.monotonic()
    report = BuildReport(positions=total_positions(max_pieces))
    total = 2 * report.positions
    done = 0

    def finished(result: PairResult) -> None:
        nonlocal done
        done += 2 * result.positions
        names = list(result.names)
        (report.built if result.built else report.loaded).extend(names)
        report.deepest_dtc = max(report.deepest_dtc, result.deepest_dtc)
        if on_progress is not None:
            on_progress(done, total, "/".join(names))

    with ray_session(address):
        for level in build_levels(max_pieces):
            missing = []
            for pair in level:
                if read_pair(directory, pair):
                    finished(PairResult(tuple(m.name for m in pair), _size(pair), False, 0))
                else:
                    missing.append(pair)
            run_on_ray(build_pair_task, [(pair, str(directory), check) for pair in missing],
                       memory=[pair_memory(pair) for pair in missing], on_result=finished)
    report.seconds = time.monotonic() - started
    return report


def build_pair_task(pair: tuple[Material, ...], directory: str, check: bool) -> PairResult:
    """Solve one pair from the earlier levels in ``directory`` and write it there (a Ray task)."""
    folder = Path(directory)
    names = tuple(material.name for material in pair)
    if read_pair(folder, pair):  # an earlier run of this task wrote it before its worker died
        return PairResult(names, _size(pair), False, 0)
    deepest = solve_pair(pair, _earlier_levels(folder, pair), folder, check=check,
                         advance=lambda amount: None)
    return PairResult(names, _size(pair), True, deepest)


def _earlier_levels(directory: Path, pair: tuple[Material, ...]) -> Tables:
    """The slices of every level before ``pair``'s: all its conversions can reach.

    :raises TableError: one of them is missing or damaged.
    """
    level = (pair[0].pieces, pair[0].men)
    tables = Tables(pair[0].pieces)
    for material in materials(pair[0].pieces):
        if (material.pieces, material.men) < level:
            tables.put(read_slice(directory, material, with_dtc=False))
    return tables


def _size(pair: tuple[Material, ...]) -> int:
    return sum(material.size for material in pair)
