"""Position: an immutable snapshot of the board and the side to move."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from doublecorner.color import Color
from doublecorner.diagram import board_diagram
from doublecorner.errors import InvalidPositionError
from doublecorner.fen import STARTING_FEN, format_fen, parse_fen
from doublecorner.kernel import zobrist_key
from doublecorner.kernel.bits import BLACK_CROWN_ROW, FULL, WHITE_CROWN_ROW
from doublecorner.squares import Square, check_square


class Piece(NamedTuple):
    """A piece: its colour and whether it is a king (a crowned man)."""

    color: Color
    is_king: bool

    def symbol(self) -> str:
        """``b``/``w`` for men, ``B``/``W`` for kings."""
        letter = self.color.letter
        return letter if self.is_king else letter.lower()


def piece_on(black: int, white: int, kings: int, square: Square) -> Piece | None:
    """The piece on ``square`` of these bitboards, or ``None``.

    :raises InvalidSquareError: ``square`` is not in 1-32.
    """
    bit = 1 << (check_square(square) - 1)
    if black & bit:
        return Piece(Color.BLACK, bool(kings & bit))
    if white & bit:
        return Piece(Color.WHITE, bool(kings & bit))
    return None


@dataclass(frozen=True, slots=True)
class Position:
    """The pieces and the side to move, as bitboards (bit ``s - 1`` is square ``s``).

    Hashable and cheap to copy; the engine and tables work on these. A
    :class:`~doublecorner.board.Board` adds the move history.

    >>> position = Position.from_fen("W:WK15,20:BK28,12")
    >>> position.turn, position.piece_at(15)
    (<Color.WHITE: 1>, Piece(color=<Color.WHITE: 1>, is_king=True))
    >>> position.fen()
    'W:WK15,20:B12,K28'
    """

    black: int
    white: int
    kings: int
    turn: Color

    def __post_init__(self) -> None:
        for name in ("black", "white", "kings"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value & ~FULL:
                raise InvalidPositionError(f"{name}={value!r} is not a 32-bit bitboard")
        if self.black & self.white:
            raise InvalidPositionError("a square holds both a Black and a White piece")
        if self.kings & ~(self.black | self.white):
            raise InvalidPositionError("a king is marked on an empty square")
        if (self.black & ~self.kings & BLACK_CROWN_ROW) or (
                self.white & ~self.kings & WHITE_CROWN_ROW):
            raise InvalidPositionError("a man stands on its own crowning row")
        if not isinstance(self.turn, Color):
            object.__setattr__(self, "turn", Color(self.turn))

    @classmethod
    def from_fen(cls, fen: str) -> Position:
        """The position a FEN describes.

        :raises InvalidFenError: the text is not a valid FEN.
        """
        black, white, kings, turn = parse_fen(fen)
        return cls(black, white, kings, Color(turn))

    @classmethod
    def start(cls) -> Position:
        """The starting position, Black to move."""
        return cls.from_fen(STARTING_FEN)

    def fen(self) -> str:
        """The canonical FEN."""
        return format_fen(self.black, self.white, self.kings, self.turn)

    def zobrist_key(self) -> int:
        """A 64-bit Zobrist hash of the pieces and the side to move."""
        return int(zobrist_key(self.black, self.white, self.kings, int(self.turn))) & (2**64 - 1)

    def piece_at(self, square: Square) -> Piece | None:
        """The piece on ``square`` (1-32), or ``None``.

        :raises InvalidSquareError: ``square`` is not in 1-32.
        """
        return piece_on(self.black, self.white, self.kings, square)

    def __str__(self) -> str:
        return board_diagram(self.black, self.white, self.kings)
