"""Moves: immutable values that hold the path of squares a piece travels."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from typing import Any, NoReturn

from doublecorner.errors import InvalidMoveError, InvalidSquareError, quoted
from doublecorner.kernel.encoding import decode_path, encode_path
from doublecorner.squares import ADJACENT_PAIRS, JUMPED_SQUARE, Square, parse_square

# One square in move text: a number or an a1-h8 name. [0-9], not \d: notation
# is ASCII, and \d also matches other scripts' digits.
SQUARE_TEXT = r"(?:[0-9]{1,2}|[a-hA-H][1-8])"
_STEP_TEXT = re.compile(rf"{SQUARE_TEXT}-{SQUARE_TEXT}")
_JUMP_TEXT = re.compile(rf"{SQUARE_TEXT}(?:[xX]{SQUARE_TEXT})+")


class Move:
    """A move: the squares a piece visits, origin first.

    A step has two adjacent squares; a capture lists every landing square of
    the jump, so two routes that take the same pieces to the same square are
    two different moves. A ``Move`` knows nothing of a board: whether it is
    legal is the board's question (:meth:`Board.parse_move` also resolves the
    short form ``9x27``).

    >>> move = Move(9, 18, 27)
    >>> str(move), move.captures, move.is_capture
    ('9x18x27', (14, 23), True)
    >>> Move.parse("11-15"), Move.parse("c3-d4")
    (Move(11, 15), Move(22, 18))
    """

    __slots__ = ("_key", "path")
    path: tuple[Square, ...]
    _key: int  # the kernel's name for this route, which boards look moves up by

    def __init__(self, *path: Square) -> None:
        _check_path(path)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "_key", encode_path(path))

    @classmethod
    def _from_kernel_key(cls, key: int) -> Move:
        """Build the move a kernel key names, skipping the checks."""
        move = object.__new__(cls)
        object.__setattr__(move, "path", decode_path(key))
        object.__setattr__(move, "_key", key)
        return move

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``11-15`` or ``9x18x27`` (syntax and geometry only, no board).

        Squares may also be named a1-h8 (``c3-d4``, ``e3xc5xa7``), all of them
        one way or all the other.

        :raises InvalidMoveError: the text is not a step written with ``-`` or a
            chain of jumps written with ``x``, or names a light square.
        """
        stripped = text.strip() if isinstance(text, str) else text
        if not isinstance(stripped, str):
            raise InvalidMoveError(f"invalid move {quoted(text)}: expected text such as '11-15'")
        if _STEP_TEXT.fullmatch(stripped):
            squares = read_squares(text, stripped.split("-"))
            if squares not in ADJACENT_PAIRS:
                raise InvalidMoveError(
                    f"invalid move {quoted(text)}: '-' joins two adjacent squares")
        elif _JUMP_TEXT.fullmatch(stripped):
            squares = read_squares(text, re.split("[xX]", stripped))
            if any(hop not in JUMPED_SQUARE for hop in pairwise(squares)):
                raise InvalidMoveError(
                    f"invalid move {quoted(text)}: each 'x' must join squares one jump apart "
                    "(use Board.parse_move for the short form)")
        else:
            raise InvalidMoveError(f"invalid move {quoted(text)}: expected a step such as '11-15' "
                                   "or a capture such as '9x18x27'")
        return cls(*squares)

    @property
    def from_square(self) -> Square:
        """Where the piece starts."""
        return self.path[0]

    @property
    def to_square(self) -> Square:
        """Where the piece ends."""
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        """Whether the move jumps (a step is the only move between adjacent squares)."""
        return len(self.path) > 2 or (self.path[0], self.path[1]) not in ADJACENT_PAIRS

    @property
    def captures(self) -> tuple[Square, ...]:
        """The squares jumped over, in order (empty for a step)."""
        if not self.is_capture:
            return ()
        return tuple(JUMPED_SQUARE[hop] for hop in pairwise(self.path))

    def __str__(self) -> str:
        return ("x" if self.is_capture else "-").join(map(str, self.path))

    def __repr__(self) -> str:
        return f"Move({', '.join(map(str, self.path))})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self.path == other.path
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.path)

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError("Move is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError("Move is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Move, self.path)


def _check_path(path: tuple[object, ...]) -> None:
    if len(path) < 2:
        raise InvalidMoveError(f"invalid move {quoted(path)}: a move visits at least two squares")
    for square in path:
        if isinstance(square, bool) or not isinstance(square, int) or not 1 <= square <= 32:
            raise InvalidMoveError(f"invalid move {quoted(path)}: square {square!r} is not in 1-32")
    hops = list(pairwise(path))
    if len(path) == 2 and hops[0] in ADJACENT_PAIRS:
        return
    for hop in hops:
        if hop not in JUMPED_SQUARE:
            raise InvalidMoveError(
                f"invalid move {quoted(path)}: {hop[0]} to {hop[1]} is neither a step nor a jump")


def read_squares(text: str, names: Sequence[str]) -> tuple[Square, ...]:
    """The squares that ``names``, the parts of the move ``text``, stand for.

    Each is a number 1-32 or a dark square a1-h8; one move mixing the two is
    refused, since ``11-d4`` is more likely a slip than meant.

    >>> read_squares("e3xc5", ["e3", "c5"])
    (23, 14)

    :raises InvalidMoveError: a name is out of range, a light square, or the
        notations are mixed; the message quotes ``text``.
    """
    if len({name.isdigit() for name in names}) > 1:
        raise InvalidMoveError(f"invalid move {quoted(text)}: give every square as a number "
                               "1-32 or every square as a1-h8, not both")
    squares = []
    for name in names:
        try:
            squares.append(parse_square(name))
        except InvalidSquareError:
            why = ("is a light square, not played on" if name[0].isalpha()
                   else "is not in 1-32")
            raise InvalidMoveError(
                f"invalid move {quoted(text)}: square {int(name) if name.isdigit() else name} "
                f"{why}") from None
    return tuple(squares)
