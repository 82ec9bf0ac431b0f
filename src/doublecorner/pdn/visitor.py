"""Visitors: what the PDN reader and :meth:`Game.accept` call as they walk a game.

The reader never builds anything itself: it hands each tag, move, comment,
NAG, variation and result to a visitor, in the order they appear. The default
visitor builds a :class:`~doublecorner.pdn.game.Game`; others can count, filter
or write without building a tree, and return :data:`SKIP` from
:meth:`Visitor.begin_game`, :meth:`Visitor.end_headers` or
:meth:`Visitor.begin_variation` to have the reader pass over the rest of the
game or the variation without replaying its moves.

>>> import io
>>> from doublecorner.pdn import read_game
>>> text = '[Event "Demo"]\\n[Black "Tinsley"]\\n\\n1. 11-15 23-19 *\\n'
>>> read_game(io.StringIO(text), visitor=HeadersBuilder())
{'Event': 'Demo', 'Black': 'Tinsley'}
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from typing import Generic, TypeVar

from doublecorner.board import Board
from doublecorner.errors import PdnError
from doublecorner.move import Move

ResultT = TypeVar("ResultT")


class Skip(enum.Enum):
    """The type of :data:`SKIP`."""

    SKIP = "skip"


SKIP = Skip.SKIP
"""Returned by a visitor to pass over the rest of a game or a variation."""


class Visitor(ABC, Generic[ResultT]):
    """The calls a reader or a game tree makes while it walks one game.

    Every method but :meth:`result` does nothing by default, so a visitor
    overrides only what it needs. A move comes with the board *before* it is
    made; that board belongs to the caller and must not be changed. A
    variation is an alternative to the move visited just before
    :meth:`begin_variation`; comments and NAGs belong to the move visited last
    (a comment before the first move of a variation is its starting comment).
    """

    def begin_game(self) -> Skip | None:
        """A game starts; return :data:`SKIP` to pass over all of it."""
        return None

    def visit_header(self, name: str, value: str) -> None:
        """A tag pair such as ``[Event "..."]``, in the order of the file."""

    def end_headers(self) -> Skip | None:
        """The tags are done; return :data:`SKIP` to pass over the moves."""
        return None

    def visit_move(self, board: Board, move: Move) -> None:
        """A legal move, with the board before it."""

    def visit_comment(self, comment: str) -> None:
        """A ``{...}`` or ``;`` comment, its whitespace collapsed to single spaces."""

    def visit_nag(self, nag: int) -> None:
        """A ``$n`` NAG or a move mark such as ``!?`` (as its NAG) for the last move."""

    def begin_variation(self) -> Skip | None:
        """A variation starts; return :data:`SKIP` to pass over it (no :meth:`end_variation`)."""
        return None

    def end_variation(self) -> None:
        """The current variation ends."""

    def visit_result(self, result: str) -> None:
        """The game's terminator: ``1-0`` (Black won), ``0-1``, ``1/2-1/2`` or ``*``."""

    def end_game(self) -> None:
        """The game is done."""

    def handle_error(self, error: PdnError) -> None:
        """A problem in the text; the default raises it, a lenient visitor records it.

        :raises PdnError: unless overridden.
        """
        raise error

    @abstractmethod
    def result(self) -> ResultT:
        """What the visit produced (for the reader: what ``read_game`` returns)."""


class HeadersBuilder(Visitor[dict[str, str]]):
    """Collects the tags of a game and skips its moves (much faster than a full read)."""

    def __init__(self) -> None:
        self.headers: dict[str, str] = {}

    def begin_game(self) -> None:
        self.headers = {}

    def visit_header(self, name: str, value: str) -> None:
        self.headers[name] = value

    def end_headers(self) -> Skip:
        return SKIP

    def handle_error(self, error: PdnError) -> None:
        """Ignore problems: only the tags are wanted."""

    def result(self) -> dict[str, str]:
        return self.headers
