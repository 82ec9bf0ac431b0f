"""The two sides. Black (Red in some books) moves first."""

from __future__ import annotations

import enum


class Color(enum.IntEnum):
    """A side: ``BLACK`` starts on squares 1-12 and moves first, ``WHITE`` on 21-32.

    >>> Color.BLACK.opponent
    <Color.WHITE: 1>
    >>> str(Color.WHITE)
    'White'
    """

    BLACK = 0
    WHITE = 1

    @property
    def opponent(self) -> Color:
        """The other side."""
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def letter(self) -> str:
        """``B`` or ``W``, as in FEN."""
        return "B" if self is Color.BLACK else "W"

    def __str__(self) -> str:
        return self.name.capitalize()
