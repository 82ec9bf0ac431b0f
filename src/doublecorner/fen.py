"""FEN for English draughts, as PDN writes it: ``B:W21-32:B1-12``.

The first field is the side to move; then one field per side, a letter and a
comma list of squares, ``K`` marking kings. Ranges (``21-32``, also ``K1-3``),
a trailing ``.``, a ``[FEN "..."]`` wrapper and a side with no pieces are read;
A side has 12 pieces at most, and squares are written in ASCII digits.
:func:`format_fen` writes one canonical form: White's pieces then Black's, each
in square order, no ranges.
"""

from __future__ import annotations

import re

from doublecorner.errors import InvalidFenError, quoted
from doublecorner.kernel.bits import BLACK_CROWN_ROW, WHITE_CROWN_ROW

STARTING_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"

_WRAPPER = re.compile(r'\[\s*FEN\s+"(.*)"\s*\]', re.DOTALL)
# [0-9], not \d: notation is ASCII, and \d also matches other scripts' digits.
_PIECE_TOKEN = re.compile(r"(K?)([0-9]+)(?:-(K?)([0-9]+))?", re.IGNORECASE)
_SIDE_NAMES = {"B": "Black", "W": "White"}
MAX_PIECES_PER_SIDE = 12  # each side starts with 12 and never gains one


def parse_fen(text: str) -> tuple[int, int, int, int]:
    """Read a FEN into ``(black, white, kings, turn)`` bitboards (turn 0 = Black).

    >>> parse_fen("W:WK15,20:BK28,12") == (1 << 27 | 1 << 11, 1 << 14 | 1 << 19,
    ...                                    1 << 14 | 1 << 27, 1)
    True

    :raises InvalidFenError: naming what is wrong with the text.
    """
    if not isinstance(text, str):
        raise InvalidFenError(f"invalid FEN {quoted(text)}: expected a string")
    body = text.strip()
    wrapped = _WRAPPER.fullmatch(body)
    if wrapped:
        body = wrapped.group(1).strip()
    if body.endswith("."):
        body = body[:-1].rstrip()
    if not body:
        raise InvalidFenError(f"invalid FEN {quoted(text)}: it is empty")
    fields = [field.strip() for field in body.split(":")]
    turn_field = fields[0].upper()
    if turn_field not in _SIDE_NAMES:
        raise InvalidFenError(
            f"invalid FEN {quoted(text)}: the side to move is missing "
            f"(the FEN must start with 'B:' or 'W:', not {quoted(fields[0])})")
    squares: dict[str, dict[int, bool]] = {}
    for field in fields[1:]:
        side = field[:1].upper()
        if side not in _SIDE_NAMES:
            raise InvalidFenError(
                f"invalid FEN {quoted(text)}: field {quoted(field)} should start with 'W' or 'B'")
        if side in squares:
            raise InvalidFenError(
                f"invalid FEN {quoted(text)}: {_SIDE_NAMES[side]}'s pieces are listed twice")
        squares[side] = _parse_piece_list(text, side, field[1:])
    both = set(squares.get("B", {})) & set(squares.get("W", {}))
    if both:
        raise InvalidFenError(
            f"invalid FEN {quoted(text)}: square {min(both)} is given to both sides")
    for side, pieces in squares.items():
        if len(pieces) > MAX_PIECES_PER_SIDE:
            raise InvalidFenError(
                f"invalid FEN {quoted(text)}: {_SIDE_NAMES[side]} has {len(pieces)} pieces; "
                f"a side has {MAX_PIECES_PER_SIDE} at most")
    black, black_kings = _bitboards(squares.get("B", {}))
    white, white_kings = _bitboards(squares.get("W", {}))
    _check_crowning_rows(text, black & ~black_kings, white & ~white_kings)
    return black, white, black_kings | white_kings, 0 if turn_field == "B" else 1


def _parse_piece_list(text: str, side: str, pieces: str) -> dict[int, bool]:
    """``{square: is_king}`` for one side's comma list."""
    result: dict[int, bool] = {}
    if not pieces.strip():
        return result
    for token in pieces.split(","):
        token = token.strip()
        match = _PIECE_TOKEN.fullmatch(token)
        if not match:
            raise InvalidFenError(
                f"invalid FEN {quoted(text)}: {quoted(token)} in {_SIDE_NAMES[side]}'s list "
                "is not a square, a king (K5) or a range (21-32)")
        king = bool(match.group(1) or match.group(3))
        for digits in filter(None, (match.group(2), match.group(4))):
            # Checked as text first: int() refuses numbers of over 4,300 digits.
            if len(digits.lstrip("0")) > 2 or not 1 <= int(digits) <= 32:
                shown = digits if len(digits) <= 12 else f"{digits[:12]}..."
                raise InvalidFenError(f"invalid FEN {quoted(text)}: square {shown} is outside 1-32")
        first = int(match.group(2))
        last = int(match.group(4)) if match.group(4) else first
        if last < first:
            raise InvalidFenError(
                f"invalid FEN {quoted(text)}: range {quoted(token)} runs backwards")
        for square in range(first, last + 1):
            if square in result:
                raise InvalidFenError(
                    f"invalid FEN {quoted(text)}: square {square} is listed twice for "
                    f"{_SIDE_NAMES[side]}")
            result[square] = king
    return result


def _bitboards(pieces: dict[int, bool]) -> tuple[int, int]:
    everything = kings = 0
    for square, king in pieces.items():
        everything |= 1 << (square - 1)
        if king:
            kings |= 1 << (square - 1)
    return everything, kings


def _check_crowning_rows(text: str, black_men: int, white_men: int) -> None:
    for men, crown_row, name in ((black_men, BLACK_CROWN_ROW, "Black"),
                                 (white_men, WHITE_CROWN_ROW, "White")):
        on_crown_row = men & crown_row
        if on_crown_row:
            square = (on_crown_row & -on_crown_row).bit_length()
            raise InvalidFenError(
                f"invalid FEN {quoted(text)}: a {name} man on {square} stands on its own crowning "
                "row (it would have been crowned: write K" + str(square) + ")")


def format_fen(black: int, white: int, kings: int, turn: int) -> str:
    """The canonical FEN of the bitboards.

    >>> format_fen(1 << 27 | 1 << 11, 1 << 14 | 1 << 19, 1 << 14 | 1 << 27, 1)
    'W:WK15,20:B12,K28'
    """
    return f"{'W' if turn else 'B'}:W{_piece_list(white, kings)}:B{_piece_list(black, kings)}"


def _piece_list(pieces: int, kings: int) -> str:
    return ",".join(
        f"{'K' if kings >> index & 1 else ''}{index + 1}"
        for index in range(32) if pieces >> index & 1)
