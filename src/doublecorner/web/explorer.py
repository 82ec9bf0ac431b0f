"""The game database behind the page's explorer (``serve --games-db PATH``).

``GET /api/explore`` and ``GET /api/games-db/{id}`` read a game database
(:mod:`doublecorner.db`) that ``doublecorner db import`` made. The server
opens it read only (SQLite's ``mode=ro``): no request can change it, and an
import may go on beside the server (WAL). SQLite connections are not for two
threads at once, so each request borrows one of its own from a small pool,
and runs in a worker thread: requests read side by side, off the event loop.

>>> import pathlib, tempfile
>>> from doublecorner.db import GameDatabase
>>> with tempfile.TemporaryDirectory() as folder:
...     games = pathlib.Path(folder) / "games.pdn"
...     _ = games.write_text('[Black "Ann"]\\n1. 11-15 23-19 1-0\\n')
...     path = pathlib.Path(folder) / "games.sqlite3"
...     with GameDatabase(path) as database:
...         _ = database.import_files([games])
...     explorer = GamesExplorer(path)
...     found, game = explorer.explore("B:W21-32:B1-12", 5), explorer.game(1)
...     explorer.close()
>>> [(move.move, move.games) for move in found.moves], game.moves
([('11-15', 1)], ('11-15', '23-19'))
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from doublecorner.board import Board
from doublecorner.db import Exploration, StoredGame
from doublecorner.db.explorer import explore
from doublecorner.db.schema import open_connection
from doublecorner.db.search import stored_game
from doublecorner.errors import GameDatabaseError

MAX_IDLE_CONNECTIONS = 8  # kept open between requests; more may be open while busy


class ExplorerNotFoundError(LookupError):
    """No game database is loaded, or it holds no game with the id asked for."""


class ExplorerReadError(RuntimeError):
    """The game database cannot be read (a damaged or vanished file)."""


class GamesExplorer:
    """A game database opened read only, for any number of threads at once.

    The file is opened once here, so that a missing file or one that is no
    game database is said before the server starts; later connections open
    as requests need them and are kept for the next ones.

    :raises GameDatabaseError: the file is missing, is not a game database,
        or was written by a newer version of doublecorner.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._idle = [open_connection(self.path, read_only=True)]
        self._is_closed = False

    def explore(self, fen: str, top: int) -> Exploration:
        """The games that reached the position ``fen`` and the moves played there.

        :raises InvalidFenError: ``fen`` is not a valid FEN.
        :raises ExplorerReadError: the database cannot be read.
        """
        board = Board(fen)
        with self._connection() as connection:
            return explore(connection, board, top=top)

    def game(self, game_id: int) -> StoredGame:
        """The game with this id.

        :raises ExplorerNotFoundError: no game has this id.
        :raises ExplorerReadError: the database cannot be read.
        """
        with self._connection() as connection:
            try:
                return stored_game(connection, game_id)
            except GameDatabaseError:  # the one it raises: no such game
                raise ExplorerNotFoundError(f"no game has the id {game_id} in the game "
                                            "database") from None

    def close(self) -> None:
        """Close the connections (those still lent out close when they come back)."""
        with self._lock:
            self._is_closed = True
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            connection = self._idle.pop() if self._idle else None
        try:
            if connection is None:
                connection = open_connection(self.path, read_only=True)
            yield connection
        except (sqlite3.Error, GameDatabaseError) as error:
            # The path stays on the server's side: a client learns only what went wrong.
            detail = str(error).replace(repr(str(self.path)), "the file")
            raise ExplorerReadError(f"cannot read the game database: {detail}") from None
        finally:
            if connection is not None:
                self._give_back(connection)

    def _give_back(self, connection: sqlite3.Connection) -> None:
        with self._lock:
            if not self._is_closed and len(self._idle) < MAX_IDLE_CONNECTIONS:
                self._idle.append(connection)
                return
        connection.close()
