"""Endgame-table indexing: a perfect ranking of the positions of one material slice.

A slice holds every placement of a fixed material (black men, black kings, white
men, white kings) with **Black to move**. White-to-move positions are stored as
their colour-flipped twin: turn the board half round (square ``s`` becomes
``33 - s``, bit ``i`` becomes ``31 - i``) and swap the colours. That halves the
tables, and every compiled pass runs with one literal turn.

The index of a placement is a mixed-radix number of combinatorial (colex)
ranks, each taken relative to the squares still free for that kind of piece:

1. black men on squares 1-28 (never on their crowning row 29-32), split in the
   ones on 1-4 (where no white man can stand) and the ones on 5-28;
2. white men on squares 5-32 not taken by a black man;
3. black kings on the squares still empty, then white kings on the rest.

How many squares remain for the white men depends on how many black men stand
on 5-28, so the slice is cut in sub-blocks by ``k``, the number of black men on
1-4; inside a block every radix is fixed and the ranking is perfect (no holes).
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_function, kernel_inline
from doublecorner.kernel.bitops import popcount
from doublecorner.kernel.bits import FULL


def _binomials(n: int) -> np.ndarray:
    table = np.zeros((n + 1, n + 1), np.int64)
    for row in range(n + 1):
        table[row, 0] = 1
        for column in range(1, row + 1):
            table[row, column] = table[row - 1, column - 1] + table[row - 1, column]
    return table


BINOMIAL = _binomials(32)  # BINOMIAL[n, k] = n choose k; 0 when k > n
BLACK_BACK_ROW = 0x0000000F  # squares 1-4: black men only (White's crowning row)
SHARED_MEN_SQUARES = 0x0FFFFFF0  # squares 5-28: men of either colour
WHITE_MEN_SQUARES = 0xFFFFFFF0  # squares 5-32
MATERIAL_BASE = 8  # a side has at most 7 pieces of a kind in a material code
MATERIAL_CODES = MATERIAL_BASE ** 4


@kernel_function
def flip_board(bits: int) -> int:
    """The bitboard turned half round: bit ``i`` goes to bit ``31 - i``.

    >>> flip_board(1), flip_board(0x80000000)
    (2147483648, 1)
    """
    bits = ((bits >> 1) & 0x55555555) | ((bits & 0x55555555) << 1)
    bits = ((bits >> 2) & 0x33333333) | ((bits & 0x33333333) << 2)
    bits = ((bits >> 4) & 0x0F0F0F0F) | ((bits & 0x0F0F0F0F) << 4)
    bits = ((bits >> 8) & 0x00FF00FF) | ((bits & 0x00FF00FF) << 8)
    return ((bits >> 16) & 0xFFFF) | ((bits & 0xFFFF) << 16)


@kernel_function
def material_code(black_men: int, black_kings: int, white_men: int, white_kings: int) -> int:
    """A small integer naming a material, the index of its slice in offset tables."""
    return ((black_men * MATERIAL_BASE + black_kings) * MATERIAL_BASE
            + white_men) * MATERIAL_BASE + white_kings


@kernel_inline
def position_material_code(black: int, white: int, kings: int) -> int:
    """The :func:`material_code` of the pieces on a board."""
    return material_code(popcount(black & ~kings), popcount(black & kings),
                         popcount(white & ~kings), popcount(white & kings))


@kernel_function
def _block_size(black_men: int, on_back_row: int, white_men: int) -> int:
    """Placements of the men with ``on_back_row`` black men on squares 1-4."""
    return int(BINOMIAL[4, on_back_row] * BINOMIAL[24, black_men - on_back_row]
               * BINOMIAL[28 - black_men + on_back_row, white_men])


@kernel_function
def slice_size(black_men: int, black_kings: int, white_men: int, white_kings: int) -> int:
    """The number of placements of a material (the size of its slice).

    >>> slice_size(0, 1, 0, 1), slice_size(1, 0, 1, 0)
    (992, 760)
    """
    if black_men > 28 or white_men > 28:
        return 0
    men = 0
    for on_back_row in range(min(4, black_men) + 1):
        men += _block_size(black_men, on_back_row, white_men)
    free = 32 - black_men - white_men
    if free < 0:
        return 0
    return int(men * BINOMIAL[free, black_kings] * BINOMIAL[free - black_kings, white_kings])


@kernel_inline
def _subset_rank(subset: int, available: int) -> int:
    """Colex rank of ``subset`` among the same-sized subsets of ``available``.

    Each member counts by its position among the available squares, so the
    ranks of subsets of an n-square set run over 0 .. C(n, size) - 1.
    """
    rank = 0
    order = 1
    while subset:
        bit = subset & -subset
        subset ^= bit
        rank += BINOMIAL[popcount(available & (bit - 1)), order]
        order += 1
    return rank


@kernel_inline
def _nth_square(available: int, position: int) -> int:
    """The bit of the ``position``-th (from 0) square of ``available``."""
    for _ in range(position):
        available &= available - 1
    return available & -available


@kernel_inline
def _subset_unrank(rank: int, size: int, available: int) -> int:
    """The subset of ``available`` whose :func:`_subset_rank` is ``rank``."""
    subset = 0
    candidate = popcount(available) - 1
    for order in range(size, 0, -1):
        # The largest member c is the largest one with C(c, order) <= rank.
        while BINOMIAL[candidate, order] > rank:
            candidate -= 1
        rank -= BINOMIAL[candidate, order]
        subset |= _nth_square(available, candidate)
        candidate -= 1
    return subset


@kernel_function
def rank_position(black: int, white: int, kings: int) -> int:
    """The index of a Black-to-move placement within the slice of its material."""
    black_men = black & ~kings
    white_men = white & ~kings
    men_count, white_count = popcount(black_men), popcount(white_men)
    on_back_row = popcount(black_men & BLACK_BACK_ROW)
    index = 0
    for block in range(on_back_row):
        index += _block_size(men_count, block, white_count)
    free = ~(black_men | white_men) & FULL
    black_kings = black & kings
    free_after = free & ~black_kings
    radix_high = BINOMIAL[24, men_count - on_back_row]
    radix_white = BINOMIAL[28 - men_count + on_back_row, white_count]
    radix_black_kings = BINOMIAL[popcount(free), popcount(black_kings)]
    radix_white_kings = BINOMIAL[popcount(free_after), popcount(white & kings)]
    local = _subset_rank(black_men & BLACK_BACK_ROW, BLACK_BACK_ROW)
    local = local * radix_high + _subset_rank(black_men & SHARED_MEN_SQUARES,
                                              SHARED_MEN_SQUARES)
    local = local * radix_white + _subset_rank(white_men, WHITE_MEN_SQUARES & ~black_men)
    local = local * radix_black_kings + _subset_rank(black_kings, free)
    local = local * radix_white_kings + _subset_rank(white & kings, free_after)
    # Blocks of smaller k come first, so this block's placements follow theirs.
    return int(index * radix_black_kings * radix_white_kings + local)


@kernel_function
def unrank_position(index: int, black_men: int, black_kings: int, white_men: int,
                    white_kings: int) -> tuple[int, int, int]:
    """(black, white, kings) of the placement with this index in its slice."""
    free_count = 32 - black_men - white_men
    radix_black_kings = BINOMIAL[free_count, black_kings]
    radix_white_kings = BINOMIAL[free_count - black_kings, white_kings]
    kings_radix = radix_black_kings * radix_white_kings
    on_back_row = 0
    while True:
        block = _block_size(black_men, on_back_row, white_men) * kings_radix
        if index < block:
            break
        index -= block
        on_back_row += 1
    radix_high = BINOMIAL[24, black_men - on_back_row]
    radix_white = BINOMIAL[28 - black_men + on_back_row, white_men]
    white_king_rank = index % radix_white_kings
    index //= radix_white_kings
    black_king_rank = index % radix_black_kings
    index //= radix_black_kings
    white_rank = index % radix_white
    index //= radix_white
    high_rank = index % radix_high
    low_rank = index // radix_high
    men = (_subset_unrank(low_rank, on_back_row, BLACK_BACK_ROW)
           | _subset_unrank(high_rank, black_men - on_back_row, SHARED_MEN_SQUARES))
    others = _subset_unrank(white_rank, white_men, WHITE_MEN_SQUARES & ~men)
    free = ~(men | others) & FULL
    crowned = _subset_unrank(black_king_rank, black_kings, free)
    crowned_white = _subset_unrank(white_king_rank, white_kings, free & ~crowned)
    return men | crowned, others | crowned_white, crowned | crowned_white


# -- reading values out of loaded tables -------------------------------------------------
#
# Loaded tables are two arrays that a compiled search can take as arguments:
# ``offsets[material_code]`` is where a slice starts in ``packed`` counted in
# positions (a multiple of 4), or -1 when that slice is not loaded; ``packed``
# holds 2-bit values, four positions a byte, lowest bits first.

DRAW, WIN, LOSS, UNKNOWN = 0, 1, 2, 3  # stored 2-bit values, for the side to move


@kernel_inline
def _packed_value(packed: np.ndarray, at: int) -> int:
    return (int(packed[at >> 2]) >> ((at & 3) * 2)) & 3


@kernel_function
def stored_value(black: int, white: int, kings: int, offsets: np.ndarray,
                 packed: np.ndarray) -> int:
    """The stored value (DRAW, WIN, LOSS) of a Black-to-move position, or UNKNOWN.

    A side with no piece has lost (it has no move); a position whose slice is
    not loaded is UNKNOWN.
    """
    if black == 0:
        return LOSS
    if white == 0:
        return WIN  # not reached in play: the game ended when White lost its last piece
    code = position_material_code(black, white, kings)
    if code >= MATERIAL_CODES:
        return UNKNOWN
    start = offsets[code]
    if start < 0:
        return UNKNOWN
    return _packed_value(packed, start + rank_position(black, white, kings))


@kernel_function
def egtb_value(black: int, white: int, kings: int, turn: int, offsets: np.ndarray,
               packed: np.ndarray) -> int:
    """Game value for the side to move: 1 win, 0 draw, -1 loss, -2 not in the tables.

    The probe a compiled search calls: ``offsets`` and ``packed`` come from
    :meth:`doublecorner.egtb.Tables.arrays`, loaded once and passed down.
    """
    if turn != 0:
        black, white, kings = flip_board(white), flip_board(black), flip_board(kings)
    value = stored_value(black, white, kings, offsets, packed)
    if value == WIN:
        return 1
    if value == LOSS:
        return -1
    if value == DRAW:
        return 0
    return -2

