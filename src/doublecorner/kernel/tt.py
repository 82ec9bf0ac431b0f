"""The transposition table as the compiled search reads and writes it.

The table is an int64 array of rows ``(key, move key, packed data)``, the data
packing the score (16 bits, offset), the depth (8 bits), the bound (2 bits)
and the search generation (8 bits). Rows go in buckets of two: the first
keeps the deeper search, the second the latest one. A stale first entry (from
an earlier search) gives way whatever its depth. ``doublecorner.engine.tt``
owns the array.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_inline
from doublecorner.kernel.hashing import _splitmix64_table
from doublecorner.kernel.scores import FORTY_MOVE_PLIES, MATE_BOUND

# Transposition table: rows of (key, move key, packed data), in buckets of two
# rows: the first keeps the deeper search, the second the latest one.
T_KEY, T_MOVE, T_DATA = range(3)
TT_FIELDS = 3
BOUND_EXACT, BOUND_LOWER, BOUND_UPPER = 1, 2, 3
# The table's key also names how near the 40-move rule a position is: the same
# pieces with 70 quiet plies behind them may be a draw where with 10 they win.
CLOCK_BUCKET_SHIFT = 4
CLOCK_KEYS = _splitmix64_table((FORTY_MOVE_PLIES >> CLOCK_BUCKET_SHIFT) + 1, seed=0xC10C)
CLOCK_KEYS[0] = 0  # a fresh clock leaves the key as it is


@kernel_inline
def clock_key(clock: int) -> int:
    bucket: int = CLOCK_KEYS[min(clock, FORTY_MOVE_PLIES) >> CLOCK_BUCKET_SHIFT]
    return bucket


@kernel_inline
def tt_find(tt: np.ndarray, key: int, bucket_mask: int) -> int:
    row: int = key & bucket_mask
    if tt[row, T_KEY] == key:
        return row
    if tt[row + 1, T_KEY] == key:
        return row + 1
    return -1


@kernel_inline
def score_to_tt(score: int, ply: int) -> int:
    """A win or loss in the table counts plies from the stored node, not from the root.

    Only counted wins move: an endgame-table win (``TABLE_WIN - ply``) is kept
    as it is, a few plies off when met again elsewhere, which still ranks it
    below every counted win and above every evaluation.
    """
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@kernel_inline
def score_from_tt(score: int, ply: int) -> int:
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


@kernel_inline
def tt_store(tt: np.ndarray, key: int, bucket_mask: int, move: int, score: int, depth: int,
              bound: int, generation: int) -> None:
    row = key & bucket_mask
    if tt[row, T_KEY] == key:
        slot = row
    elif tt[row + 1, T_KEY] == key:
        slot = row + 1
    else:
        data = tt[row, T_DATA]
        stale = ((data >> 32) & 0xFF) != generation
        if stale or ((data >> 16) & 0xFF) <= depth:
            # The deeper slot takes the new entry; its old one moves to the second slot.
            tt[row + 1, T_KEY] = tt[row, T_KEY]
            tt[row + 1, T_MOVE] = tt[row, T_MOVE]
            tt[row + 1, T_DATA] = data
            slot = row
        else:
            slot = row + 1
    if move < 0 and tt[slot, T_KEY] == key:
        move = tt[slot, T_MOVE]
    tt[slot, T_KEY] = key
    tt[slot, T_MOVE] = move
    tt[slot, T_DATA] = ((score + 32768) | (max(depth, 0) << 16) | (bound << 24)
                        | (generation << 32))
