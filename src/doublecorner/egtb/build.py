"""The build driver: solve slice pairs in order, check them, write them; resume where left.

Each mirror pair of slices (see :mod:`doublecorner.kernel.egtb_build`) is
solved with every slice it converts into already in memory. A pair whose files
are present and whole is loaded instead of rebuilt, so an interrupted build
resumes at the first missing pair.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from doublecorner.egtb.material import Material, build_order, total_positions
from doublecorner.egtb.probe import Tables, load_tables
from doublecorner.egtb.storage import SliceData, read_slice, write_slice
from doublecorner.errors import TableError
from doublecorner.kernel.egtb_build import (
    MOVE_ROWS,
    check_pair,
    fill_predecessors,
    pack_values,
    propagate,
    scan_pair,
)
from doublecorner.kernel.egtb_index import UNKNOWN

CHUNK = 1 << 18  # positions per compiled call, between two progress reports
MAX_PIECES = 6  # what the index and the material codes allow

# on_progress(positions done, positions in all, slice being built)
ProgressCallback = Callable[[int, int, str], None]


@dataclass
class BuildReport:
    """What a build did."""

    built: list[str] = field(default_factory=list)  # slices solved now
    loaded: list[str] = field(default_factory=list)  # slices found whole on disk
    positions: int = 0
    deepest_dtc: int = 0  # among the slices solved now
    seconds: float = 0.0


@dataclass
class _Pair:
    """The arrays of a pair being solved, positions of its first slice first."""

    slices: tuple[Material, ...]
    value: np.ndarray = field(init=False)
    depth: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.sizes = [material.size for material in self.slices]
        self.size_a = self.sizes[0]
        self.total = sum(self.sizes)
        self.material_a = np.array(self.slices[0], np.int64)
        self.material_b = np.array(self.slices[-1], np.int64)
        self.value = np.full(self.total, UNKNOWN, np.uint8)
        self.depth = np.zeros(self.total, np.int16)

    def parts(self) -> list[tuple[Material, slice]]:
        found = [(self.slices[0], slice(0, self.size_a))]
        if len(self.slices) > 1:
            found.append((self.slices[1], slice(self.size_a, self.total)))
        return found


def _named(advance: Callable[[int, str], None], name: str, amount: int) -> None:
    advance(amount, name)


def _chunks(total: int) -> list[tuple[int, int]]:
    return [(start, min(start + CHUNK, total)) for start in range(0, total, CHUNK)]


def _solve(pair: _Pair, tables: Tables, advance: Callable[[int], None]) -> int:
    """Fill ``pair.value`` and ``pair.depth``; the largest DTC. Two passes of progress."""
    offsets, packed = tables.arrays()
    moves = np.empty((MOVE_ROWS, 4), np.int64)
    open_moves = np.zeros(pair.total, np.int16)
    has_draw = np.zeros(pair.total, np.bool_)
    in_degree = np.zeros(pair.total, np.int32)
    for start, stop in _chunks(pair.total):
        if scan_pair(start, stop, pair.size_a, pair.material_a, pair.material_b, offsets,
                     packed, pair.value, pair.depth, open_moves, has_draw, in_degree,
                     moves) < 0:
            raise RuntimeError("egtb: a position has more moves than the move buffer")
        advance(stop - start)
    first = np.zeros(pair.total + 1, np.int64)
    np.cumsum(in_degree, out=first[1:])
    del in_degree
    cursor = first[:-1].copy()
    predecessors = np.empty(int(first[-1]), np.int32)
    for start, stop in _chunks(pair.total):
        fill_predecessors(start, stop, pair.size_a, pair.material_a, pair.material_b,
                          pair.value, cursor, predecessors, moves)
        advance(stop - start)
    del cursor
    return int(propagate(pair.value, pair.depth, open_moves, has_draw, first, predecessors,
                         np.empty(pair.total, np.int32)))


def _slice_data(pair: _Pair) -> list[SliceData]:
    dtc_type = np.uint8 if int(pair.depth.max(initial=0)) <= 255 else np.uint16
    found = []
    for material, part in pair.parts():
        values = pair.value[part]
        packed = np.zeros((values.shape[0] + 3) // 4, np.uint8)
        pack_values(values, packed, 0)
        found.append(SliceData(material, packed, pair.depth[part].astype(dtc_type)))
    return found


def check_built_pair(pair: tuple[Material, ...], tables: Tables) -> None:
    """Check a loaded pair against the forward moves (see ``check_pair``).

    :raises TableError: a position's value or DTC does not follow from its moves.
    """
    solved = _Pair(pair)
    solved.depth = np.concatenate([tables.dtc_array(material) for material in pair])
    offsets, packed = tables.arrays()
    moves = np.empty((MOVE_ROWS, 4), np.int64)
    for start, stop in _chunks(solved.total):
        bad = int(check_pair(start, stop, solved.size_a, solved.material_a, solved.material_b,
                             offsets, packed, solved.depth, moves))
        if bad >= 0:
            material = pair[0] if bad < solved.size_a else pair[-1]
            index = bad if bad < solved.size_a else bad - solved.size_a
            raise TableError(f"slice {material.name}: position {index} is inconsistent")


def build(max_pieces: int, directory: Path, *, check: bool = True,
          on_progress: ProgressCallback | None = None) -> BuildReport:
    """Build (or finish) every slice of up to ``max_pieces`` pieces in ``directory``.

    With ``check``, each pair solved is checked against the forward moves
    before it is written.

    :raises ValueError: ``max_pieces`` is not in 2..6.
    :raises TableError: a slice fails its check.
    """
    if not 2 <= max_pieces <= MAX_PIECES:
        raise ValueError(f"pieces must be in 2..{MAX_PIECES}, not {max_pieces}")
    started = time.monotonic()
    report = BuildReport(positions=total_positions(max_pieces))
    tables = Tables(max_pieces)
    done = 0

    def advance(amount: int, name: str) -> None:
        nonlocal done
        done += amount
        if on_progress is not None:
            on_progress(done, 2 * report.positions, name)

    for pair in build_order(max_pieces):
        names = "/".join(material.name for material in pair)
        try:
            found = [read_slice(directory, material) for material in pair]
        except TableError:
            found = []
        if found:
            for data in found:
                tables.put(data)
            report.loaded.extend(material.name for material in pair)
            advance(2 * sum(material.size for material in pair), names)
            continue
        solving = _Pair(pair)
        deepest = _solve(solving, tables, functools.partial(_named, advance, names))
        report.deepest_dtc = max(report.deepest_dtc, deepest)
        slices = _slice_data(solving)
        for data in slices:
            tables.put(data)
        if check:
            check_built_pair(pair, tables)
        for data in slices:
            write_slice(directory, data)
        report.built.extend(material.name for material in pair)
    report.seconds = time.monotonic() - started
    return report


def verify(max_pieces: int, directory: Path,
           on_progress: ProgressCallback | None = None) -> int:
    """Check every slice of up to ``max_pieces`` pieces in ``directory``; positions checked.

    :raises TableError: a slice is missing, damaged or inconsistent.
    """
    tables = load_tables(directory, max_pieces=max_pieces)
    done = 0
    total = total_positions(max_pieces)
    for pair in build_order(max_pieces):
        for material in pair:
            if not tables.has(material):
                raise TableError(f"{directory}: slice {material.name} is missing")
        check_built_pair(pair, tables)
        done += sum(material.size for material in pair)
        if on_progress is not None:
            on_progress(done, total, "/".join(material.name for material in pair))
    return done


def ensure_tables(directory: Path, *, max_pieces: int = 4,
                  on_progress: ProgressCallback | None = None) -> Tables:
    """Load the tables of up to ``max_pieces`` pieces, building what is missing first.

    Up to 4 pieces the build takes seconds (see ``bench/egtb.py``).

    :raises TableError: a file is damaged.
    """
    tables = load_tables(directory, max_pieces=max_pieces)
    if all(tables.has(material) for pair in build_order(max_pieces) for material in pair):
        return tables
    build(max_pieces, directory, on_progress=on_progress)
    return load_tables(directory, max_pieces=max_pieces)
