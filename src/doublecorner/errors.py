"""One tree of exceptions, all under :class:`DraughtsError`.

Catch ``DraughtsError`` to handle anything the library raises for bad input;
each class also derives from the built-in exception a Python user would expect.
"""

from __future__ import annotations

QUOTED_CHARACTERS = 100  # longer inputs are cut in messages: a 15 MB FEN is no message


def quoted(value: object, *, limit: int = QUOTED_CHARACTERS) -> str:
    """``repr(value)`` for a message, cut after ``limit`` characters with the full length named.

    >>> quoted("11-15")
    "'11-15'"
    >>> quoted("1," * 150, limit=10)
    "'1,1,1,1,1... (300 characters)"
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    size = f" ({len(value)} characters)" if isinstance(value, str) else ""
    return f"{text[:limit]}...{size}"


class DraughtsError(Exception):
    """Base of every error doublecorner raises on purpose."""


class InvalidSquareError(DraughtsError, ValueError):
    """A square that is not one of 1-32 (or a dark square a1-h8)."""


class InvalidMoveError(DraughtsError, ValueError):
    """Move text that is not a move at all (bad syntax, squares outside 1-32)."""


class IllegalMoveError(DraughtsError, ValueError):
    """A well-formed move that is not legal in the position.

    For front ends that word it their own way (the message quotes the FEN):
    ``reason`` says why when the board can tell (``"a capture is compulsory"``,
    else ``""``) and ``legal_moves`` lists the moves that are legal, as text.
    """

    def __init__(self, message: str, *, reason: str = "",
                 legal_moves: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.reason = reason
        self.legal_moves = legal_moves


class AmbiguousMoveError(DraughtsError, ValueError):
    """A short move (``9x27``) that matches more than one legal capture route.

    ``routes`` lists those routes in full, as text.
    """

    def __init__(self, message: str, *, routes: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.routes = routes


class InvalidPositionError(DraughtsError, ValueError):
    """Bitboards that do not describe a position (overlapping sides, a man on its crowning row)."""


class InvalidFenError(DraughtsError, ValueError):
    """A FEN that cannot describe a position."""


class PdnError(DraughtsError, ValueError):
    """A PDN text that cannot be read; names the line and column."""

    def __init__(self, message: str, *, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column


class EngineError(DraughtsError, RuntimeError):
    """An engine failed or was asked something it cannot do."""


class TableError(DraughtsError, RuntimeError):
    """An endgame table is missing, damaged, or does not cover a position."""


class JournalError(DraughtsError, ValueError):
    """A match's results file that cannot be read back (damage, not a cut-off last line)."""


class GameDatabaseError(DraughtsError, RuntimeError):
    """A game database that cannot be opened or used (not SQLite, a newer schema, no access),
    or a game it does not hold."""


class FileError(DraughtsError, OSError):
    """A file that cannot be read or written as asked: missing, not a regular file (a
    folder, a device, a FIFO), larger than its format allows. The message names it.

    An :class:`OSError` too, so that code catching the operating system's refusals
    catches these; ``path`` is the file (``filename`` is left unset: it would change
    the message).
    """

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class BookError(DraughtsError, ValueError):
    """An opening book that cannot be read (missing, damaged, cut short, another format or a
    newer version), or cannot be written."""
