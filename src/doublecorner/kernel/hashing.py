"""Zobrist keys: a 64-bit hash of a position for tables and repetition checks."""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_function
from doublecorner.kernel.bitops import bit_index
from doublecorner.kernel.bits import FULL


def _splitmix64_table(count: int, seed: int) -> np.ndarray:
    """A fixed table of pseudo-random 64-bit words (splitmix64), the same on every machine."""
    mask = (1 << 64) - 1
    words = np.empty(count, dtype=np.uint64)
    state = seed
    for i in range(count):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        words[i] = z ^ (z >> 31)
    return words.view(np.int64)


# Rows: black man, black king, white man, white king; then one word for White to move.
ZOBRIST_PIECES = _splitmix64_table(4 * 32 + 1, seed=0x0DB1EC0B0E)
WHITE_TO_MOVE = 4 * 32


@kernel_function
def zobrist_key(black: int, white: int, kings: int, turn: int) -> int:
    """The position's Zobrist key as a signed 64-bit integer."""
    key = ZOBRIST_PIECES[WHITE_TO_MOVE] if turn == 1 else ZOBRIST_PIECES[0] ^ ZOBRIST_PIECES[0]
    for kind in range(4):
        if kind == 0:
            pieces = black & ~kings
        elif kind == 1:
            pieces = black & kings
        elif kind == 2:
            pieces = white & ~kings
        else:
            pieces = white & kings
        pieces &= FULL
        while pieces:
            bit = pieces & -pieces
            pieces ^= bit
            key ^= ZOBRIST_PIECES[kind * 32 + bit_index(bit)]
    return int(key)
