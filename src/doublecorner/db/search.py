"""Finding games by their tags, and a stored game's PDN.

>>> date_range("1990", "1990"), date_range("1990.05", "1991")
((19900000, 19901299), (19900500, 19911299))
"""

from __future__ import annotations

import calendar
import json
import sqlite3
from dataclasses import dataclass, field

from doublecorner.db.records import SUMMARY_COLUMNS, GameSummary, date_number
from doublecorner.errors import GameDatabaseError, quoted
from doublecorner.fen import STARTING_FEN
from doublecorner.move import Move
from doublecorner.pdn import Game, StringExporter

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
DEFAULT_LIMIT = 50


@dataclass(frozen=True)
class GameQuery:
    """What to search for; every field given must match, text fields as a part of the tag.

    ``player`` matches either side; ``date_from``/``date_to`` take
    ``YYYY``, ``YYYY.MM`` or ``YYYY.MM.DD`` (``-`` or ``/`` also) and leave out
    games of unknown date; a game dated to the year only (``1990.??.??``)
    counts as played on the year's first day.
    """

    player: str | None = None
    black: str | None = None
    white: str | None = None
    event: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    result: str | None = None


def date_range(date_from: str | None, date_to: str | None) -> tuple[int, int]:
    """The date numbers from the start of ``date_from`` to the end of ``date_to``.

    ``None`` for either leaves that end open (games of unknown date are still left out).

    :raises ValueError: a date that is not ``YYYY``, ``YYYY.MM`` or ``YYYY.MM.DD``.
    """
    low = _date(date_from) if date_from is not None else 1
    high = 99_999_999
    if date_to is not None:
        high = _date(date_to)
        # to the end of the year or month given
        high += 1299 if high % 10_000 == 0 else 99 if high % 100 == 0 else 0
    return low, high


def _date(text: str) -> int:
    """``text``'s date number; a month or day the calendar has not is an error, not 0 games.

    >>> _date("2026.13")
    Traceback (most recent call last):
    ValueError: '2026.13' is no date: the months are 01 to 12
    >>> _date("2025.02.29")
    Traceback (most recent call last):
    ValueError: '2025.02.29' is no date: month 2 of 2025 has 28 days
    """
    number = date_number(text)
    if number == 0 or "?" in text:
        raise ValueError(f"expected a date YYYY, YYYY.MM or YYYY.MM.DD, not {quoted(text)}")
    year, month, day = number // 10_000, number // 100 % 100, number % 100
    if month > 12 or (month == 0 and day):
        raise ValueError(f"{quoted(text)} is no date: the months are 01 to 12")
    days = calendar.monthrange(year, month)[1] if month else 0
    if day > days:
        raise ValueError(f"{quoted(text)} is no date: month {month} of {year} has {days} days")
    return number


def search_games(connection: sqlite3.Connection, query: GameQuery, *,
                 limit: int = DEFAULT_LIMIT) -> list[GameSummary]:
    """The games that match ``query``, newest first, at most ``limit``.

    :raises ValueError: a bad date or result in ``query``.
    """
    conditions: list[str] = []
    values: list[object] = []
    for column, text in (("black", query.black), ("white", query.white),
                         ("event", query.event)):
        if text is not None:
            conditions.append(f"{column} LIKE ? ESCAPE '\\'")
            values.append(_pattern(text))
    if query.player is not None:
        conditions.append("(black LIKE ? ESCAPE '\\' OR white LIKE ? ESCAPE '\\')")
        values += [_pattern(query.player)] * 2
    if query.date_from is not None or query.date_to is not None:
        low, high = date_range(query.date_from, query.date_to)
        conditions.append("date_number BETWEEN ? AND ?")
        values += [low, high]
    if query.result is not None:
        if query.result not in RESULTS:
            raise ValueError(f"expected a result of {', '.join(RESULTS)}, not "
                             f"{quoted(query.result)}")
        conditions.append("result = ?")
        values.append(query.result)
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    rows = connection.execute(
        f"SELECT {SUMMARY_COLUMNS} FROM games {where} ORDER BY date_number DESC, id DESC "
        "LIMIT ?", (*values, limit)).fetchall()
    return [GameSummary(*row) for row in rows]


def _pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


@dataclass(frozen=True)
class StoredGame:
    """A stored game: its PDN, and the faults of the file it came from (empty: none).

    ``tags``, ``start_fen`` and ``moves`` are what the PDN holds, read for a
    program: every tag in the file's order, the position the game starts from
    and its main line as full paths (``9x18x27``).
    """

    id: int
    pdn: str
    faults: tuple[str, ...]
    tags: dict[str, str] = field(default_factory=dict, hash=False)  # a dict: not hashable
    start_fen: str = STARTING_FEN
    moves: tuple[str, ...] = ()


def stored_game(connection: sqlite3.Connection, game_id: int) -> StoredGame:
    """The game with this id.

    A game without annotations is written from its tags and main line; one
    with comments or variations as it was kept.

    :raises GameDatabaseError: no game has this id.
    """
    row = connection.execute(
        "SELECT tags, start_fen, moves, pdn, faults FROM games WHERE id = ?",
        (game_id,)).fetchone()
    if row is None:
        raise GameDatabaseError(f"no game has the id {game_id} in the database")
    tags, start_fen, moves, pdn, faults = row
    headers = json.loads(tags)
    line = tuple(moves.split())
    if pdn is None:
        game = Game(headers)
        game.add_line(Move.parse(path) for path in line)
        pdn = game.accept(StringExporter())
    return StoredGame(game_id, pdn, tuple(json.loads(faults)) if faults else (),
                      tags=headers, start_fen=start_fen, moves=line)
