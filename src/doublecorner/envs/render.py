"""Pictures of a game for the environments' render modes: text and RGB arrays.

Both show the standard diagram, White at the bottom, whoever is to move: a
picture is for people, the observation is what a learner sees.

>>> game = ActionGame()
>>> rgb_array(game).shape
(256, 256, 3)
>>> print(ansi(game).splitlines()[-1])
Black to move
"""

from __future__ import annotations

from functools import cache

import numpy as np

from doublecorner.color import Color
from doublecorner.diagram import board_diagram
from doublecorner.envs.game import ActionGame
from doublecorner.squares import square_file, square_row

SQUARE_PIXELS = 32
LIGHT = (238, 220, 186)
DARK = (150, 111, 80)
HIGHLIGHT = (104, 134, 72)  # squares of the move in progress, or else of the last move
# Each side's piece: its fill and its rim.
PIECE = {Color.BLACK: ((30, 30, 30), (95, 95, 95)), Color.WHITE: ((245, 243, 232), (70, 70, 70))}
CROWN = (218, 165, 32)
JUMPED = (200, 40, 40)  # a cross on the pieces a multi-jump has taken so far


def ansi(game: ActionGame) -> str:
    """The diagram (``b``/``w`` men, ``B``/``W`` kings) and a line on whose turn it is."""
    diagram = board_diagram(*game.bitboards())
    outcome = game.outcome()
    if outcome is not None:
        status = f"game over: {outcome.result()} ({outcome.termination.value})"
    elif game.path:
        captured = ", ".join(map(str, game.captured()))
        status = (f"{game.turn} to move, jumping {'x'.join(map(str, game.path))} "
                  f"(taken so far: {captured}); the jump goes on from {game.path[-1]}")
    else:
        status = f"{game.turn} to move"
    return f"{diagram}\n{status}"


@cache
def _masks(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Boolean masks of one square: the piece's rim, its body, a king's crown, a cross."""
    centre = (size - 1) / 2
    rows, files = np.ogrid[:size, :size]
    distance = np.hypot(rows - centre, files - centre)
    rim = distance <= 0.42 * size
    body = distance <= 0.34 * size
    crown = distance <= 0.16 * size
    cross = (np.abs(np.abs(rows - centre) - np.abs(files - centre)) <= size / 20) & body
    return rim, body, crown, cross


def rgb_array(game: ActionGame, *, square_pixels: int = SQUARE_PIXELS) -> np.ndarray:
    """The board as an ``(8 * square_pixels, 8 * square_pixels, 3)`` ``uint8`` picture.

    Black pieces are dark discs, White's light ones, kings carry a gold
    centre; the squares of the move in progress (else of the last move) are
    green, and pieces a multi-jump has taken so far are crossed in red.
    """
    size = square_pixels
    picture = np.empty((8 * size, 8 * size, 3), dtype=np.uint8)
    picture[:] = LIGHT
    highlighted = set(game.path)
    if not highlighted and game.board.move_stack:
        highlighted = set(game.board.peek().path)
    for square in range(1, 33):
        cell = _cell(picture, square, size)
        cell[:] = HIGHLIGHT if square in highlighted else DARK
    rim, body, crown, cross = _masks(size)
    black, white, kings = game.bitboards()
    for square in range(1, 33):
        bit = 1 << (square - 1)
        if not (black | white) & bit:
            continue
        cell = _cell(picture, square, size)
        fill, edge = PIECE[Color.BLACK if black & bit else Color.WHITE]
        cell[rim] = edge
        cell[body] = fill
        if kings & bit:
            cell[crown] = CROWN
    position = game.board.position()
    for square in game.captured():
        cell = _cell(picture, square, size)
        color = Color.BLACK if position.black >> (square - 1) & 1 else Color.WHITE
        cell[rim] = PIECE[color][1]
        cell[body] = PIECE[color][0]
        cell[cross] = JUMPED
    return picture


def _cell(picture: np.ndarray, square: int, size: int) -> np.ndarray:
    row, file = square_row(square), square_file(square)
    return picture[row * size:(row + 1) * size, file * size:(file + 1) * size]
