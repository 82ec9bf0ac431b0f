"""An opening book in memory: the entries of a position found by binary search, and a choice.

>>> import random
>>> from doublecorner.book.format import ENTRY, NO_SCORE
>>> from doublecorner.book.move_code import move_code
>>> from doublecorner.move import Move
>>> start = Position.start()
>>> entries = np.array([(start.zobrist_key(), move_code(Move(11, 15)), 30, NO_SCORE, 10, 10, 2),
...                     (start.zobrist_key(), move_code(Move(9, 14)), 10, NO_SCORE, 2, 6, 6)],
...                    ENTRY)
>>> book = Book(entries, {})
>>> [(str(entry.move), entry.weight, entry.games) for entry in book.entries(start)]
[('11-15', 30, 22), ('9-14', 10, 14)]
>>> str(book.choose(start, random.Random(1)).move)
'11-15'
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from doublecorner.book.format import ENTRY, NO_SCORE, read_book, sort_entries, write_book
from doublecorner.book.move_code import move_from_code
from doublecorner.errors import DraughtsError
from doublecorner.kernel import generate_moves
from doublecorner.move import Move
from doublecorner.position import Position


class HasPosition(Protocol):
    """What holds a position, such as a :class:`~doublecorner.board.Board`."""

    def position(self) -> Position:
        """The position it stands at."""
        ...


@dataclass(frozen=True, slots=True)
class BookEntry:
    """A move the book holds for a position: its weight, the engine's score, and its games.

    ``wins``, ``draws`` and ``losses`` count the games that played the move,
    from the side of the player who played it.
    """

    move: Move
    weight: int
    score: int | None
    """The engine's score of the move for the side playing it (hundredths of a man), or None."""
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        """The games with a result that played the move."""
        return self.wins + self.draws + self.losses


class Book:
    """An opening book: for positions (by their 64-bit key), the moves to play and their weights.

    Make one with :meth:`open` (a book file) or
    :func:`~doublecorner.book.build_book` (from a game database), or from
    ``entries`` (a :data:`~doublecorner.book.format.ENTRY` array, any order).
    A book is read-only and may be shared between threads and engines.

    :raises ValueError: two entries for the same move of the same position.
    """

    def __init__(self, entries: np.ndarray, provenance: dict[str, Any], *,
                 path: Path | None = None) -> None:
        self._entries = sort_entries(np.asarray(entries, ENTRY))
        self._keys = self._entries["key"]
        self.provenance = provenance
        """Where the book came from (JSON): what it was built from, with which options."""
        self.path = path
        """The file it was read from (None: made in memory)."""

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Book:
        """The book in the file at ``path``.

        :raises BookError: the file cannot be read, is not a book, is from a
            newer version, is cut short or damaged (the message names the file).
        """
        contents = read_book(path)
        return cls(contents.entries, contents.provenance, path=Path(path))

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the book to ``path`` (replacing what is there).

        :raises BookError: the file cannot be written.
        """
        write_book(path, self._entries, self.provenance)

    def __len__(self) -> int:
        """The number of entries (moves over all positions)."""
        return len(self._entries)

    @property
    def positions(self) -> int:
        """The number of positions the book holds moves for."""
        return len(np.unique(self._keys))

    @property
    def array(self) -> np.ndarray:
        """The entries as the file stores them (a read-only structured array, sorted by key)."""
        view = self._entries.view()
        view.flags.writeable = False
        return view

    def __contains__(self, position: object) -> bool:
        if not isinstance(position, Position):
            position = getattr(position, "position", lambda: None)()
            if not isinstance(position, Position):
                return False
        return bool(self.entries(position))

    def rows(self, key: int) -> np.ndarray:
        """The raw entries stored under the position key ``key`` (unchecked moves)."""
        low, high = np.searchsorted(self._keys, np.uint64(key), side="left"), np.searchsorted(
            self._keys, np.uint64(key), side="right")
        return self._entries[low:high]

    def entries(self, position: Position | HasPosition) -> tuple[BookEntry, ...]:
        """The book's moves in ``position`` that are legal there, heaviest first.

        An entry whose move is not legal in the position (two positions under
        one key, 2**-64 odds) is left out.
        """
        if not isinstance(position, Position):
            position = position.position()
        rows = self.rows(position.zobrist_key())
        if not len(rows):
            return ()
        legal = {int(key) for key in generate_moves(position.black, position.white,
                                                    position.kings, int(position.turn))[:, 3]}
        found = []
        for row in rows:
            try:
                move = move_from_code(int(row["move"]))
            except DraughtsError:
                continue
            if move._key not in legal:
                continue
            score = int(row["score"])
            found.append(BookEntry(move, int(row["weight"]), None if score == NO_SCORE else score,
                                   int(row["wins"]), int(row["draws"]), int(row["losses"])))
        found.sort(key=lambda entry: (-entry.weight, entry.move.path))
        return tuple(found)

    def choose(self, position: Position | HasPosition,
               rng: random.Random | None = None) -> BookEntry | None:
        """A move to play in ``position``, drawn at random in proportion to the weights.

        Only legal moves of weight above 0 are drawn; ``None`` when there is
        none (the position is out of book). ``rng`` makes the draw
        repeatable (``random.Random(seed)``); without it, a fresh
        unseeded generator is used.
        """
        candidates = [entry for entry in self.entries(position) if entry.weight > 0]
        if not candidates:
            return None
        generator = rng if rng is not None else random.Random()
        return generator.choices(candidates, weights=[entry.weight for entry in candidates])[0]
