"""The games of the web app in SQLite: one row per game, every change committed at once.

The database runs in WAL mode with ``synchronous=FULL``: a change is on disk
when the call that made it returns, so a move the server has acknowledged
survives a crash or a power cut, and readers never wait for a writer. One
connection serves every thread, behind a lock: SQLite takes one writer at a
time anyway, and games are small.

>>> import tempfile, pathlib
>>> from doublecorner.web.record import GameMode, GameRecord
>>> with tempfile.TemporaryDirectory() as folder:
...     store = GameStore(pathlib.Path(folder) / "games.sqlite3")
...     store.insert([GameRecord(id="g_1", mode=GameMode.TWO_PLAYER, created="2026-11-30T12:00:00Z",
...                              updated="2026-11-30T12:00:00Z", black="human", white="human",
...                              start_fen="B:W21-32:B1-12", moves=("11-15",))])
...     store.get("g_1").moves
...     store.close()
('11-15',)
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from doublecorner.color import Color
from doublecorner.paths import user_data_dir
from doublecorner.web.record import AgreedEnding, Agreement, GameMode, GameRecord

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 5000  # another process (a second server, a backup) holding the write lock
DB_NAME = "games.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    mode TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    black TEXT NOT NULL,
    white TEXT NOT NULL,
    start_fen TEXT NOT NULL,
    human TEXT,
    level INTEGER,
    seconds REAL,
    moves TEXT NOT NULL,          -- full paths separated by spaces
    agreed_reason TEXT,
    agreed_winner TEXT,
    draw_offer TEXT,
    tags TEXT NOT NULL,           -- a JSON object
    result TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_created ON games (created);
"""
_COLUMNS = ("id", "mode", "created", "updated", "black", "white", "start_fen", "human", "level",
            "seconds", "moves", "agreed_reason", "agreed_winner", "draw_offer", "tags", "result")
_INSERT = f"INSERT INTO games ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
_UPDATE = (f"UPDATE games SET {', '.join(f'{name} = ?' for name in _COLUMNS[1:])} "
           "WHERE id = ?")
_SELECT = f"SELECT {', '.join(_COLUMNS)} FROM games"


class StoreError(Exception):
    """The database cannot be opened or used (not SQLite, from a newer version, no access)."""


def default_db_path(environ: Mapping[str, str] | None = None, *,
                    platform: str = sys.platform, home: Path | None = None) -> Path:
    """Where games are kept unless ``--db`` says otherwise: the user's data directory.

    ``$XDG_DATA_HOME/doublecorner/games.sqlite3`` (``~/.local/share`` when that
    is unset) on Linux and the BSDs; ``~/Library/Application Support`` on macOS;
    ``%LOCALAPPDATA%`` on Windows.

    >>> default_db_path({"XDG_DATA_HOME": "/data"}, platform="linux").as_posix()
    '/data/doublecorner/games.sqlite3'
    >>> default_db_path({}, platform="linux", home=Path("/home/ann")).as_posix()
    '/home/ann/.local/share/doublecorner/games.sqlite3'
    """
    return user_data_dir(environ, platform=platform, home=home) / DB_NAME


class GameStore:
    """Games in an SQLite file, created (with its folder) if missing.

    Every method commits before it returns. Safe to call from any thread.

    :raises StoreError: the file cannot be opened, is not a database of games,
        or was written by a newer version of doublecorner.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: each statement commits by itself unless a
            # transaction is opened explicitly (see insert).
            self._connection = sqlite3.connect(self.path, check_same_thread=False,
                                               isolation_level=None)
        except (OSError, sqlite3.Error) as error:
            raise StoreError(f"cannot open the games database {str(self.path)!r}: {error}"
                             ) from None
        try:
            self._set_up()
        except sqlite3.Error as error:
            self._connection.close()
            raise StoreError(f"cannot use {str(self.path)!r} as the games database: {error}"
                             ) from None
        except StoreError:
            self._connection.close()
            raise

    def _set_up(self) -> None:
        connection = self._connection
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(f"the games database {str(self.path)!r} is from a newer version "
                             f"of doublecorner (schema {version}, this one reads {SCHEMA_VERSION})")
        connection.execute("PRAGMA journal_mode = WAL")
        # FULL: in WAL mode NORMAL may lose the last commits in a power cut, and a
        # move the browser was told about must not be lost.
        connection.execute("PRAGMA synchronous = FULL")
        connection.executescript(_SCHEMA)
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @property
    def journal_mode(self) -> str:
        """SQLite's journal mode for the file: ``wal`` unless the file system forbids it."""
        with self._lock:
            return str(self._connection.execute("PRAGMA journal_mode").fetchone()[0])

    def insert(self, records: Iterable[GameRecord]) -> None:
        """Add new games, all of them or none.

        :raises StoreError: a game with one of the ids exists already.
        """
        rows = [_row(record) for record in records]
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                self._connection.executemany(_INSERT, rows)
            except sqlite3.IntegrityError as error:
                self._connection.execute("ROLLBACK")
                raise StoreError(f"cannot add the games: {error}") from None
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")

    def update(self, record: GameRecord) -> bool:
        """Replace the stored game with ``record``'s id; ``False`` if there is none."""
        row = _row(record)
        with self._lock:
            cursor = self._connection.execute(_UPDATE, (*row[1:], row[0]))
        return cursor.rowcount == 1

    def get(self, game_id: str) -> GameRecord | None:
        """The game with this id, or ``None``."""
        with self._lock:
            row = self._connection.execute(f"{_SELECT} WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else _record(row)

    def recent(self, limit: int) -> list[GameRecord]:
        """The ``limit`` games created last, newest first."""
        with self._lock:
            rows = self._connection.execute(
                f"{_SELECT} ORDER BY created DESC, rowid DESC LIMIT ?", (limit,)).fetchall()
        return [_record(row) for row in rows]

    def delete(self, game_id: str) -> bool:
        """Remove a game; ``False`` if there was none with this id."""
        with self._lock:
            cursor = self._connection.execute("DELETE FROM games WHERE id = ?", (game_id,))
        return cursor.rowcount == 1

    def count(self) -> int:
        """How many games the file holds."""
        with self._lock:
            return int(self._connection.execute("SELECT count(*) FROM games").fetchone()[0])

    def close(self) -> None:
        """Close the file (later calls fail)."""
        with self._lock:
            self._connection.close()


def _color_name(color: Color | None) -> str | None:
    return None if color is None else color.name.lower()


def _color(name: str | None) -> Color | None:
    return None if name is None else Color[name.upper()]


def _row(record: GameRecord) -> tuple[Any, ...]:
    agreed = record.agreed
    return (record.id, record.mode.value, record.created, record.updated, record.black,
            record.white, record.start_fen, _color_name(record.human), record.level,
            record.seconds, " ".join(record.moves),
            None if agreed is None else agreed.reason.value,
            None if agreed is None else _color_name(agreed.winner),
            _color_name(record.draw_offer), json.dumps(dict(record.tags), ensure_ascii=False),
            record.result)


def _record(row: tuple[Any, ...]) -> GameRecord:
    (game_id, mode, created, updated, black, white, start_fen, human, level, seconds, moves,
     agreed_reason, agreed_winner, draw_offer, tags, result) = row
    agreed = (None if agreed_reason is None
              else AgreedEnding(Agreement(agreed_reason), _color(agreed_winner)))
    return GameRecord(id=game_id, mode=GameMode(mode), created=created, updated=updated,
                      black=black, white=white, start_fen=start_fen, human=_color(human),
                      level=level, seconds=seconds, moves=tuple(moves.split()), agreed=agreed,
                      draw_offer=_color(draw_offer), tags=json.loads(tags), result=result)
