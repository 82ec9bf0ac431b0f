"""The game database as one object: an SQLite file and what can be asked of it."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType

from doublecorner.board import Board
from doublecorner.db.explorer import DEFAULT_TOP_GAMES, Exploration, explore
from doublecorner.db.importer import ImportSummary, ProgressCallback, import_files
from doublecorner.db.records import GameSummary
from doublecorner.db.schema import open_connection
from doublecorner.db.search import DEFAULT_LIMIT, GameQuery, StoredGame, search_games, stored_game
from doublecorner.errors import GameDatabaseError
from doublecorner.files import replacing_problem, shown_path
from doublecorner.position import Position


class GameDatabase:
    """Games in an SQLite file (created if missing), with a position index.

    Use it in a ``with`` block, or call :meth:`close`. One import at a time
    writes to a file; any number of readers may explore it meanwhile.

    >>> import pathlib, tempfile
    >>> from doublecorner import Board
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     games = pathlib.Path(folder) / "games.pdn"
    ...     _ = games.write_text("1. 11-15 23-19 1-0\\n\\n1. 11-15 22-18 0-1\\n")
    ...     with GameDatabase(pathlib.Path(folder) / "games.sqlite3") as database:
    ...         summary = database.import_files([games])
    ...         board = Board()
    ...         _ = board.push_str("11-15")
    ...         found = database.explore(board)
    >>> summary.imported, found.games, [(move.move, move.games) for move in found.moves]
    (2, 2, [('22-18', 1), ('23-19', 1)])

    With ``read_only``, the file must be a game database already and nothing
    is ever written to it: an import raises :class:`GameDatabaseError`.

    :raises GameDatabaseError: the file cannot be opened, is no regular file
        (a device, a FIFO), is not a game database, or was written by a newer
        version of doublecorner.
    """

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        self.path = Path(path)
        problem = replacing_problem(self.path)  # SQLite would say "disk I/O error"
        if problem is not None:
            raise GameDatabaseError(f"cannot open the game database {shown_path(path)}: "
                                    f"{problem}")
        self._connection = open_connection(self.path, read_only=read_only)

    def close(self) -> None:
        """Close the file (what was imported is kept)."""
        self._connection.close()

    def __enter__(self) -> GameDatabase:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def import_files(self, paths: Iterable[str | os.PathLike[str]], *,
                     progress: ProgressCallback | None = None) -> ImportSummary:
        """Import PDN files; see :mod:`doublecorner.db.importer`.

        :raises GameDatabaseError: a file cannot be read or is no PDN, or the
            database cannot be written.
        """
        return import_files(self._connection, paths, progress=progress)

    def explore(self, position: Position | Board, *,
                top: int = DEFAULT_TOP_GAMES) -> Exploration:
        """The games that reached ``position`` by any order of moves, and the moves played there.

        :raises GameDatabaseError: the database cannot be read.
        """
        try:
            return explore(self._connection, position, top=top)
        except sqlite3.Error as error:
            raise self._unreadable(error) from None

    def search(self, query: GameQuery, *, limit: int = DEFAULT_LIMIT) -> list[GameSummary]:
        """The games matching ``query``, newest first.

        :raises ValueError: a bad date or result in the query.
        :raises GameDatabaseError: the database cannot be read.
        """
        try:
            return search_games(self._connection, query, limit=limit)
        except sqlite3.Error as error:
            raise self._unreadable(error) from None

    def game(self, game_id: int) -> StoredGame:
        """The game with this id, as PDN.

        :raises GameDatabaseError: there is none, or the database cannot be read.
        """
        try:
            return stored_game(self._connection, game_id)
        except sqlite3.Error as error:
            raise self._unreadable(error) from None

    def start_positions(self) -> dict[str, int]:
        """The positions the games start from (FEN), each with its number of games.

        :raises GameDatabaseError: the database cannot be read.
        """
        try:
            rows = self._connection.execute(
                "SELECT start_fen, count(*) FROM games GROUP BY start_fen").fetchall()
        except sqlite3.Error as error:
            raise self._unreadable(error) from None
        return {str(fen): int(count) for fen, count in rows}

    def count_games(self) -> int:
        """How many games the database holds."""
        return int(self._connection.execute("SELECT count(*) FROM games").fetchone()[0])

    def _unreadable(self, error: sqlite3.Error) -> GameDatabaseError:
        return GameDatabaseError(f"cannot read the game database {str(self.path)!r}: {error}")
