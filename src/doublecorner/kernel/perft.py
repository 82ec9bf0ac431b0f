"""Perft: the number of leaf positions of the legal-move tree to a given depth.

The counts from the start position are published (OEIS A133046), which makes
perft the ground truth for move generation. The last ply is counted in bulk
(``count_moves``) rather than made.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_function
from doublecorner.kernel.movegen import MOVE_FIELDS, count_moves, count_moves_into, generate_into

# Moves one ply can hold in this walk; far above any position met in play.
PLY_CAPACITY = 2048


@kernel_function
def perft(black: int, white: int, kings: int, turn: int, depth: int) -> int:
    """Leaf count of the move tree ``depth`` plies deep (1 for depth 0)."""
    if depth <= 0:
        return 1
    if depth == 1:
        return count_moves(black, white, kings, turn)
    # An explicit stack of generated moves, one layer per ply below the root.
    moves = np.empty((depth - 1, PLY_CAPACITY, MOVE_FIELDS), np.int64)
    move_count = np.zeros(depth - 1, np.int64)
    next_move = np.zeros(depth - 1, np.int64)
    move_count[0] = generate_into(black, white, kings, turn, moves[0])
    if move_count[0] < 0:
        raise ValueError("perft: more moves in one position than the walk can hold")
    leaves = 0
    ply = 0
    while ply >= 0:
        index = next_move[ply]
        if index == move_count[ply]:
            ply -= 1
            continue
        next_move[ply] = index + 1
        child_turn = turn ^ ((ply + 1) & 1)
        child_black = moves[ply, index, 0]
        child_white = moves[ply, index, 1]
        child_kings = moves[ply, index, 2]
        if ply == depth - 2:
            leaves += count_moves_into(child_black, child_white, child_kings, child_turn,
                                       moves[ply])
        else:
            ply += 1
            move_count[ply] = generate_into(child_black, child_white, child_kings, child_turn,
                                            moves[ply])
            if move_count[ply] < 0:
                raise ValueError("perft: more moves in one position than the walk can hold")
            next_move[ply] = 0
    return leaves
