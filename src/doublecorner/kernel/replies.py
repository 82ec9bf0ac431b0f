"""Legal moves together with the number of replies to each.

A Board that has just made a move is usually asked next how many moves the
other side has (``len(board.legal_moves)``, ``is_game_over()``). Counting the
replies here, while the moves are generated, saves a separate call from Python
per position, which costs more than the counting.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_function
from doublecorner.kernel.movegen import count_moves, generate_into

REPLY_COUNT_FIELD = 4  # the column after black, white, kings and key


@kernel_function
def generate_with_reply_counts(black: int, white: int, kings: int, turn: int,
                               out: np.ndarray) -> int:
    """:func:`generate_into`, also writing each move's number of legal replies in column 4.

    ``out`` must have at least five columns. Returns the number of moves, or -1
    if they do not fit.
    """
    n = generate_into(black, white, kings, turn, out)
    for row in range(n):
        out[row, REPLY_COUNT_FIELD] = count_moves(out[row, 0], out[row, 1], out[row, 2],
                                                  1 - turn)
    return n
