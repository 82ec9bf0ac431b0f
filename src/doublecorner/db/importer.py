"""Importing PDN files: games streamed through the lenient reader into the database.

Each file is read one game at a time and written in batches of
:data:`BATCH_GAMES`, a batch in one transaction together with how far into
the file it reaches. A file is known by the SHA-256 of its bytes: one
imported whole is passed over (under any name), and one whose import was
interrupted goes on after the last batch written, its first games skipped
unread. A game the reader found faults in is imported up to its first fault
(what the reader kept) and counted as faulty; a game with no start position
of English draughts (a bad ``FEN`` tag, another ``GameType``) cannot be
indexed and is skipped. A game already in the database (see
:func:`~doublecorner.db.records.game_digest`) is counted as a duplicate.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from doublecorner.db.records import GameRecord, IndexingBuilder, game_record
from doublecorner.db.schema import sql_key
from doublecorner.errors import GameDatabaseError
from doublecorner.files import reading_problem
from doublecorner.pdn import SKIP, NotPdnError, PdnReader, Skip, Visitor

# A batch's positions are written in key order, so a bigger batch touches each page of
# the position index fewer times per game: 5,000 imported 100,000 games in 233 s
# against 264 s with 500 (an interrupted import redoes at most one batch).
BATCH_GAMES = 5000
IMPORT_CACHE_KIB = 256 * 1024  # SQLite's page cache while importing: the index's hot pages
PROGRESS_EVERY_GAMES = 50
_HASH_CHUNK = 1 << 20
_RESULT_COLUMNS = {"1-0": (1, 0, 0), "1/2-1/2": (0, 1, 0), "0-1": (0, 0, 1)}
_INSERT_GAME = (
    "INSERT OR IGNORE INTO games (digest, source, number, event, site, date, date_number, "
    "round, black, white, result, start_fen, plies, moves, tags, pdn, faults) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
_UPSERT_MOVE = (
    "INSERT INTO moves_at (key, move, games, black_wins, draws, white_wins) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key, move) DO UPDATE SET "
    "games = games + excluded.games, black_wins = black_wins + excluded.black_wins, "
    "draws = draws + excluded.draws, white_wins = white_wins + excluded.white_wins")
_INSERT_POSITION = "INSERT OR IGNORE INTO positions (key, date_number, game) VALUES (?, ?, ?)"


@dataclass(frozen=True)
class ImportProgress:
    """How far an import has gone: bytes of all files read, and games dealt with."""

    bytes_read: int
    bytes_total: int
    games: int
    path: str


@dataclass
class ImportSummary:
    """What an import did, over all its files.

    ``imported`` counts the games added, ``faulty`` those of them imported
    only up to a fault; ``duplicates`` the games already held; ``skipped``
    the games without a start position; ``files_done`` the files passed over
    as imported before.
    """

    imported: int = 0
    duplicates: int = 0
    faulty: int = 0
    skipped: int = 0
    files: int = 0
    files_done: int = 0
    faults: list[tuple[str, int, str]] = field(default_factory=list)
    """``(file, game number, first fault)`` of each faulty or skipped game."""


ProgressCallback = Callable[[ImportProgress], None]


class _Skipper(Visitor[bool]):
    """Passes over a game without replaying its moves (an interrupted import's done part)."""

    def begin_game(self) -> Skip:
        return SKIP

    def result(self) -> bool:
        return True  # the reader's None means there was no game left


def file_digest(path: str | os.PathLike[str]) -> bytes:
    """The SHA-256 of the file's bytes.

    :raises OSError: the file cannot be read.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.digest()


def import_files(connection: sqlite3.Connection, paths: Iterable[str | os.PathLike[str]], *,
                 progress: ProgressCallback | None = None) -> ImportSummary:
    """Import the PDN files at ``paths`` into the database behind ``connection``.

    :raises GameDatabaseError: a file cannot be read, is no regular file (a
        device or a pipe cannot be read twice, for its digest and its games)
        or is not PDN text at all (what was written of it stays, and the next
        import goes on from there), or the database cannot be written.
    """
    files = [Path(path) for path in paths]
    sizes = []
    for path in files:
        problem = reading_problem(path)
        if problem is not None:
            raise GameDatabaseError(f"cannot import {str(path)!r}: {problem}")
        try:
            sizes.append(path.stat().st_size)
        except OSError as error:
            raise GameDatabaseError(f"cannot read {str(path)!r}: "
                                    f"{error.strerror or error}") from None
    summary = ImportSummary()
    connection.execute(f"PRAGMA cache_size = -{IMPORT_CACHE_KIB}")
    total = sum(sizes)
    done = 0
    for path, size in zip(files, sizes, strict=True):
        summary.files += 1
        try:
            _import_file(connection, path, summary, done, total, progress)
        except OSError as error:
            raise GameDatabaseError(f"cannot read {str(path)!r}: "
                                    f"{error.strerror or error}") from None
        except NotPdnError as error:
            raise GameDatabaseError(f"cannot import {str(path)!r}: {error}") from None
        except sqlite3.Error as error:
            raise GameDatabaseError(f"cannot write the game database: {error}") from None
        done += size
    return summary


def _import_file(connection: sqlite3.Connection, path: Path, summary: ImportSummary,
                 done_before: int, total: int, progress: ProgressCallback | None) -> None:
    digest = file_digest(path)
    row = connection.execute("SELECT id, games_read, is_complete FROM sources WHERE digest = ?",
                             (digest,)).fetchone()
    if row is None:
        cursor = connection.execute(
            "INSERT INTO sources (digest, name, size, games_read, is_complete) "
            "VALUES (?, ?, ?, 0, 0)", (digest, str(path), path.stat().st_size))
        source, games_read = cursor.lastrowid, 0
    elif row[2]:
        summary.files_done += 1
        return
    else:
        source, games_read = row[0], row[1]
    with open(path, "rb") as handle:
        reader = PdnReader(handle)
        for _ in range(games_read):
            if not reader.read_game(_Skipper()):
                break
        batch: list[tuple[int, GameRecord]] = []
        builder = IndexingBuilder()
        number = games_read
        while (game := reader.read_game(builder)) is not None:
            number += 1
            if not builder.line:
                summary.skipped += 1
                summary.faults.append((str(path), number, _first_fault(game.errors)))
            else:
                record = game_record(game, builder.line, is_annotated=builder.is_annotated)
                batch.append((number, record))
                if game.errors:
                    summary.faults.append((str(path), number, str(game.errors[0])))
            if len(batch) >= BATCH_GAMES:
                _write(connection, source, batch, number, summary, is_complete=False)
                batch = []
            if progress is not None and number % PROGRESS_EVERY_GAMES == 0:
                progress(ImportProgress(done_before + handle.tell(), total, number, str(path)))
        _write(connection, source, batch, number, summary, is_complete=True)
        if progress is not None:
            progress(ImportProgress(done_before + handle.tell(), total, number, str(path)))


def _first_fault(errors: Sequence[Exception]) -> str:
    return str(errors[0]) if errors else "no start position of English draughts"


def _write(connection: sqlite3.Connection, source: int | None,
           batch: list[tuple[int, GameRecord]], games_read: int, summary: ImportSummary, *,
           is_complete: bool) -> None:
    """Write a batch of games and how far into its file it reaches, in one transaction.

    The batch's positions are added up first (every game passes the start
    position) and written in key order, which keeps the inserts into the
    index's B-trees close together.
    """
    imported = duplicates = faulty = 0
    moves: dict[tuple[int, str], list[int]] = {}
    positions: list[tuple[int, int, int]] = []
    connection.execute("BEGIN IMMEDIATE")
    try:
        for number, record in batch:
            cursor = connection.execute(_INSERT_GAME, (
                record.digest, source, number, record.event, record.site, record.date,
                record.date_number, record.round, record.black, record.white, record.result,
                record.start_fen, record.plies, record.moves, record.tags, record.pdn,
                record.faults))
            if cursor.rowcount == 0 or cursor.lastrowid is None:
                duplicates += 1
                continue
            imported += 1
            faulty += record.faults is not None
            _index(record, cursor.lastrowid, moves, positions)
        connection.executemany(_UPSERT_MOVE, sorted(
            (key, move, *counts) for (key, move), counts in moves.items()))
        positions.sort()
        connection.executemany(_INSERT_POSITION, positions)
        connection.execute("UPDATE sources SET games_read = ?, is_complete = ? WHERE id = ?",
                           (games_read, int(is_complete), source))
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    summary.imported += imported
    summary.duplicates += duplicates
    summary.faulty += faulty


def _index(record: GameRecord, game: int, moves: dict[tuple[int, str], list[int]],
           positions: list[tuple[int, int, int]]) -> None:
    """Add the game's positions to the batch's: each once per game, with the move first played.

    A game that comes back to a position (a repetition) counts there once,
    so that a position's games add up over its moves.
    """
    wins = _RESULT_COLUMNS.get(record.result, (0, 0, 0))
    seen: set[int] = set()
    for key, move in record.line:
        if key in seen:
            continue
        seen.add(key)
        signed = sql_key(key)
        counts = moves.get((signed, move))
        if counts is None:
            moves[signed, move] = [1, *wins]
        else:
            counts[0] += 1
            counts[1] += wins[0]
            counts[2] += wins[1]
            counts[3] += wins[2]
        positions.append((signed, record.date_number, game))
