"""Observations: the board as planes seen from one side, plus the draw-rule counters.

An observation is an ``(8, 8, 8)`` ``float32`` array, ``[row, file, plane]``,
in the observer's frame: for Black, rows and files as in the standard diagram
(row 0 holds squares 1-4, Black's own back row, file 0 is the a-file); for
White, the board turned half a turn (row 0 holds 32-29). Either way the
observer's men start on rows 0-2 and advance towards row 7, so a position
and its mirror image (colours swapped, board turned) look the same to the
side concerned. The planes:

==  =====================================================================
0   the observer's men
1   the observer's kings
2   the opponent's men
3   the opponent's kings
4   the piece in the middle of a multi-jump, which must jump again
5   the pieces it has jumped so far (already gone from planes 0-3)
6   the forty-move clock: plies without a man move or capture, / 80
7   repetitions: earlier occurrences of this position (same side to move), / 2
==  =====================================================================

Planes 6 and 7 hold one value on every cell; with them the draw rules are a
function of the observation. During a multi-jump planes 0-3 show the moving
piece on the square it has reached.
"""

from __future__ import annotations

import functools
import struct

import numpy as np

from doublecorner.board import FORTY_MOVE_PLIES
from doublecorner.color import Color
from doublecorner.envs.actions import frame_square
from doublecorner.envs.game import ActionGame
from doublecorner.squares import square_file, square_row

PLANES = ("own men", "own kings", "opponent men", "opponent kings", "jumping piece",
          "jumped this move", "forty-move clock", "repetitions")
SHAPE = (8, 8, len(PLANES))
_BIT_PLANES = 6  # planes 0-5 come from bitboards, one bit per square
_SIZE = SHAPE[0] * SHAPE[1] * SHAPE[2]
_BLACK = Color.BLACK  # looked up once: an enum class's attribute is slow to read


def _bit_index(color: Color) -> np.ndarray:
    """Where each bit of planes 0-5 goes in the flat planes, for ``color``'s frame.

    The bits come as ``np.unpackbits`` gives them from the little-endian
    bitboards, one after the other: byte by byte, each byte's highest bit
    first, so entry ``32 * p + 8 * b + 7 - k`` is square ``8 * b + k + 1`` in
    plane ``p``.
    """
    cells = [8 * square_row(frame_square(square, color)) + square_file(frame_square(square, color))
             for square in range(1, 33)]
    index = np.array([len(PLANES) * cell + plane
                      for plane in range(_BIT_PLANES) for cell in cells])
    return index.reshape(-1, 8)[:, ::-1].ravel().copy()


# For each colour (by its value), the index of planes 0-5 (during a jump) or 0-3.
_INDEX6 = tuple(_bit_index(color) for color in Color)
_INDEX4 = tuple(index[:4 * 32].copy() for index in _INDEX6)
_PACK4 = struct.Struct("<4I").pack
_PACK6 = struct.Struct(f"<{_BIT_PLANES}I").pack


@functools.cache
def _counters(clock: int, occurrences: int) -> np.ndarray:
    """Flat planes with the draw-rule counters (planes 6 and 7) set, the rest zero.

    Read-only: an observation starts as a copy of one of these (at most 81 x 3),
    cheaper than filling the two planes each time.
    """
    planes = np.zeros(_SIZE, dtype=np.float32)
    planes[6::len(PLANES)] = min(clock, FORTY_MOVE_PLIES) / FORTY_MOVE_PLIES
    planes[7::len(PLANES)] = (occurrences - 1) / 2
    planes.flags.writeable = False
    return planes


_NO_COUNTERS = _counters(0, 1)


def observation(game: ActionGame, observer: Color) -> np.ndarray:
    """The planes of ``game`` as ``observer`` sees them (see the module's table)."""
    black, white, kings = game.bitboards()
    if observer is _BLACK:
        own, other = black, white
    else:
        own, other = white, black
    if game.path:
        jumped = sum(1 << (square - 1) for square in game.captured())
        packed = _PACK6(own & ~kings, own & kings, other & ~kings, other & kings,
                        1 << (game.path[-1] - 1), jumped)
        index = _INDEX6[observer]
    else:
        packed = _PACK4(own & ~kings, own & kings, other & ~kings, other & kings)
        index = _INDEX4[observer]
    # A handful of numpy calls place every bit; a loop over squares would cost far
    # more. (Casting the bits before the scatter is cheaper than casting inside it.)
    bits = np.unpackbits(np.frombuffer(packed, np.uint8)).astype(np.float32)
    clock = game.board.halfmove_clock  # 0 after a man's move or a capture: no repetitions
    planes = (_counters(min(clock, FORTY_MOVE_PLIES), game.occurrences()) if clock
              else _NO_COUNTERS).copy()
    planes[index] = bits
    return planes.reshape(SHAPE)
