"""Bitboard layout, masks and lookup tables shared by the kernel functions.

Square ``s`` (1..32) is bit ``s - 1``. Its row from the top (Black's side) is
``(s - 1) // 4``; on even rows (0, 2, 4, 6) the dark squares sit on files
b, d, f, h, on odd rows on files a, c, e, g. Black moves "south" (towards higher
numbers), White "north". Directions are numbered 0 = SW, 1 = SE, 2 = NW, 3 = NE,
so a Black man uses directions 0-1, a White man 2-3 and a king all four.
"""

from __future__ import annotations

import numpy as np

FULL = 0xFFFFFFFF
EVEN_ROWS = 0x0F0F0F0F
ODD_ROWS = 0xF0F0F0F0
# Pieces that may shift by 5 (south) or 3 (north): even rows, not on the h file.
EVEN_NOT_H = 0x07070707
# Pieces that may shift by 3 (south) or 5 (north): odd rows, not on the a file.
ODD_NOT_A = 0xE0E0E0E0
BLACK_CROWN_ROW = 0xF0000000  # squares 29-32
WHITE_CROWN_ROW = 0x0000000F  # squares 1-4

_DIRECTION_STEPS = ((1, -1), (1, 1), (-1, -1), (-1, 1))  # (row, file) deltas


def square_row_file(index: int) -> tuple[int, int]:
    """Row from the top and file (0 = a) of bit ``index``."""
    row = index >> 2
    file = 2 * (index & 3) + (1 if row % 2 == 0 else 0)
    return row, file


def _index_at(row: int, file: int) -> int:
    if not (0 <= row < 8 and 0 <= file < 8) or (row + file) % 2 == 0:
        return -1
    return row * 4 + file // 2


def _build_tables() -> tuple[np.ndarray, np.ndarray]:
    neighbour = np.full(4 * 32, -1, dtype=np.int64)
    landing = np.full(4 * 32, -1, dtype=np.int64)
    for index in range(32):
        row, file = square_row_file(index)
        for direction, (d_row, d_file) in enumerate(_DIRECTION_STEPS):
            neighbour[direction * 32 + index] = _index_at(row + d_row, file + d_file)
            landing[direction * 32 + index] = _index_at(row + 2 * d_row, file + 2 * d_file)
    return neighbour, landing


# NEIGHBOUR[d * 32 + i]: the square one step from i in direction d (-1: off board).
# LANDING[d * 32 + i]: the square two steps away, where a jump lands.
NEIGHBOUR, LANDING = _build_tables()
