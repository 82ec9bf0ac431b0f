"""Distance to zeroing (DTZ): the plies until the next move that restarts the 40-move count.

The 40-move rule (WCDF 1.32) counts moves with no man moved and no capture,
so a capture, a crowning and *any* man move restart it. The stored distance
to conversion (DTC) counts only captures and crownings, so in a won ending
whose DTC passes 80 plies the quickest conversion may come too late although a
man move on the way would have restarted the count. The DTZ is the distance
that settles it: the winner heads for the nearest winning move that restarts
the count, the loser puts it off. A win whose DTZ plus the plies already
counted stays below 80 cannot be drawn by the rule when the winner keeps
choosing the moves of smallest DTZ (every such phase ends in a restart, and
men can advance and pieces be taken only finitely often).

Nothing more is stored: while the men stand still only kings move, so the
positions a DTZ depends on are the *block* of the position (the same men on
the same squares, the kings anywhere, and its mirror block), a run of at most a
few hundred thousand positions of its slice. :func:`solve_block` settles the
block with the builder's compiled passes (the moves that leave it are valued
by the tables) and checks it; a block without men is the whole slice, where
the DTZ is the DTC. A win's DTZ is at most its DTC (the quickest conversion
is one way to restart the count), so only wins with a DTC of 80 or more can be
at risk. Measured with ``bench/egtb.py --dtz``: up to 5 pieces the 1,105 such
wins have a DTZ of at most 58, so every won position of up to 5 pieces stays
won under the rule from a fresh count. At 6 pieces, 26 of 5,650 (three kings
against two kings and a man on its own back row, DTC 100-102) have a DTZ of
80-82: with best defence the rule draws them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from doublecorner.egtb.material import Material
from doublecorner.egtb.solve import Region, TableArrays, first_inconsistent, solve_region
from doublecorner.errors import TableError
from doublecorner.kernel.egtb_index import BINOMIAL, flip_board, rank_position

CACHED_BLOCKS = 8  # solved blocks kept per table set: a game stays in one for many moves


class DtzTables(TableArrays, Protocol):
    """What a DTZ probe reads of the loaded tables (:class:`~doublecorner.egtb.probe.Tables`,
    which makes the prober and so is not imported here)."""

    def has(self, material: Material) -> bool: ...

    def dtc_array(self, material: Material) -> np.ndarray: ...


@dataclass(frozen=True)
class Block:
    """Where a block lies in its slice and its mirror's, and its solved depths."""

    material: Material
    base: int  # index of the block's first position in the slice of ``material``
    mirror_base: int  # ... and of the mirror block in the slice of the mirror material
    size: int  # positions in the block (the mirror block has as many)
    self_mirror: bool  # the block is its own mirror (no second half)
    dtz: np.ndarray  # the DTZ of the block, then of its mirror


def block_bounds(material: Material, black: int, white: int, kings: int) -> tuple[int, int]:
    """``(base, size)``: the run of the slice index holding the kings' placements.

    The kings are the lowest digits of a slice index (see
    :func:`~doublecorner.kernel.egtb_index.rank_position`), so the placements
    that share the men's squares are ``size`` consecutive indices.
    """
    free = 32 - material.men
    size = int(BINOMIAL[free, material.black_kings]
               * BINOMIAL[free - material.black_kings, material.white_kings])
    rank = int(rank_position(black, white, kings))
    return rank - rank % size, size


def solve_block(tables: DtzTables, black: int, white: int, kings: int) -> Block:
    """Solve the block of a Black-to-move placement for its DTZ, and check it.

    :raises TableError: the slice, its mirror or a slice a move leaves into is
        not loaded, or the solved block contradicts the tables.
    """
    material = Material.of(black, white, kings)
    mirror = material.mirror()
    for needed in (material, mirror):
        if not tables.has(needed):
            raise TableError(f"slice {needed.name} is not loaded")
    base, size = block_bounds(material, black, white, kings)
    mirror_base, _ = block_bounds(mirror, int(flip_board(white)), int(flip_board(black)),
                                  int(flip_board(kings)))
    self_mirror = mirror == material and mirror_base == base
    region = Region(material, mirror, size_a=size, size_b=0 if self_mirror else size,
                    base_a=base, base_b=mirror_base)
    solve_region(region, tables, lambda amount: None)
    bad = first_inconsistent(region, tables)
    if bad >= 0:
        raise TableError(f"slice {material.name}: block at {base} disagrees with the tables "
                         f"at its position {bad}")
    return Block(material, base, mirror_base, size, self_mirror, region.depth)


class DtzProber:
    """The DTZ of positions, from the stored DTC or from solved blocks (a few kept)."""

    def __init__(self, tables: DtzTables) -> None:
        self.tables = tables
        self._blocks: OrderedDict[tuple[Material, int], Block] = OrderedDict()
        self._lock = threading.Lock()  # engines of a match share one table set

    def dtz(self, black: int, white: int, kings: int) -> int:
        """The DTZ of a Black-to-move placement; 0 for a draw.

        :raises TableError: a slice it needs is not loaded.
        """
        material = Material.of(black, white, kings)
        if material.men == 0:  # only kings: every move that is no capture keeps the count
            return int(self.tables.dtc_array(material)[rank_position(black, white, kings)])
        base, _ = block_bounds(material, black, white, kings)
        key = (material, base)
        with self._lock:
            block = self._blocks.get(key)
            if block is None:
                block = solve_block(self.tables, black, white, kings)
                self._remember(block)
            else:
                self._blocks.move_to_end(key)
        return int(block.dtz[int(rank_position(black, white, kings)) - base])

    def _remember(self, block: Block) -> None:
        self._blocks[(block.material, block.base)] = block
        if not block.self_mirror:  # the mirror block was solved with it
            mirror = Block(block.material.mirror(), block.mirror_base, block.base, block.size,
                           False, np.concatenate([block.dtz[block.size:],
                                                  block.dtz[:block.size]]))
            self._blocks[(mirror.material, mirror.base)] = mirror
        while len(self._blocks) > CACHED_BLOCKS:
            self._blocks.popitem(last=False)
