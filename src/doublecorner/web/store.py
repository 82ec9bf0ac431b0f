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
from doublecorner.web.record import AgreedEnding, Agreement, Clock, GameMode, GameRecord
from doublecorner.web.tokens import Seat

SCHEMA_VERSION = 2
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
# Each step brings a file of the version before it to the next one.
_MIGRATIONS = {
    2: """
ALTER TABLE games ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN takeback_request TEXT;
ALTER TABLE games ADD COLUMN clock TEXT;               -- a JSON object, or NULL
ALTER TABLE games ADD COLUMN creator TEXT NOT NULL DEFAULT '';  -- the client that made it
CREATE INDEX games_by_creator ON games (creator);
CREATE TABLE seats (
    game_id TEXT NOT NULL,
    seat TEXT NOT NULL,           -- black, white or owner
    token_hash TEXT NOT NULL,     -- SHA-256 of the token, hex
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX seats_by_token ON seats (token_hash);
CREATE TABLE invites (
    game_id TEXT PRIMARY KEY,
    seat TEXT NOT NULL,           -- the seat the link gives
    secret_hash TEXT NOT NULL
);
""",
}
_COLUMNS = ("id", "mode", "created", "updated", "black", "white", "start_fen", "human", "level",
            "seconds", "moves", "agreed_reason", "agreed_winner", "draw_offer", "tags", "result",
            "private", "takeback_request", "clock")
_INSERT = (f"INSERT INTO games ({', '.join(_COLUMNS)}, creator) "
           f"VALUES ({', '.join('?' * (len(_COLUMNS) + 1))})")
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
        for step in range(max(version, 1) + 1, SCHEMA_VERSION + 1):
            # executescript commits first; the step and its version go in one transaction.
            connection.executescript(f"BEGIN IMMEDIATE; {_MIGRATIONS[step]}; "
                                     f"PRAGMA user_version = {step}; COMMIT;")

    @property
    def journal_mode(self) -> str:
        """SQLite's journal mode for the file: ``wal`` unless the file system forbids it."""
        with self._lock:
            return str(self._connection.execute("PRAGMA journal_mode").fetchone()[0])

    def insert(self, records: Iterable[GameRecord], *,
               seats: Iterable[tuple[str, Seat, str]] = (),
               invites: Iterable[tuple[str, Seat, str]] = (), creator: str = "") -> None:
        """Add new games, all of them or none, with their ``(game id, seat, token hash)``
        seats and ``(game id, seat, secret hash)`` invites; ``creator`` names the client.

        :raises StoreError: a game with one of the ids exists already.
        """
        rows = [(*_row(record), creator) for record in records]
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                self._connection.executemany(_INSERT, rows)
                self._connection.executemany(
                    "INSERT INTO seats (game_id, seat, token_hash) VALUES (?, ?, ?)",
                    [(game_id, seat.value, digest) for game_id, seat, digest in seats])
                self._connection.executemany(
                    "INSERT INTO invites (game_id, seat, secret_hash) VALUES (?, ?, ?)",
                    [(game_id, seat.value, digest) for game_id, seat, digest in invites])
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
        """Remove a game with its seats and invite; ``False`` if there was none with this id."""
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._connection.execute("DELETE FROM games WHERE id = ?", (game_id,))
                for table in ("seats", "invites"):
                    self._connection.execute(f"DELETE FROM {table} WHERE game_id = ?",
                                             (game_id,))
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")
        return cursor.rowcount == 1

    def seats(self, game_id: str) -> dict[Seat, str]:
        """The token hash of each seat of the game (empty for a game without seats)."""
        with self._lock:
            rows = self._connection.execute(
                "SELECT seat, token_hash FROM seats WHERE game_id = ?", (game_id,)).fetchall()
        return {Seat(seat): digest for seat, digest in rows}

    def games_of(self, token_hashes: Iterable[str], limit: int) -> list[GameRecord]:
        """The ``limit`` newest games with a seat held by one of the tokens, newest first."""
        hashes = list(dict.fromkeys(token_hashes))
        if not hashes:
            return []
        marks = ", ".join("?" * len(hashes))
        with self._lock:
            rows = self._connection.execute(
                f"{_SELECT} WHERE id IN (SELECT game_id FROM seats WHERE token_hash IN "
                f"({marks})) ORDER BY created DESC, rowid DESC LIMIT ?",
                (*hashes, limit)).fetchall()
        return [_record(row) for row in rows]

    def count_by(self, creator: str) -> int:
        """How many of the stored games ``creator`` made."""
        with self._lock:
            return int(self._connection.execute(
                "SELECT count(*) FROM games WHERE creator = ?", (creator,)).fetchone()[0])

    def invite(self, game_id: str) -> tuple[Seat, str] | None:
        """The seat an open invite to the game gives, and its secret's hash; ``None``: none."""
        with self._lock:
            row = self._connection.execute(
                "SELECT seat, secret_hash FROM invites WHERE game_id = ?", (game_id,)).fetchone()
        return None if row is None else (Seat(row[0]), row[1])

    def claim_invite(self, game_id: str, secret_hash: str, token_hash: str) -> Seat | None:
        """Close the game's invite with this secret and give its seat to ``token_hash``.

        ``None`` (and nothing changes) when the invite is gone or has another secret;
        of two claims at once, one gets the seat.
        """
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                row = self._connection.execute(
                    "SELECT seat FROM invites WHERE game_id = ? AND secret_hash = ?",
                    (game_id, secret_hash)).fetchone()
                if row is not None:
                    self._connection.execute("DELETE FROM invites WHERE game_id = ?", (game_id,))
                    self._connection.execute(
                        "INSERT INTO seats (game_id, seat, token_hash) VALUES (?, ?, ?)",
                        (game_id, row[0], token_hash))
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")
        return None if row is None else Seat(row[0])

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
            record.result, int(record.private), _color_name(record.takeback_request),
            None if record.clock is None else json.dumps(record.clock.to_json()))


def _record(row: tuple[Any, ...]) -> GameRecord:
    (game_id, mode, created, updated, black, white, start_fen, human, level, seconds, moves,
     agreed_reason, agreed_winner, draw_offer, tags, result, private, takeback_request,
     clock) = row
    agreed = (None if agreed_reason is None
              else AgreedEnding(Agreement(agreed_reason), _color(agreed_winner)))
    return GameRecord(id=game_id, mode=GameMode(mode), created=created, updated=updated,
                      black=black, white=white, start_fen=start_fen, human=_color(human),
                      level=level, seconds=seconds, moves=tuple(moves.split()), agreed=agreed,
                      draw_offer=_color(draw_offer), tags=json.loads(tags), result=result,
                      private=bool(private), takeback_request=_color(takeback_request),
                      clock=None if clock is None else Clock.from_json(json.loads(clock)))
