"""Perft: the number of leaf positions of the legal-move tree to a given depth.

The counts from the start position are published (OEIS A133046), which makes
perft the ground truth for move generation. The last ply is counted in bulk:
the moves of the leaves' parents are counted, not made.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_function, kernel_inline, kernel_no_alloc
from doublecorner.kernel.movegen import (
    MOVE_FIELDS,
    _count_moves_for,
    _generate_at,
    count_moves,
)

# Rows of the walk's stack per ply; far above any position met in play. One
# ply may take more as long as all of them together fit.
PLY_CAPACITY = 2048


@kernel_inline
def _expand(moves: np.ndarray, parent: int, turn: int, start: int) -> int:
    """Generate the moves of the position in row ``parent`` into rows ``start`` on.

    Returns the row after the last move. ``turn`` becomes a literal here, so
    that each colour gets its own compiled generator (see :mod:`.movegen`).
    """
    black, white, kings = moves[parent, 0], moves[parent, 1], moves[parent, 2]
    if turn == 0:
        end = _generate_at(black, white, kings, 0, moves, start)
    else:
        end = _generate_at(black, white, kings, 1, moves, start)
    if end < 0:
        raise ValueError("perft: more moves than the walk can hold")
    return end


@kernel_no_alloc
def _count_rows(moves: np.ndarray, start: int, end: int, turn: int) -> int:
    """The sum of the move counts of the positions in rows ``start`` to ``end``."""
    total = 0
    for row in range(start, end):
        total += _count_moves_for(moves[row, 0], moves[row, 1], moves[row, 2], turn)
    return total


@kernel_inline
def _count_children(moves: np.ndarray, start: int, end: int, turn: int) -> int:
    """:func:`_count_rows` with ``turn`` as a literal."""
    if turn == 0:
        return _count_rows(moves, start, end, 0)
    return _count_rows(moves, start, end, 1)


@kernel_no_alloc
def _walk(moves: np.ndarray, ply_end: np.ndarray, cursor: np.ndarray, turn: int) -> int:
    """The leaves below the root in row 0 of ``moves``, one ply per entry of ``ply_end``.

    One stack holds the positions of the whole walk: the moves of a position
    are generated right after the last row in use, and ``ply_end[p]`` and
    ``cursor[p]`` are one past the last row of ply ``p`` and its next row to
    expand. The leaves' parents are never expanded: they are counted, all the
    children of one grandparent in one tight loop.
    """
    plies = ply_end.shape[0]
    # The root's moves start at row 1; int(1), not 1: see movegen on literals.
    first = int(1)  # noqa: UP018, RUF046
    ply_end[0] = _expand(moves, 0, turn, first)
    if plies == 1:
        return _count_children(moves, first, ply_end[0], turn ^ 1)
    cursor[0] = first
    leaves = 0
    ply = 0
    while ply >= 0:
        row = cursor[ply]
        if row == ply_end[ply]:
            ply -= 1
            continue
        cursor[ply] = row + 1
        mover = turn ^ ((ply + 1) & 1)  # the side to move in this ply's positions
        start = ply_end[ply]
        end = _expand(moves, row, mover, start)
        if ply == plies - 2:  # the new positions are the leaves' parents
            leaves += _count_children(moves, start, end, mover ^ 1)
        else:
            ply += 1
            cursor[ply] = start
            ply_end[ply] = end
    return leaves


@kernel_function
def perft(black: int, white: int, kings: int, turn: int, depth: int) -> int:
    """Leaf count of the move tree ``depth`` plies deep (1 for depth 0)."""
    if depth <= 0:
        return 1
    if depth == 1:
        return count_moves(black, white, kings, turn)
    plies = depth - 1  # plies of generated positions below the root
    moves = np.empty((plies * PLY_CAPACITY, MOVE_FIELDS), np.int64)
    moves[0, 0] = black
    moves[0, 1] = white
    moves[0, 2] = kings
    return _walk(moves, np.empty(plies, np.int64), np.empty(plies, np.int64), turn)
