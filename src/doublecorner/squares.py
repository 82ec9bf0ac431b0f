"""Square numbering: the 32 playing squares, 1-32, and their a1-h8 names.

With White at the bottom, 1 = b8, 4 = h8, 5 = a7, 29 = a1, 32 = g1. Black
starts on 1-12, White on 21-32.
"""

from __future__ import annotations

from doublecorner.errors import InvalidSquareError, quoted
from doublecorner.kernel.bits import LANDING, NEIGHBOUR, square_row_file

Square = int
SQUARES: tuple[Square, ...] = tuple(range(1, 33))
FILE_NAMES = "abcdefgh"


def check_square(square: object) -> Square:
    """``square`` if it is an int in 1..32, else raise :class:`InvalidSquareError`."""
    if isinstance(square, bool) or not isinstance(square, int) or not 1 <= square <= 32:
        raise InvalidSquareError(f"invalid square {quoted(square)}: squares are numbered 1-32")
    return square


def square_row(square: Square) -> int:
    """Row from Black's side (0 holds squares 1-4, 7 holds 29-32)."""
    return (check_square(square) - 1) >> 2


def square_file(square: Square) -> int:
    """File index, 0 = a ... 7 = h."""
    return square_row_file(check_square(square) - 1)[1]


def square_name(square: Square) -> str:
    """The a1-h8 name of a square.

    >>> square_name(1), square_name(29), square_name(32)
    ('b8', 'a1', 'g1')
    """
    row, file = square_row_file(check_square(square) - 1)
    return f"{FILE_NAMES[file]}{8 - row}"


def parse_square(name: str) -> Square:
    """The square named ``name``: a number ``1``-``32`` or a dark square ``a1``-``h8``.

    >>> parse_square("a1"), parse_square("h8"), parse_square("17")
    (29, 4, 17)

    Notation is ASCII: other scripts' digits (Arabic-Indic, fullwidth, superscript
``"²"``) name no square.

    :raises InvalidSquareError: ``name`` names no dark square.
    """
    if not isinstance(name, str):
        raise InvalidSquareError(f"invalid square {quoted(name)}: expected text such as '17'")
    text = name.strip().lower()
    if text.isascii() and text.isdigit():
        if len(text.lstrip("0")) > 2 or not 1 <= int(text) <= 32:
            raise InvalidSquareError(f"invalid square {quoted(name)}: squares are numbered 1-32")
        return int(text)
    if len(text) == 2 and text[0] in FILE_NAMES and text[1] in "12345678":
        row, file = 8 - int(text[1]), FILE_NAMES.index(text[0])
        if (row + file) % 2 == 1:
            return row * 4 + file // 2 + 1
        raise InvalidSquareError(
            f"invalid square {quoted(name)}: it is a light square, not played on")
    raise InvalidSquareError(
        f"invalid square {quoted(name)}: expected 1-32 or a dark square a1-h8")


def _build_geometry() -> tuple[frozenset[tuple[int, int]], dict[tuple[int, int], int]]:
    steps = set()
    jumped_square = {}
    for index in range(32):
        for direction in range(4):
            neighbour = int(NEIGHBOUR[direction * 32 + index])
            landing = int(LANDING[direction * 32 + index])
            if neighbour >= 0:
                steps.add((index + 1, neighbour + 1))
            if landing >= 0:
                jumped_square[(index + 1, landing + 1)] = neighbour + 1
    return frozenset(steps), jumped_square


# Pairs of diagonally adjacent squares, and for each pair of squares a jump
# apart, the square jumped over.
ADJACENT_PAIRS, JUMPED_SQUARE = _build_geometry()
