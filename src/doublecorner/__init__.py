"""doublecorner: English draughts (American checkers) for Python.

The rules exactly as the ACF/WCDF play them, PDN-style FEN and move notation,
and a numba-compiled move generator.

>>> import doublecorner
>>> board = doublecorner.Board()
>>> sorted(str(move) for move in board.legal_moves)
['10-14', '10-15', '11-15', '11-16', '12-16', '9-13', '9-14']
"""

from doublecorner.board import Board, LegalMoveView
from doublecorner.color import Color
from doublecorner.errors import (
    AmbiguousMoveError,
    DraughtsError,
    EngineError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidSquareError,
    JournalError,
    PdnError,
    TableError,
)
from doublecorner.fen import STARTING_FEN
from doublecorner.move import Move
from doublecorner.outcome import Outcome, Termination
from doublecorner.position import Piece, Position
from doublecorner.squares import SQUARES, Square, parse_square, square_name

__version__ = "0.1.0"

__all__ = [
    "SQUARES",
    "STARTING_FEN",
    "AmbiguousMoveError",
    "Board",
    "Color",
    "DraughtsError",
    "EngineError",
    "IllegalMoveError",
    "InvalidFenError",
    "InvalidMoveError",
    "InvalidPositionError",
    "InvalidSquareError",
    "JournalError",
    "LegalMoveView",
    "Move",
    "Outcome",
    "PdnError",
    "Piece",
    "Position",
    "Square",
    "TableError",
    "Termination",
    "parse_square",
    "square_name",
]
