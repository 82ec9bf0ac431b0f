"""The position explorer: which games reached a position, what was played there, how it scored.

A position is looked up by its Zobrist key, so games that reached it by any
order of moves count alike. Its rows in ``moves_at`` give the moves played
and their results, and ``positions`` the games, newest first: the answer
reads only the position's own rows, however many games the database holds.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.db.records import SUMMARY_COLUMNS, GameSummary
from doublecorner.db.schema import NO_MOVE, sql_key
from doublecorner.errors import DraughtsError
from doublecorner.move import Move
from doublecorner.pdn import move_text
from doublecorner.position import Position

DEFAULT_TOP_GAMES = 10


@dataclass(frozen=True)
class MoveStats:
    """A move played in the explored position, and how the games that played it ended."""

    move: str
    """The move as PDN writes it here (``11-15``, ``9x27``)."""
    games: int
    black_wins: int
    draws: int
    white_wins: int

    def score(self, side: Color) -> float | None:
        """The score of ``side`` over the games with a result (a win 1, a draw ½); ``None``: none.

        >>> MoveStats("11-15", 4, 2, 1, 0).score(Color.BLACK)
        0.8333333333333334
        """
        decided = self.black_wins + self.draws + self.white_wins
        if not decided:
            return None
        wins = self.black_wins if side is Color.BLACK else self.white_wins
        return (wins + self.draws / 2) / decided

    def to_json(self) -> dict[str, object]:
        return {"move": self.move, "games": self.games, "black_wins": self.black_wins,
                "draws": self.draws, "white_wins": self.white_wins}


@dataclass(frozen=True)
class Exploration:
    """What the database knows of a position."""

    fen: str
    games: int
    """Games that reached the position, by any order of moves."""
    moves: tuple[MoveStats, ...]
    """The moves played there, most played first."""
    top_games: tuple[GameSummary, ...]
    """The newest games that reached it."""

    def to_json(self) -> dict[str, object]:
        """The answer as ``db explore --json`` prints it."""
        return {"fen": self.fen, "games": self.games,
                "moves": [move.to_json() for move in self.moves],
                "top_games": [game.to_json() for game in self.top_games]}


def explore(connection: sqlite3.Connection, position: Position | Board, *,
            top: int = DEFAULT_TOP_GAMES) -> Exploration:
    """What the database behind ``connection`` holds about ``position``.

    :raises sqlite3.Error: the database cannot be read.
    """
    board = Board.from_position(position.position() if isinstance(position, Board)
                                else position)
    key = sql_key(board.zobrist_key())
    rows = connection.execute(
        "SELECT move, games, black_wins, draws, white_wins FROM moves_at WHERE key = ?",
        (key,)).fetchall()
    moves = [MoveStats(_shown(board, path), games, black, draws, white)
             for path, games, black, draws, white in rows if path != NO_MOVE]
    moves.sort(key=lambda stats: (-stats.games, stats.move))
    top_games = connection.execute(
        f"SELECT {SUMMARY_COLUMNS} FROM positions JOIN games ON games.id = positions.game "
        "WHERE positions.key = ? ORDER BY positions.date_number DESC, positions.game DESC "
        "LIMIT ?", (key, top)).fetchall()
    return Exploration(board.fen(), sum(row[1] for row in rows), tuple(moves),
                       tuple(GameSummary(*row) for row in top_games))


def _shown(board: Board, path: str) -> str:
    """The stored full path ``path`` as PDN writes it in this position."""
    try:
        return move_text(board, Move.parse(path))
    except DraughtsError:  # not a move here: two positions under one key (2**-64 odds)
        return path
