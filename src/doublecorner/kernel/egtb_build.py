"""Compiled passes of the endgame-table builder: retrograde analysis of a slice pair.

A slice (Black to move, see :mod:`.egtb_index`) and its mirror are solved
together: a move that neither captures nor crowns leads from a slice into its
mirror (the child has White to move; flipped, it is a Black-to-move position of
the mirrored material). Every other move *converts*: it leads into a slice with
fewer pieces or fewer men, solved earlier and loaded in ``offsets``/``packed``.

Positions of the pair are numbered ``0 .. size_a - 1`` for slice A and
``size_a ..`` for its mirror B (no B when A is its own mirror). The same passes
solve a *block* (see ``REGION_FIELDS``) for :mod:`doublecorner.egtb.dtz`: there
only king moves stay inside, so the distance found is to the next capture,
crowning or man move, each of which restarts the 40-move count.

Why a retrograde over a stored move graph rather than a predecessor generator
or forward iteration: the forward generator is the only one the rules have,
and naive forward iteration re-generates every unresolved position once per
ply of the longest win (dozens of passes). Here the forward generator runs
twice over the pair: the first pass settles what conversions decide and counts
the moves that stay in the pair; the second records, for each position, the
positions that move into it (the predecessor lists, a CSR array). A breadth-
first pass then settles the rest in order of distance, which also gives the
**distance to conversion** (DTC): the plies until the game leaves the pair
(a capture or a crowning, into a position of the same value) or ends. Memory
is one int32 per in-pair move, 30 to 48 bytes a position of the pair in all:
the 6-piece build (largest pair 218 million positions) peaked at 10 GB.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_inline, kernel_no_alloc
from doublecorner.kernel.egtb_index import (
    DRAW,
    LOSS,
    UNKNOWN,
    WIN,
    flip_board,
    material_code,
    position_material_code,
    rank_position,
    stored_value,
    unrank_position,
)
from doublecorner.kernel.movegen import _generate_at

MOVE_ROWS = 128  # rows of the move buffer; far above the moves of a 6-piece position
NOT_IN_PAIR = -1


# A region is what one solve settles: a slice pair, or a *block* of it (the
# placements of the kings with the men standing still, and its mirror block).
# ``region`` = (size_a, base_a, base_b, size_b): positions base_a .. of slice A
# are region positions 0 .. size_a - 1, positions base_b .. of slice B follow.
# The kings are the lowest digits of a slice index, so a block is a run of it.
REGION_FIELDS = 4


@kernel_inline
def _pair_position(position: int, region: np.ndarray, material_a: np.ndarray,
                   material_b: np.ndarray) -> tuple[int, int, int]:
    size_a = region[0]
    if position < size_a:
        return unrank_position(region[1] + position, material_a[0], material_a[1],
                               material_a[2], material_a[3])
    return unrank_position(region[2] + position - size_a, material_b[0], material_b[1],
                           material_b[2], material_b[3])


@kernel_inline
def _child_in_pair(black: int, white: int, kings: int, region: np.ndarray, code_a: int,
                   code_b: int) -> int:
    """The region number of a Black-to-move child, or NOT_IN_PAIR."""
    code = position_material_code(black, white, kings)
    if code != code_a and code != code_b:
        return NOT_IN_PAIR
    rank = int(rank_position(black, white, kings))
    size_a, base_a, base_b, size_b = int(region[0]), int(region[1]), int(region[2]), int(region[3])
    if code == code_a and base_a <= rank < base_a + size_a:
        return rank - base_a
    if code == code_b and base_b <= rank < base_b + size_b:
        return size_a + rank - base_b
    return NOT_IN_PAIR


@kernel_inline
def _children(black: int, white: int, kings: int, moves: np.ndarray) -> int:
    """Generate the moves of a Black-to-move position; flip each child to Black to move."""
    count = _generate_at(black, white, kings, 0, moves, int(0))  # noqa: UP018, RUF046
    for row in range(count):
        child_black, child_white, child_kings = moves[row, 0], moves[row, 1], moves[row, 2]
        moves[row, 0] = flip_board(child_white)
        moves[row, 1] = flip_board(child_black)
        moves[row, 2] = flip_board(child_kings)
    return count


@kernel_no_alloc
def scan_pair(start: int, stop: int, region: np.ndarray, material_a: np.ndarray,
              material_b: np.ndarray, offsets: np.ndarray, packed: np.ndarray,
              value: np.ndarray, depth: np.ndarray, open_moves: np.ndarray,
              has_draw: np.ndarray, in_degree: np.ndarray, moves: np.ndarray) -> int:
    """First pass over pair positions ``start .. stop - 1``; -1 if a move buffer overflows.

    Settles positions that the conversions decide: no move (LOSS, DTC 0), a
    conversion into a lost position (WIN, 1), only conversions, all into won
    positions (LOSS, 1). For the others it records ``open_moves`` (moves into
    the pair), ``has_draw`` (a conversion into a drawn position: never a loss)
    and counts each child's ``in_degree``.
    """
    code_a = _code(material_a)
    code_b = _code(material_b)
    for position in range(start, stop):
        black, white, kings = _pair_position(position, region, material_a, material_b)
        count = _children(black, white, kings, moves)
        if count < 0:
            return -1
        if count == 0:
            value[position] = LOSS
            depth[position] = 0
            continue
        won = False
        drawn = False
        inside = 0
        for row in range(count):
            child = _child_in_pair(moves[row, 0], moves[row, 1], moves[row, 2], region,
                                   code_a, code_b)
            moves[row, 3] = child  # the route key is not needed; this saves ranking again
            if child != NOT_IN_PAIR:
                inside += 1
                continue
            outcome = stored_value(moves[row, 0], moves[row, 1], moves[row, 2], offsets, packed)
            if outcome == LOSS:
                won = True
                break
            if outcome != WIN:  # DRAW, or UNKNOWN (a slice built out of order): never a loss
                drawn = True
        if won:
            value[position] = WIN
            depth[position] = 1
            continue
        if inside == 0 and not drawn:
            value[position] = LOSS
            depth[position] = 1
            continue
        open_moves[position] = inside
        has_draw[position] = drawn
        for row in range(count):
            if moves[row, 3] != NOT_IN_PAIR:
                in_degree[moves[row, 3]] += 1
    return 0


@kernel_inline
def _code(material: np.ndarray) -> int:
    return int(material_code(material[0], material[1], material[2], material[3]))


@kernel_no_alloc
def fill_predecessors(start: int, stop: int, region: np.ndarray, material_a: np.ndarray,
                      material_b: np.ndarray, value: np.ndarray, first: np.ndarray,
                      predecessors: np.ndarray, moves: np.ndarray) -> int:
    """Second pass: append each unsettled position to the lists of its in-pair children.

    ``first[c + 1]`` starts at the first slot of child ``c``'s list and serves
    as its fill cursor; once every list is full it holds the end of that list,
    which is where list ``c + 1`` starts, so ``first`` becomes the CSR offsets
    (list ``c`` is ``first[c] .. first[c + 1] - 1``) without a second array of
    cursors, which at 6 pieces would cost 1.7 GB.
    """
    code_a = _code(material_a)
    code_b = _code(material_b)
    for position in range(start, stop):
        if value[position] != UNKNOWN:
            continue
        black, white, kings = _pair_position(position, region, material_a, material_b)
        count = _children(black, white, kings, moves)
        if count < 0:
            return -1
        for row in range(count):
            child = _child_in_pair(moves[row, 0], moves[row, 1], moves[row, 2], region,
                                   code_a, code_b)
            if child != NOT_IN_PAIR:
                predecessors[first[child + 1]] = position
                first[child + 1] += 1
    return 0


@kernel_no_alloc
def propagate(value: np.ndarray, depth: np.ndarray, open_moves: np.ndarray,
              has_draw: np.ndarray, first: np.ndarray, predecessors: np.ndarray,
              queue: np.ndarray) -> int:
    """Settle the pair breadth first from the settled positions; the largest DTC.

    A queue in order of DTC: a position whose child is lost at DTC d wins at
    d + 1 (the first time it is reached is the shortest); a position loses
    when its last open move turns out to lead to a win, at one more than that
    win's DTC, the longest. What is never settled is a draw.
    """
    tail = 0
    for wanted in range(2):  # DTC 0 before DTC 1: the queue must stay in order
        for position in range(value.shape[0]):
            if value[position] != UNKNOWN and depth[position] == wanted:
                queue[tail] = position
                tail += 1
    head = 0
    deepest = 0
    while head < tail:
        settled = queue[head]
        head += 1
        settled_value = value[settled]
        next_depth = depth[settled] + 1
        for slot in range(first[settled], first[settled + 1]):
            parent = predecessors[slot]
            if value[parent] != UNKNOWN:
                continue
            if settled_value == LOSS:
                value[parent] = WIN
            else:
                open_moves[parent] -= 1
                if open_moves[parent] > 0 or has_draw[parent]:
                    continue
                value[parent] = LOSS
            depth[parent] = next_depth
            deepest = max(deepest, next_depth)
            queue[tail] = parent
            tail += 1
    for position in range(value.shape[0]):
        if value[position] == UNKNOWN:
            value[position] = DRAW
            depth[position] = 0
    return deepest


@kernel_no_alloc
def check_pair(start: int, stop: int, region: np.ndarray, material_a: np.ndarray,
               material_b: np.ndarray, offsets: np.ndarray, packed: np.ndarray,
               depth: np.ndarray, moves: np.ndarray) -> int:
    """Check built values against the forward moves; the first bad position, or -1.

    The pair's own values are read from ``packed`` too, so they must be loaded.
    A WIN at DTC d has a move into a lost position, at DTC d - 1 if it stays in
    the pair (a conversion counts as 0), and none shorter; a LOSS at DTC d has
    only moves into won positions, the longest at d - 1, or no move and d = 0; a
    DRAW has no move into a lost position and one into a drawn one. Because the
    DTC falls by one along these moves, a consistent table cannot call a cycle
    of endless moves a win: the values are proved, not just consistent.
    """
    code_a = _code(material_a)
    code_b = _code(material_b)
    for position in range(start, stop):
        black, white, kings = _pair_position(position, region, material_a, material_b)
        own = stored_value(black, white, kings, offsets, packed)
        count = _children(black, white, kings, moves)
        if count < 0:
            return position
        shortest_loss = 1 << 30
        longest_win = -1
        any_draw = False
        for row in range(count):
            child_black, child_white, child_kings = moves[row, 0], moves[row, 1], moves[row, 2]
            outcome = stored_value(child_black, child_white, child_kings, offsets, packed)
            child = _child_in_pair(child_black, child_white, child_kings, region, code_a,
                                   code_b)
            child_depth = 0 if child == NOT_IN_PAIR else int(depth[child])
            if outcome == LOSS:
                shortest_loss = min(shortest_loss, child_depth)
            elif outcome == WIN:
                longest_win = max(longest_win, child_depth)
            elif outcome == DRAW:
                any_draw = True
            else:
                return position
        own_depth = int(depth[position])
        if own == WIN:
            good = shortest_loss < (1 << 30) and own_depth == shortest_loss + 1
        elif own == LOSS:
            if count == 0:
                good = own_depth == 0
            else:
                good = (shortest_loss == 1 << 30 and not any_draw
                        and own_depth == longest_win + 1)
        elif own == DRAW:
            good = shortest_loss == 1 << 30 and any_draw and own_depth == 0
        else:
            good = False
        if not good:
            return position
    return -1


@kernel_no_alloc
def pack_values(value: np.ndarray, packed: np.ndarray, start: int) -> None:
    """Write 2-bit ``value`` into ``packed`` from position ``start`` (a multiple of 4)."""
    base = start >> 2
    for position in range(value.shape[0]):
        at = base + (position >> 2)
        shift = (position & 3) * 2
        packed[at] = (packed[at] & ~(3 << shift)) | (value[position] << shift)

