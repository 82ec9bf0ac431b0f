"""Solving a region of positions by retrograde analysis, and checking it, against loaded tables.

A :class:`Region` is a slice pair being built (:mod:`doublecorner.egtb.build`)
or a block of one whose distance to zeroing is wanted
(:mod:`doublecorner.egtb.dtz`). Both solve it the same way: the compiled
passes of :mod:`doublecorner.kernel.egtb_build` value its moves that leave it
from the tables already loaded, then propagate inside it. Only the tables'
arrays are read here (:class:`TableArrays`), so the tables' own module can use
the solver without the solver importing it back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from doublecorner.egtb.material import Material
from doublecorner.kernel.egtb_build import (
    MOVE_ROWS,
    check_pair,
    fill_predecessors,
    propagate,
    scan_pair,
)
from doublecorner.kernel.egtb_index import UNKNOWN

CHUNK = 1 << 18  # positions per compiled call, between two progress reports


class TableArrays(Protocol):
    """What the solver reads of the loaded tables: the compiled probe's arrays."""

    def arrays(self) -> tuple[np.ndarray, np.ndarray]: ...


class Region:
    """The arrays of positions solved together: a slice pair, or a block of one.

    ``region`` is what the compiled passes take (see
    :mod:`doublecorner.kernel.egtb_build`): ``size_a`` positions of slice
    ``material_a`` from ``base_a``, then ``size_b`` of its mirror from ``base_b``.
    """

    def __init__(self, material_a: Material, material_b: Material, *, size_a: int,
                 size_b: int, base_a: int = 0, base_b: int = 0) -> None:
        self.size_a = size_a
        self.total = size_a + size_b
        self.material_a = np.array(material_a, np.int64)
        self.material_b = np.array(material_b, np.int64)
        self.region = np.array([size_a, base_a, base_b, size_b], np.int64)
        self.value = np.full(self.total, UNKNOWN, np.uint8)
        self.depth = np.zeros(self.total, np.int16)


def chunks(total: int) -> list[tuple[int, int]]:
    return [(start, min(start + CHUNK, total)) for start in range(0, total, CHUNK)]


def solve_region(pair: Region, tables: TableArrays, advance: Callable[[int], None]) -> int:
    """Fill ``pair.value`` and ``pair.depth``; the largest depth. Two passes of progress.

    What ``pair`` converts into (for a block: every move but a king's step)
    must be loaded in ``tables``.
    """
    offsets, packed = tables.arrays()
    moves = np.empty((MOVE_ROWS, 4), np.int64)
    open_moves = np.zeros(pair.total, np.int16)
    has_draw = np.zeros(pair.total, np.bool_)
    in_degree = np.zeros(pair.total, np.int32)
    for start, stop in chunks(pair.total):
        if scan_pair(start, stop, pair.region, pair.material_a, pair.material_b, offsets,
                     packed, pair.value, pair.depth, open_moves, has_draw, in_degree,
                     moves) < 0:
            raise RuntimeError("egtb: a position has more moves than the move buffer")
        advance(stop - start)
    # first[c + 1] starts at list c's first slot; fill_predecessors turns it into the offsets
    first = np.zeros(pair.total + 1, np.int64)
    np.cumsum(in_degree[:-1], out=first[2:])
    predecessors = np.empty(int(first[-1]) + int(in_degree[-1]), np.int32)
    del in_degree
    for start, stop in chunks(pair.total):
        fill_predecessors(start, stop, pair.region, pair.material_a, pair.material_b,
                          pair.value, first, predecessors, moves)
        advance(stop - start)
    return int(propagate(pair.value, pair.depth, open_moves, has_draw, first, predecessors,
                         np.empty(pair.total, np.int32)))


def first_inconsistent(region: Region, tables: TableArrays) -> int:
    """The first position of ``region`` whose value or depth its moves contradict, or -1.

    Values are read from ``tables`` (the region's own too), depths from
    ``region.depth`` (see ``check_pair``).
    """
    offsets, packed = tables.arrays()
    moves = np.empty((MOVE_ROWS, 4), np.int64)
    for start, stop in chunks(region.total):
        bad = int(check_pair(start, stop, region.region, region.material_a, region.material_b,
                             offsets, packed, region.depth, moves))
        if bad >= 0:
            return bad
    return -1
