"""Move ordering for the compiled search: the table's move, captures, killers, history.

A search cuts off sooner the sooner it tries the best move. Each move gets an
ordering score: the transposition table's move first, then (when captures
are compulsory every move is one) the longer captures, then the two killer
moves of the ply (quiet moves that caused a cut-off at the same ply in a
sibling), then the rest by their history: how often and how deep the same
step by the same side caused a cut-off, less how often and how deep it was
tried before another move that did (it was searched and found wanting).
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_inline
from doublecorner.kernel.encoding import JUMP_COUNT_SHIFT, ROUTE_SHIFT

# Move-ordering scores.
ORDER_TT = 1 << 40
ORDER_KILLER = 1 << 30
ORDER_CAPTURE = 1 << 20
HISTORY_SIZE = 2 * 32 * 32  # by side to move, origin and destination of a step
HISTORY_CEILING = 1 << 28


@kernel_inline
def history_index(turn: int, move_key: int) -> int:
    return turn * 1024 + (move_key & 31) * 32 + ((move_key >> ROUTE_SHIFT) & 31)


@kernel_inline
def score_moves(moves: np.ndarray, order: np.ndarray, start: int, end: int, turn: int,
                ply: int, tt_move: int, capture: bool, killers: np.ndarray,
                history: np.ndarray) -> None:
    """Give the moves in ``moves[start:end]`` their ordering scores in ``order``."""
    for row in range(start, end):
        move_key = moves[row, 3]
        if move_key == tt_move:
            order[row] = ORDER_TT
        elif capture:
            order[row] = ORDER_CAPTURE + ((move_key >> JUMP_COUNT_SHIFT) & 15)
        elif move_key == killers[ply, 0]:
            order[row] = ORDER_KILLER
        elif move_key == killers[ply, 1]:
            order[row] = ORDER_KILLER - 1
        else:
            order[row] = history[history_index(turn, move_key)]


@kernel_inline
def pick_next(moves: np.ndarray, order: np.ndarray, row: int, end: int) -> None:
    """Bring the best-ordered of ``moves[row:end]`` to ``row`` (one selection-sort step)."""
    pick = row
    for other in range(row + 1, end):
        if order[other] > order[pick]:
            pick = other
    if pick != row:
        for field in range(4):
            swap = moves[row, field]
            moves[row, field] = moves[pick, field]
            moves[pick, field] = swap
        swap = order[row]
        order[row] = order[pick]
        order[pick] = swap


@kernel_inline
def is_late_quiet(order_score: int) -> bool:
    """Whether a move is neither the table's move, a capture nor a killer."""
    return order_score < ORDER_KILLER - 1


@kernel_inline
def record_cutoff(killers: np.ndarray, history: np.ndarray, ply: int, turn: int,
                  move_key: int, depth: int) -> None:
    """Remember a quiet move that caused a cut-off: a killer of the ply, and in the history."""
    if killers[ply, 0] != move_key:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move_key
    index = history_index(turn, move_key)
    history[index] += depth * depth
    if history[index] > HISTORY_CEILING:
        _halve(history)


@kernel_inline
def _halve(history: np.ndarray) -> None:
    """Halve every entry (rounding down), so that none passes its bound either way."""
    for entry in range(HISTORY_SIZE):
        history[entry] //= 2


@kernel_inline
def penalise_tried(moves: np.ndarray, history: np.ndarray, start: int, cut: int, turn: int,
                   depth: int) -> None:
    """Lower the history of the quiet moves ``moves[start:cut]``, tried before the
    move that cut off and found wanting: a step that keeps failing sinks in the order."""
    for row in range(start, cut):
        index = history_index(turn, moves[row, 3])
        history[index] -= depth * depth
        if history[index] < -HISTORY_CEILING:
            _halve(history)
