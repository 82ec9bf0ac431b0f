"""The game database's SQLite file: its tables, and opening it in WAL mode.

Four tables. ``games`` holds each game once: its tags (the usual ones in
columns for searching, all of them as JSON), the moves of its main line, its
PDN where it has comments or variations, and the faults the reader found.
``moves_at`` is the explorer's table: for each position (the kernel's 64-bit
Zobrist key) and each move played there, how many games played it and how
they ended, so that a position is answered by reading its own rows whatever
the size of the database. ``positions`` lists the games that reached each
position, most recent first, for the explorer's list of games. ``sources``
records the files imported, so that a file is never imported twice and an
interrupted import goes on where it stopped.

SQLite integers are signed: a key is stored as its two's complement
(:func:`sql_key`).

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as folder:
...     connection = open_connection(pathlib.Path(folder) / "games.sqlite3")
...     print(connection.execute("PRAGMA journal_mode").fetchone()[0])
...     connection.close()
wal
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Mapping
from pathlib import Path

from doublecorner.errors import GameDatabaseError
from doublecorner.paths import user_data_dir

SCHEMA_VERSION = 1
APPLICATION_ID = 0x44434442  # 'DCDB': tells our files from other SQLite files
BUSY_TIMEOUT_MS = 5000  # another process holding the write lock (an import, a backup)
DB_NAME = "games-db.sqlite3"
NO_MOVE = ""  # the move of a game that ended in the position (moves_at.move)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sources (
    id INTEGER PRIMARY KEY,
    digest BLOB NOT NULL UNIQUE,      -- SHA-256 of the file's bytes
    name TEXT NOT NULL,               -- the path it was imported from (the first time)
    size INTEGER NOT NULL,
    games_read INTEGER NOT NULL,      -- games of the file dealt with so far
    is_complete INTEGER NOT NULL      -- 1 once the whole file is imported
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    digest BLOB NOT NULL UNIQUE,      -- identifies the game: see records.game_digest
    source INTEGER,                   -- sources.id
    number INTEGER,                   -- the game's place in that file, from 1
    event TEXT NOT NULL,
    site TEXT NOT NULL,
    date TEXT NOT NULL,               -- as tagged (2026.11.30, 2026.??.??)
    date_number INTEGER NOT NULL,     -- 20261130, 20260000; 0 unknown: for order and ranges
    round TEXT NOT NULL,
    black TEXT NOT NULL,
    white TEXT NOT NULL,
    result TEXT NOT NULL,             -- 1-0 (Black won), 0-1, 1/2-1/2 or *
    start_fen TEXT NOT NULL,
    plies INTEGER NOT NULL,           -- moves of the main line kept
    moves TEXT NOT NULL,              -- the main line, full paths separated by spaces
    tags TEXT NOT NULL,               -- every tag, a JSON object in the file's order
    pdn TEXT,                         -- the whole game as PDN where it has annotations
    faults TEXT                       -- the reader's faults, a JSON list; NULL if none
);
CREATE INDEX IF NOT EXISTS games_by_black ON games (black COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS games_by_white ON games (white COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS games_by_date ON games (date_number);
CREATE TABLE IF NOT EXISTS moves_at (
    key INTEGER NOT NULL,             -- the position's Zobrist key (signed)
    move TEXT NOT NULL,               -- full path played there; '' the game ended there
    games INTEGER NOT NULL,
    black_wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    white_wins INTEGER NOT NULL,
    PRIMARY KEY (key, move)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS positions (
    key INTEGER NOT NULL,
    date_number INTEGER NOT NULL,     -- the game's, so that the newest come first
    game INTEGER NOT NULL,            -- games.id
    PRIMARY KEY (key, date_number, game)
) WITHOUT ROWID;
"""


def default_db_path(environ: Mapping[str, str] | None = None, *,
                    platform: str = sys.platform, home: Path | None = None) -> Path:
    """Where the game database is unless ``--db`` says otherwise: the user's data folder.

    Beside the web app's own games (``games.sqlite3``), in its own file.

    >>> default_db_path({"XDG_DATA_HOME": "/data"}, platform="linux").as_posix()
    '/data/doublecorner/games-db.sqlite3'
    """
    return user_data_dir(environ, platform=platform, home=home) / DB_NAME


def sql_key(key: int) -> int:
    """The 64-bit key ``key`` as SQLite stores it: a signed integer.

    >>> sql_key(5), sql_key(2**64 - 1)
    (5, -1)
    """
    return key - (1 << 64) if key >= 1 << 63 else key


def open_connection(path: str | os.PathLike[str], *,
                    read_only: bool = False) -> sqlite3.Connection:
    """A connection to the game database at ``path``, created (with its folder) if missing.

    WAL mode, so that readers (the explorer, a web server) never wait for an
    import; ``synchronous=NORMAL``: the last batch of an import lost in a power
    cut is imported again by the next run. Statements run in autocommit mode;
    writers open their transactions themselves.

    ``read_only``: the file must exist and be a game database already, and
    the connection cannot write to it (SQLite's ``mode=ro``), whoever asks.

    :raises GameDatabaseError: the file cannot be opened or created, is not a
        game database, or was written by a newer version of doublecorner.
    """
    shown = repr(str(path))
    try:
        if read_only:
            connection = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True,
                                         isolation_level=None, check_same_thread=False)
        else:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as error:
        raise GameDatabaseError(f"cannot open the game database {shown}: {error}") from None
    try:
        _set_up(connection, shown, read_only=read_only)
    except sqlite3.Error as error:
        connection.close()
        raise GameDatabaseError(f"cannot use {shown} as a game database: {error}") from None
    except GameDatabaseError:
        connection.close()
        raise
    return connection


def _set_up(connection: sqlite3.Connection, shown: str, *, read_only: bool) -> None:
    connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    application = connection.execute("PRAGMA application_id").fetchone()[0]
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    if application != APPLICATION_ID and (application or tables):
        raise GameDatabaseError(f"{shown} is an SQLite file but not a doublecorner game "
                                "database")
    if application != APPLICATION_ID and read_only:  # an empty file: nothing to read
        raise GameDatabaseError(f"{shown} is not a doublecorner game database (it is empty)")
    if version > SCHEMA_VERSION:
        raise GameDatabaseError(f"the game database {shown} is from a newer version of "
                                f"doublecorner (schema {version}, this one reads "
                                f"{SCHEMA_VERSION})")
    if read_only:
        return
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    if application != APPLICATION_ID:
        connection.executescript(f"BEGIN IMMEDIATE; {_SCHEMA}; "
                                 f"PRAGMA application_id = {APPLICATION_ID}; "
                                 f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
