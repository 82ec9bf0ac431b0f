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

import numpy as np

from doublecorner.board import FORTY_MOVE_PLIES
from doublecorner.color import Color
from doublecorner.envs.actions import frame_square
from doublecorner.envs.game import ActionGame
from doublecorner.squares import square_file, square_row

PLANES = ("own men", "own kings", "opponent men", "opponent kings", "jumping piece",
          "jumped this move", "forty-move clock", "repetitions")
SHAPE = (8, 8, len(PLANES))
# For each colour, the cell (row * 8 + file) of each square's bit in that colour's frame.
_CELLS = {color: np.array([8 * square_row(frame_square(square, color))
                           + square_file(frame_square(square, color))
                           for square in range(1, 33)])
          for color in Color}


def _bits(*bitboards: int) -> np.ndarray:
    """A ``(32, len(bitboards))`` 0/1 array: row ``s - 1`` holds square ``s`` of each."""
    packed = np.array(bitboards, dtype="<u4").view(np.uint8)
    return np.unpackbits(packed, bitorder="little").reshape(len(bitboards), 32).T


def observation(game: ActionGame, observer: Color) -> np.ndarray:
    """The planes of ``game`` as ``observer`` sees them (see the module's table)."""
    black, white, kings = game.bitboards()
    own, other = (black, white) if observer is Color.BLACK else (white, black)
    planes = np.zeros((64, len(PLANES)), dtype=np.float32)
    cells = _CELLS[observer]
    if game.path:
        jumping = 1 << (game.path[-1] - 1)
        jumped = sum(1 << (square - 1) for square in game.captured())
        planes[cells, :6] = _bits(own & ~kings, own & kings, other & ~kings, other & kings,
                                  jumping, jumped)
    else:
        planes[cells, :4] = _bits(own & ~kings, own & kings, other & ~kings, other & kings)
    planes[:, 6] = min(game.board.halfmove_clock, FORTY_MOVE_PLIES) / FORTY_MOVE_PLIES
    planes[:, 7] = (game.occurrences() - 1) / 2
    return planes.reshape(SHAPE)
