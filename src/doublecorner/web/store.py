"""The games, accounts and sessions of the web app in SQLite, every change committed at once.

The database runs in WAL mode with ``synchronous=FULL``: a change is on disk
when the call that made it returns, so a move the server has acknowledged
survives a crash or a power cut, and readers never wait for a writer. One
connection serves every thread, behind a lock: SQLite takes one writer at a
time anyway, and games are small. One interface holds games, seats, accounts and
sessions, so that another database could take SQLite's place without the routes
knowing. A rated game's end and its players' new ratings are written in one
transaction, and each game is rated at most once (its rows of the rating
history are keyed by the game): a crash loses neither, and a restart rates
nothing twice.

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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from doublecorner.color import Color
from doublecorner.paths import user_data_dir
from doublecorner.ratings import DEFAULT_DEVIATION, DEFAULT_RATING, DEFAULT_VOLATILITY, Rating
from doublecorner.web.account_record import DELETED_PLAYER, AccountRecord, SessionRecord
from doublecorner.web.record import (
    UNFINISHED,
    AgreedEnding,
    Agreement,
    Clock,
    GameMode,
    GameRatings,
    GameRecord,
    PlayerRating,
)
from doublecorner.web.tokens import Seat

SCHEMA_VERSION = 4
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
-- Tables of their own, made if missing (a file of any version gains them on opening, so
-- they need no migration): an imported game's notes, and the review of a game.
CREATE TABLE IF NOT EXISTS game_notes (
    game_id TEXT PRIMARY KEY,
    pdn TEXT NOT NULL             -- the game as imported: its comments, NAGs and variations
);
CREATE TABLE IF NOT EXISTS reviews (
    game_id TEXT PRIMARY KEY,
    moves_key TEXT NOT NULL,      -- SHA-256 of the start position and the moves reviewed
    review TEXT NOT NULL          -- a JSON object: the scores, judgements and annotated PDN
);
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
    3: f"""
ALTER TABLE seats ADD COLUMN account_id INTEGER;  -- the account that holds it, or NULL
CREATE INDEX seats_by_account ON seats (account_id);
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    username_key TEXT NOT NULL UNIQUE,  -- lower case: names are unique ignoring case
    username TEXT NOT NULL,             -- as typed
    password_hash TEXT NOT NULL,        -- Argon2id (PHC string); '' once deleted
    created TEXT NOT NULL,
    deleted TEXT,                       -- when it was deleted; the name stays taken
    rating REAL NOT NULL DEFAULT {DEFAULT_RATING},
    deviation REAL NOT NULL DEFAULT {DEFAULT_DEVIATION},
    volatility REAL NOT NULL DEFAULT {DEFAULT_VOLATILITY}
);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,                -- SHA-256 of the cookie's secret, hex
    account_id INTEGER NOT NULL,
    created REAL NOT NULL,              -- Unix time
    last_seen REAL NOT NULL,
    user_agent TEXT NOT NULL,
    address TEXT NOT NULL
);
CREATE INDEX sessions_by_account ON sessions (account_id);
""",
    4: """
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN ratings TEXT;         -- a JSON object: the players' ratings
ALTER TABLE games ADD COLUMN rematch_offer TEXT;   -- the side offering a rematch
ALTER TABLE games ADD COLUMN rematch TEXT;         -- the id of the rematch, once made
CREATE INDEX games_in_play ON games (result, updated);
CREATE TABLE rating_history (
    game_id TEXT NOT NULL,
    account_id INTEGER NOT NULL,
    played TEXT NOT NULL,               -- when the game ended
    opponent_id INTEGER NOT NULL,
    score REAL NOT NULL,                -- 1 a win, 0.5 a draw, 0 a loss
    rating_before REAL NOT NULL,
    deviation_before REAL NOT NULL,
    volatility_before REAL NOT NULL,
    rating REAL NOT NULL,               -- after the game
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    PRIMARY KEY (game_id, account_id)   -- a game rates each of its players once
);
CREATE INDEX rating_history_by_account ON rating_history (account_id, played);
""",
}
# The rating arithmetic of one game: the new ratings of Black's and White's players from
# their ratings before it (web.ratings_service makes it with doublecorner.ratings).
RateGame = Callable[[Rating, Rating], tuple[Rating, Rating]]
_COLUMNS = ("id", "mode", "created", "updated", "black", "white", "start_fen", "human", "level",
            "seconds", "moves", "agreed_reason", "agreed_winner", "draw_offer", "tags", "result",
            "private", "takeback_request", "clock", "rated", "ratings", "rematch_offer",
            "rematch")
_INSERT = (f"INSERT INTO games ({', '.join(_COLUMNS)}, creator) "
           f"VALUES ({', '.join('?' * (len(_COLUMNS) + 1))})")
_UPDATE = (f"UPDATE games SET {', '.join(f'{name} = ?' for name in _COLUMNS[1:])} "
           "WHERE id = ?")
_SELECT = f"SELECT {', '.join(_COLUMNS)} FROM games"
_ACCOUNT = ("SELECT id, username, created, password_hash, rating, deviation, volatility "
            "FROM accounts")
_SESSION_COLUMNS = "id, account_id, created, last_seen, user_agent, address"
_HISTORY_COLUMNS = ("game_id, played, opponent_id, score, rating_before, deviation_before, "
                    "volatility_before, rating, deviation, volatility")
# Games between two people that anyone may see: what profiles list and the watch list shows.
_PEOPLE = ("mode = 'friend' AND private = 0 AND "
           "(SELECT count(*) FROM seats WHERE seats.game_id = games.id) = 2")


class StoreError(Exception):
    """The database cannot be opened or used (not SQLite, from a newer version, no access)."""


class UsernameTakenError(StoreError):
    """An account with that username (ignoring case) exists, or existed."""


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One row of an account's rating history: a rated game, its end, the opponent, the
    score (1, 0.5, 0) and the rating before and after it."""

    game_id: str
    played: str
    opponent_id: int
    score: float
    before: Rating
    after: Rating


@dataclass(frozen=True, slots=True)
class Results:
    """An account's finished games between people: won, drawn, lost."""

    wins: int = 0
    draws: int = 0
    losses: int = 0


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
               invites: Iterable[tuple[str, Seat, str]] = (), creator: str = "",
               account: int | None = None, notes: Iterable[tuple[str, str]] = (),
               holders: Mapping[Seat, int | None] | None = None,
               replacing: GameRecord | None = None) -> None:
        """Add new games, all of them or none, with their ``(game id, seat, token hash)``
        seats (held by ``account`` too, if given, or by the account ``holders`` gives
        each seat), ``(game id, seat, secret hash)``
        invites and ``(game id, PDN)`` notes of imported games; ``creator`` names the client.

        With ``replacing``, that stored game is replaced by it in the same
        transaction (a game and its rematch, which it names).

        :raises StoreError: a game with one of the ids exists already, or ``replacing``'s
            game does not exist.
        """
        rows = [(*_row(record), creator) for record in records]
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                self._connection.executemany(_INSERT, rows)
                self._connection.executemany(
                    "INSERT INTO seats (game_id, seat, token_hash, account_id) "
                    "VALUES (?, ?, ?, ?)",
                    [(game_id, seat.value, digest,
                      account if holders is None else holders.get(seat))
                     for game_id, seat, digest in seats])
                self._connection.executemany(
                    "INSERT INTO invites (game_id, seat, secret_hash) VALUES (?, ?, ?)",
                    [(game_id, seat.value, digest) for game_id, seat, digest in invites])
                self._connection.executemany(
                    "INSERT INTO game_notes (game_id, pdn) VALUES (?, ?)", notes)
                if replacing is not None:
                    old = _row(replacing)
                    if self._connection.execute(_UPDATE, (*old[1:], old[0])).rowcount != 1:
                        raise sqlite3.IntegrityError(f"no game {replacing.id!r} to replace")
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

    def update_rated(self, record: GameRecord, rate: RateGame, *, black_score: float,
                     played: str) -> GameRecord:
        """Replace the stored game with ``record``, a rated game that has ended with
        ``black_score`` (1, 0.5, 0), and rate it, in one transaction: the players' new
        ratings (``rate`` of their ratings now), a row of each one's rating history
        (``played``: when it ended) and the game's ``ratings``; the record as stored.
        A game rated already, or whose seats are not held by two accounts, is only
        stored.

        :raises LookupError: there is no game with ``record``'s id.
        """
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                row = _row(record)
                if self._connection.execute(_UPDATE, (*row[1:], row[0])).rowcount != 1:
                    raise LookupError(f"no game {record.id!r}")
                rated = self._rate(record, rate, black_score, played)
                if rated is not None:
                    record = rated
                    assert record.ratings is not None  # _rate sets them
                    self._connection.execute("UPDATE games SET ratings = ? WHERE id = ?",
                                             (json.dumps(record.ratings.to_json()), record.id))
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")
        return record

    def _rate(self, record: GameRecord, rate: RateGame, black_score: float,
              played: str) -> GameRecord | None:
        """Rate the game inside the open transaction; ``None`` if it is not to be rated."""
        connection = self._connection
        if connection.execute("SELECT 1 FROM rating_history WHERE game_id = ?",
                              (record.id,)).fetchone() is not None:
            return None  # rated already: a game changes its players' ratings once
        holders = dict(connection.execute(
            "SELECT seat, account_id FROM seats WHERE game_id = ?", (record.id,)).fetchall())
        black, white = holders.get(Seat.BLACK.value), holders.get(Seat.WHITE.value)
        if black is None or white is None or black == white:
            return None
        before = []
        for account in (black, white):
            found = connection.execute(
                "SELECT rating, deviation, volatility FROM accounts WHERE id = ?",
                (account,)).fetchone()
            before.append(Rating(*found))
        after = rate(before[0], before[1])
        for account, opponent, old, new, score in (
                (black, white, before[0], after[0], black_score),
                (white, black, before[1], after[1], 1.0 - black_score)):
            connection.execute(
                "UPDATE accounts SET rating = ?, deviation = ?, volatility = ? WHERE id = ?",
                (new.rating, new.deviation, new.volatility, account))
            connection.execute(
                f"INSERT INTO rating_history (account_id, {_HISTORY_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (account, record.id, played, opponent, score, old.rating, old.deviation,
                 old.volatility, new.rating, new.deviation, new.volatility))
        return replace(record, ratings=GameRatings(PlayerRating(before[0], after[0]),
                                                   PlayerRating(before[1], after[1])))

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
        """Remove a game with its seats, invite, notes and review; ``False`` if there was
        none with this id."""
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._connection.execute("DELETE FROM games WHERE id = ?", (game_id,))
                for table in ("seats", "invites", "game_notes", "reviews"):
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

    def seat_holders(self, game_id: str) -> dict[Seat, int | None]:
        """The account that holds each seat of the game (``None``: a seat of its token only)."""
        with self._lock:
            rows = self._connection.execute(
                "SELECT seat, account_id FROM seats WHERE game_id = ?", (game_id,)).fetchall()
        return {Seat(seat): account for seat, account in rows}

    def games_of(self, token_hashes: Iterable[str], limit: int, *,
                 account: int | None = None) -> list[GameRecord]:
        """The ``limit`` newest games with a seat held by one of the tokens (or by
        ``account``), newest first."""
        hashes = list(dict.fromkeys(token_hashes))
        if not hashes and account is None:
            return []
        marks = ", ".join("?" * len(hashes))
        with self._lock:
            rows = self._connection.execute(
                f"{_SELECT} WHERE id IN (SELECT game_id FROM seats WHERE token_hash IN "
                f"({marks}) OR account_id = ?) ORDER BY created DESC, rowid DESC LIMIT ?",
                (*hashes, account, limit)).fetchall()
        return [_record(row) for row in rows]

    def bind_seats(self, token_hashes: Iterable[str], account: int) -> int:
        """Give ``account`` the seats of these tokens that no account holds yet (a seat of
        another account stays its own); how many games it gained seats in."""
        hashes = list(dict.fromkeys(token_hashes))
        if not hashes:
            return 0
        marks = ", ".join("?" * len(hashes))
        where = f"token_hash IN ({marks}) AND account_id IS NULL"
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                games = self._connection.execute(
                    f"SELECT count(DISTINCT game_id) FROM seats WHERE {where}",
                    hashes).fetchone()[0]
                self._connection.execute(f"UPDATE seats SET account_id = ? WHERE {where}",
                                         (account, *hashes))
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")
        return int(games)

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

    def claim_invite(self, game_id: str, secret_hash: str, token_hash: str, *,
                     account: int | None = None) -> Seat | None:
        """Close the game's invite with this secret and give its seat to ``token_hash``
        (and to ``account``, if given).

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
                        "INSERT INTO seats (game_id, seat, token_hash, account_id) "
                        "VALUES (?, ?, ?, ?)", (game_id, row[0], token_hash, account))
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")
        return None if row is None else Seat(row[0])

    def people_games_of(self, account: int, limit: int, *, offset: int = 0,
                        newest_first: bool = True) -> list[GameRecord]:
        """The public games between two people in which ``account`` holds a seat, newest
        (or oldest) first: ``limit`` of them from the ``offset``-th."""
        order = "DESC" if newest_first else "ASC"
        with self._lock:
            rows = self._connection.execute(
                f"{_SELECT} WHERE {_PEOPLE} AND id IN (SELECT game_id FROM seats WHERE "
                f"account_id = ?) ORDER BY created {order}, rowid {order} LIMIT ? OFFSET ?",
                (account, limit, offset)).fetchall()
        return [_record(row) for row in rows]

    def count_people_games_of(self, account: int) -> int:
        """How many public games between two people ``account`` holds a seat in."""
        with self._lock:
            return int(self._connection.execute(
                f"SELECT count(*) FROM games WHERE {_PEOPLE} AND id IN (SELECT game_id FROM "
                "seats WHERE account_id = ?)", (account,)).fetchone()[0])

    def results_of(self, account: int) -> Results:
        """The account's finished public games between two people: won, drawn and lost."""
        with self._lock:
            rows = self._connection.execute(
                f"SELECT seats.seat, games.result, count(*) FROM games JOIN seats ON "
                f"seats.game_id = games.id WHERE {_PEOPLE} AND seats.account_id = ? AND "
                "games.result != ? GROUP BY seats.seat, games.result",
                (account, UNFINISHED)).fetchall()
        wins = draws = losses = 0
        for seat, result, count in rows:
            if result == "1/2-1/2":
                draws += count
            elif (result == "1-0") is (seat == Seat.BLACK.value):
                wins += count
            else:
                losses += count
        return Results(wins, draws, losses)

    def rating_history(self, account: int, limit: int) -> list[RatingChange]:
        """The account's ``limit`` last rated games, oldest first."""
        with self._lock:
            rows = self._connection.execute(
                f"SELECT {_HISTORY_COLUMNS} FROM rating_history WHERE account_id = ? "
                "ORDER BY played DESC, rowid DESC LIMIT ?", (account, limit)).fetchall()
        return [RatingChange(row[0], row[1], row[2], row[3], Rating(*row[4:7]),
                             Rating(*row[7:10])) for row in reversed(rows)]

    def account_names(self, accounts: Iterable[int]) -> dict[int, str]:
        """The username of each of ``accounts`` (a deleted one's: ``deleted player``)."""
        wanted = list(dict.fromkeys(accounts))
        if not wanted:
            return {}
        marks = ", ".join("?" * len(wanted))
        with self._lock:
            rows = self._connection.execute(
                f"SELECT id, username, deleted FROM accounts WHERE id IN ({marks})",
                wanted).fetchall()
        return {account: DELETED_PLAYER if deleted else name for account, name, deleted in rows}

    def games_in_play(self, since: str, limit: int) -> list[GameRecord]:
        """The public games between two people that go on by their stored result and
        changed at ``since`` or later: the ``limit`` last changed."""
        with self._lock:
            rows = self._connection.execute(
                f"{_SELECT} WHERE result = ? AND updated >= ? AND {_PEOPLE} "
                "ORDER BY updated DESC, rowid DESC LIMIT ?", (UNFINISHED, since, limit)
            ).fetchall()
        return [_record(row) for row in rows]

    def rated_games_in_play(self) -> list[GameRecord]:
        """The rated games that go on by their stored result (a flag may have fallen since)."""
        with self._lock:
            rows = self._connection.execute(
                f"{_SELECT} WHERE rated = 1 AND result = ?", (UNFINISHED,)).fetchall()
        return [_record(row) for row in rows]

    def count(self) -> int:
        """How many games the file holds."""
        with self._lock:
            return int(self._connection.execute("SELECT count(*) FROM games").fetchone()[0])

    # -- accounts and sessions -------------------------------------------------

    def add_account(self, username: str, password_hash: str, created: str) -> AccountRecord:
        """A new account, with the default rating.

        :raises UsernameTakenError: the name (ignoring case) is another account's, or was.
        """
        with self._lock:
            try:
                cursor = self._connection.execute(
                    "INSERT INTO accounts (username_key, username, password_hash, created) "
                    "VALUES (?, ?, ?, ?)", (username.lower(), username, password_hash, created))
            except sqlite3.IntegrityError:
                raise UsernameTakenError(f"the username {username!r} is taken") from None
        assert cursor.lastrowid is not None
        return AccountRecord(id=cursor.lastrowid, username=username, created=created,
                             password_hash=password_hash)

    def account_named(self, username: str) -> AccountRecord | None:
        """The account with this username (ignoring case), unless there is none or it
        was deleted."""
        with self._lock:
            row = self._connection.execute(
                f"{_ACCOUNT} WHERE username_key = ? AND deleted IS NULL",
                (username.lower(),)).fetchone()
        return None if row is None else _account(row)

    def accounts_by_id(self, accounts: Iterable[int]) -> dict[int, AccountRecord]:
        """The accounts with these ids that were not deleted, by id."""
        wanted = list(dict.fromkeys(accounts))
        if not wanted:
            return {}
        with self._lock:
            rows = self._connection.execute(
                f"{_ACCOUNT} WHERE id IN ({', '.join('?' * len(wanted))}) AND deleted IS NULL",
                wanted).fetchall()
        return {row[0]: _account(row) for row in rows}

    def set_password_hash(self, account: int, password_hash: str) -> None:
        """Keep a new hash of the account's password."""
        with self._lock:
            self._connection.execute("UPDATE accounts SET password_hash = ? WHERE id = ?",
                                     (password_hash, account))

    def delete_account(self, account: int, deleted: str) -> None:
        """Delete an account: its games stay, with its name in them ``deleted player`` and
        its seats no longer its own (their tokens still act); its sessions end; its row is
        kept without its hash, so that its name stays taken."""
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                (name,) = self._connection.execute(
                    "SELECT username FROM accounts WHERE id = ?", (account,)).fetchone()
                for side in ("black", "white"):  # the names were set from the account's
                    self._connection.execute(
                        f"UPDATE games SET {side} = ? WHERE {side} = ? AND id IN (SELECT "
                        "game_id FROM seats WHERE account_id = ? AND seat = ?)",
                        (DELETED_PLAYER, name, account, side))
                self._connection.execute(
                    "UPDATE seats SET account_id = NULL WHERE account_id = ?", (account,))
                self._connection.execute("DELETE FROM sessions WHERE account_id = ?",
                                         (account,))
                self._connection.execute(
                    "UPDATE accounts SET password_hash = '', deleted = ? WHERE id = ?",
                    (deleted, account))
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")

    def add_session(self, session: SessionRecord) -> None:
        """Keep a new session."""
        with self._lock:
            self._connection.execute(
                f"INSERT INTO sessions ({_SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                (session.id, session.account_id, session.created, session.last_seen,
                 session.user_agent, session.address))

    def session(self, session_id: str) -> tuple[SessionRecord, AccountRecord] | None:
        """The session with this id and its account, or ``None``."""
        columns = ", ".join(f"s.{name.strip()}" for name in _SESSION_COLUMNS.split(","))
        with self._lock:
            row = self._connection.execute(
                f"SELECT {columns}, a.id, a.username, a.created, a.password_hash, a.rating, "
                "a.deviation, a.volatility FROM sessions s JOIN accounts a ON "
                "a.id = s.account_id WHERE s.id = ? AND a.deleted IS NULL",
                (session_id,)).fetchone()
        return None if row is None else (_session(row[:6]), _account(row[6:]))

    def touch_session(self, session_id: str, last_seen: float) -> None:
        """Note that the session was used at ``last_seen``."""
        with self._lock:
            self._connection.execute("UPDATE sessions SET last_seen = ? WHERE id = ?",
                                     (last_seen, session_id))

    def sessions_of(self, account: int) -> list[SessionRecord]:
        """The account's sessions, the last used first."""
        with self._lock:
            rows = self._connection.execute(
                f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE account_id = ? "
                "ORDER BY last_seen DESC, rowid DESC", (account,)).fetchall()
        return [_session(row) for row in rows]

    def delete_sessions(self, account: int, *, only: str | None = None,
                        keep: str | None = None, idle_since: float | None = None) -> int:
        """End the account's sessions: ``only`` that one, all but ``keep``, or those last
        seen before ``idle_since``; how many ended."""
        where, values = ["account_id = ?"], list[Any]([account])
        for condition, value in (("id = ?", only), ("id != ?", keep),
                                 ("last_seen < ?", idle_since)):
            if value is not None:
                where.append(condition)
                values.append(value)
        with self._lock:
            cursor = self._connection.execute(
                f"DELETE FROM sessions WHERE {' AND '.join(where)}", values)
        return cursor.rowcount

    # -- notes and reviews -------------------------------------------------------

    def notes(self, game_id: str) -> str | None:
        """The PDN of an imported game with its comments, NAGs and variations, if it had any."""
        with self._lock:
            row = self._connection.execute(
                "SELECT pdn FROM game_notes WHERE game_id = ?", (game_id,)).fetchone()
        return None if row is None else str(row[0])

    def review(self, game_id: str) -> tuple[str, str] | None:
        """The game's review: the key of the moves it reviewed, and its JSON; ``None``: none."""
        with self._lock:
            row = self._connection.execute(
                "SELECT moves_key, review FROM reviews WHERE game_id = ?", (game_id,)).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def put_review(self, game_id: str, moves_key: str, review: str) -> bool:
        """Keep the game's review (in place of any before it); ``False`` when the game is
        gone (it was deleted meanwhile: nothing is kept)."""
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                found = self._connection.execute(
                    "SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone()
                if found is not None:
                    self._connection.execute(
                        "INSERT OR REPLACE INTO reviews (game_id, moves_key, review) "
                        "VALUES (?, ?, ?)", (game_id, moves_key, review))
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")
        return found is not None

    def unfinished_games_of(self, token_hashes: Iterable[str], *, account: int | None,
                            except_modes: Iterable[GameMode]) -> list[GameRecord]:
        """The games not over by their stored result (``*``), but for those of
        ``except_modes``, with a seat held by one of the tokens or by ``account``."""
        hashes = list(dict.fromkeys(token_hashes))
        if not hashes and account is None:
            return []
        modes = [mode.value for mode in except_modes]
        with self._lock:
            rows = self._connection.execute(
                f"{_SELECT} WHERE result = '*' AND mode NOT IN ({', '.join('?' * len(modes))}) "
                f"AND id IN (SELECT game_id FROM seats WHERE token_hash IN "
                f"({', '.join('?' * len(hashes))}) OR account_id = ?)",
                (*modes, *hashes, account)).fetchall()
        return [_record(row) for row in rows]

    def close(self) -> None:
        """Close the file (later calls fail)."""
        with self._lock:
            self._connection.close()


def _account(row: tuple[Any, ...]) -> AccountRecord:
    account_id, username, created, password_hash, rating, deviation, volatility = row
    return AccountRecord(id=account_id, username=username, created=created,
                         password_hash=password_hash,
                         rating=Rating(rating, deviation, volatility))


def _session(row: tuple[Any, ...]) -> SessionRecord:
    session_id, account_id, created, last_seen, user_agent, address = row
    return SessionRecord(id=session_id, account_id=account_id, created=created,
                         last_seen=last_seen, user_agent=user_agent, address=address)


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
            None if record.clock is None else json.dumps(record.clock.to_json()),
            int(record.rated),
            None if record.ratings is None else json.dumps(record.ratings.to_json()),
            _color_name(record.rematch_offer), record.rematch)


def _record(row: tuple[Any, ...]) -> GameRecord:
    (game_id, mode, created, updated, black, white, start_fen, human, level, seconds, moves,
     agreed_reason, agreed_winner, draw_offer, tags, result, private, takeback_request,
     clock, rated, ratings, rematch_offer, rematch) = row
    agreed = (None if agreed_reason is None
              else AgreedEnding(Agreement(agreed_reason), _color(agreed_winner)))
    return GameRecord(id=game_id, mode=GameMode(mode), created=created, updated=updated,
                      black=black, white=white, start_fen=start_fen, human=_color(human),
                      level=level, seconds=seconds, moves=tuple(moves.split()), agreed=agreed,
                      draw_offer=_color(draw_offer), tags=json.loads(tags), result=result,
                      private=bool(private), takeback_request=_color(takeback_request),
                      clock=None if clock is None else Clock.from_json(json.loads(clock)),
                      rated=bool(rated), ratings=None if ratings is None
                      else GameRatings.from_json(json.loads(ratings)),
                      rematch_offer=_color(rematch_offer), rematch=rematch)
