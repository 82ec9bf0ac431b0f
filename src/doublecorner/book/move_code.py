"""A move as the book stores it: its whole path of squares in one 64-bit word.

Bits 0-59 hold up to 12 squares, 5 bits each (the square minus 1), the
origin in the lowest bits; bits 60-63 hold the number of squares. The whole
path, not only the origin and the end: two capture routes from the same
square to the same square are two moves, and each has its own code.

>>> from doublecorner.move import Move
>>> code = move_code(Move(9, 18, 27))
>>> hex(code), move_from_code(code)
('0x3000000000006a28', Move(9, 18, 27))
"""

from __future__ import annotations

from doublecorner.errors import InvalidMoveError
from doublecorner.move import Move

MAX_SQUARES = 12  # eleven jumps: more than a game of English draughts has ever needed
SQUARE_BITS = 5
COUNT_SHIFT = 60


def fits(move: Move) -> bool:
    """Whether the book can store ``move`` (a path of at most :data:`MAX_SQUARES` squares)."""
    return len(move.path) <= MAX_SQUARES


def move_code(move: Move) -> int:
    """The 64-bit code of ``move``.

    :raises ValueError: the path has more than :data:`MAX_SQUARES` squares.
    """
    if not fits(move):
        raise ValueError(f"the move {move} has more than {MAX_SQUARES} squares")
    code = len(move.path) << COUNT_SHIFT
    for place, square in enumerate(move.path):
        code |= (square - 1) << (SQUARE_BITS * place)
    return code


def move_from_code(code: int) -> Move:
    """The move a code names.

    :raises InvalidMoveError: the code is no move (a damaged entry).
    """
    count = code >> COUNT_SHIFT
    used = (15 << COUNT_SHIFT) | ((1 << (SQUARE_BITS * count)) - 1)
    if not 2 <= count <= MAX_SQUARES or code & ~used:
        raise InvalidMoveError(f"the book's move code {code:#x} names no move")
    path = tuple(((code >> (SQUARE_BITS * place)) & 31) + 1 for place in range(count))
    return Move(*path)
