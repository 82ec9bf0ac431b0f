"""Building a book from a game database: the moves played often enough, weighted by their score.

The book grows from the positions the games start from (the start position,
and any set-up position a game has in its ``FEN`` tag), one ply at a time:
in each position, every move that at least ``min_games`` games played there
(by any order of moves before it: the database counts transpositions)
becomes an entry, weighted by :func:`~doublecorner.book.weights.game_weight`,
and the position it leads to is looked at next, up to ``max_plies`` plies
from the start. A position reached by two routes is looked at once.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from doublecorner import __version__
from doublecorner.board import Board
from doublecorner.book.format import ENTRY, MAX_COUNT, NO_SCORE
from doublecorner.book.move_code import fits, move_code
from doublecorner.book.reader import Book
from doublecorner.book.weights import game_weight, scaled
from doublecorner.color import Color
from doublecorner.db import GameDatabase, MoveStats
from doublecorner.errors import DraughtsError
from doublecorner.position import Position

DEFAULT_MIN_GAMES = 3
DEFAULT_MAX_PLIES = 24


@dataclass(frozen=True)
class BuildProgress:
    """How far a build has gone: the ply being looked at, positions looked up, entries made."""

    ply: int
    max_plies: int
    positions: int
    entries: int
    waiting: int
    """Positions of this ply still to look up."""


BuildCallback = Callable[[BuildProgress], None]


def build_book(database: GameDatabase, *, min_games: int = DEFAULT_MIN_GAMES,
               max_plies: int = DEFAULT_MAX_PLIES,
               progress: BuildCallback | None = None) -> Book:
    """A book of the moves played in ``database``'s games; see the module's docstring.

    :raises ValueError: ``min_games`` or ``max_plies`` below 1.
    :raises GameDatabaseError: the database cannot be read.
    """
    if min_games < 1 or max_plies < 1:
        raise ValueError(f"min_games and max_plies must be at least 1, not {min_games} and "
                         f"{max_plies}")
    rows: list[tuple[int, int, int, int, int, int, int]] = []
    frontier = _roots(database)
    seen = set(frontier)
    looked_up = 0
    for ply in range(max_plies):
        following: dict[int, Position] = {}
        for number, (key, position) in enumerate(frontier.items()):
            board = Board.from_position(position)
            moves = [(stats, board.parse_move(stats.move))
                     for stats in database.explore(position, top=0).moves
                     if stats.games >= min_games and _is_move(board, stats.move)]
            moves = [(stats, move) for stats, move in moves if fits(move)]
            weights = scaled([game_weight(**_record(stats, position.turn))
                              for stats, _ in moves])
            for (stats, move), weight in zip(moves, weights, strict=True):
                record = _record(stats, position.turn)
                rows.append((key, move_code(move), weight, NO_SCORE,
                             min(record["wins"], MAX_COUNT), min(record["draws"], MAX_COUNT),
                             min(record["losses"], MAX_COUNT)))
                board.push(move)
                child = board.position()
                board.pop()
                child_key = child.zobrist_key()
                if child_key not in seen:
                    seen.add(child_key)
                    following[child_key] = child
            looked_up += 1
            if progress is not None:
                progress(BuildProgress(ply, max_plies, looked_up, len(rows),
                                       len(frontier) - number - 1))
        frontier = following
        if not frontier:
            break
    provenance = _provenance(database, min_games=min_games, max_plies=max_plies,
                             positions=looked_up)
    return Book(np.array(rows, ENTRY), provenance)


def _roots(database: GameDatabase) -> dict[int, Position]:
    """The positions the games start from, by key (the start position always among them)."""
    roots = {Position.start().zobrist_key(): Position.start()}
    for fen in database.start_positions():
        try:
            position = Position.from_fen(fen)
        except DraughtsError:  # not a start the database could index either
            continue
        roots.setdefault(position.zobrist_key(), position)
    return roots


def _is_move(board: Board, text: str) -> bool:
    try:
        board.parse_move(text)
    except DraughtsError:  # not a move here: two positions under one key (2**-64 odds)
        return False
    return True


def _record(stats: MoveStats, turn: Color) -> dict[str, int]:
    """The games of a move from the side of the player who played it."""
    black = turn is Color.BLACK
    return {"wins": stats.black_wins if black else stats.white_wins, "draws": stats.draws,
            "losses": stats.white_wins if black else stats.black_wins}


def _provenance(database: GameDatabase, *, min_games: int, max_plies: int,
                positions: int) -> dict[str, Any]:
    return {"built_by": f"doublecorner {__version__}",
            "built": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "steps": [{"step": "build", "database": database.path.name,
                       "games": database.count_games(), "min_games": min_games,
                       "max_plies": max_plies, "positions_looked_up": positions,
                       "weights": "2 x wins + draws of the side that played the move"}]}
