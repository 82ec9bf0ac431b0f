"""A game as the database stores it: read from PDN with the keys of its main line.

:class:`IndexingBuilder` is the PDN reader's game builder that also notes,
as the reader replays the main line, each position's Zobrist key and the move
played there, so that no game is replayed twice. :func:`game_record` turns
what it read into a :class:`GameRecord`: the row of the ``games`` table and
the main line's ``(key, move)`` pairs.

>>> import io
>>> from doublecorner.pdn import PdnReader
>>> text = '[Black "Ann"]\\n[Date "2026.11.30"]\\n1. 11-15 23-19 1/2-1/2\\n'
>>> builder = IndexingBuilder()
>>> record = game_record(PdnReader(io.StringIO(text)).read_game(builder), builder.line)
>>> record.black, record.date_number, record.result, record.moves
('Ann', 20261130, '1/2-1/2', '11-15 23-19')
>>> [move for key, move in record.line]
['11-15', '23-19', '']
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.db.schema import NO_MOVE
from doublecorner.errors import DraughtsError
from doublecorner.fen import STARTING_FEN
from doublecorner.move import Move
from doublecorner.pdn import Game, GameBuilder, StringExporter
from doublecorner.pdn.game import GAME_TYPE
from doublecorner.position import Position

DIGEST_BYTES = 16
_DATE = re.compile(r"\s*(\d{4}|\?{4})(?:[.\-/](\d\d|\?\?)(?:[.\-/](\d\d|\?\?))?)?\s*$")
_State = tuple[int, int, int, Color, Move]


class IndexingBuilder(GameBuilder):
    """A :class:`~doublecorner.pdn.GameBuilder` that also keeps the main line's positions.

    After a game is read, :attr:`line` holds ``(key, move)`` for each
    position of the main line, the move being the full path played there and
    ``''`` after the last one; empty if the game has no start position (a bad
    ``FEN`` tag, another game type). :attr:`is_annotated` tells whether the
    game has comments, NAGs or variations that its main line alone would lose.
    """

    def __init__(self) -> None:
        super().__init__()
        self.line: list[tuple[int, str]] = []
        self.is_annotated = False
        self._depth = 0
        self._last: _State | None = None

    def begin_game(self) -> None:
        super().begin_game()
        self.line = []
        self.is_annotated = False
        self._depth = 0
        self._last = None

    def visit_move(self, board: Board, move: Move) -> None:
        super().visit_move(board, move)
        if self._depth == 0:
            self.line.append((board.zobrist_key(), str(move)))
            black, white, kings = board.bitboards()
            self._last = (black, white, kings, board.turn, move)

    def visit_comment(self, comment: str) -> None:
        super().visit_comment(comment)
        self.is_annotated = True

    def visit_nag(self, nag: int) -> None:
        super().visit_nag(nag)
        self.is_annotated = True

    def begin_variation(self) -> None:
        super().begin_variation()
        self.is_annotated = True
        self._depth += 1

    def end_variation(self) -> None:
        super().end_variation()
        self._depth -= 1

    def end_game(self) -> None:
        # The reader's board is its own; the last position is made here from the one before.
        super().end_game()
        if self._last is not None:
            black, white, kings, turn, move = self._last
            board = Board.from_position(Position(black, white, kings, turn))
            board.push(move)
            self.line.append((board.zobrist_key(), NO_MOVE))
            return
        start = start_position(self.game)
        if start is not None:
            self.line.append((start.zobrist_key(), NO_MOVE))


@dataclass(frozen=True)
class GameRecord:
    """One game as stored: its searchable tags, its main line and its positions."""

    digest: bytes
    event: str
    site: str
    date: str
    date_number: int
    round: str
    black: str
    white: str
    result: str
    start_fen: str
    moves: str
    tags: str
    pdn: str | None
    faults: str | None
    line: tuple[tuple[int, str], ...]
    """``(Zobrist key, full path played there)`` of each position, ``''`` at the end."""

    @property
    def plies(self) -> int:
        """How many moves of the main line were kept."""
        return max(len(self.line) - 1, 0)


def start_position(game: Game) -> Position | None:
    """The position the game starts from; ``None`` if its tags give none of English draughts.

    >>> start_position(Game({"FEN": "W:W18:B14"})).fen()
    'W:W18:B14'
    >>> start_position(Game({"GameType": "20"})) is None
    True
    """
    game_type = game.headers.get("GameType")
    if game_type is not None and game_type.split(",")[0].strip() != GAME_TYPE:
        return None
    fen = game.headers.get("FEN")
    if fen is None:
        return _the_start()
    try:
        return Position.from_fen(fen)
    except (DraughtsError, ValueError):  # ValueError: a number too long for int()
        return None


@functools.cache
def _the_start() -> Position:
    """The usual start position, made once (most games start there: no FEN to read)."""
    return Position.from_fen(STARTING_FEN)


def date_number(text: str) -> int:
    """A PDN date as a number that sorts: ``YYYYMMDD``, unknown parts 0; 0 if none.

    >>> date_number("2026.11.30"), date_number("1990.??.??"), date_number("????.??.??")
    (20261130, 19900000, 0)
    >>> date_number("1990"), date_number("31 May 1990")
    (19900000, 0)
    """
    match = _DATE.match(text)
    if match is None:
        return 0
    year, month, day = (part if part and part.isdigit() else "0" for part in match.groups())
    if year == "0":
        return 0
    return int(year) * 10_000 + int(month) * 100 + int(day)


def game_digest(start_fen: str, moves: str, headers: dict[str, str]) -> bytes:
    """What makes two games the same game: start, main line, result, players and date.

    Other tags (event, site, round, annotator) often differ between two
    collections that hold the same game, and are not part of it.

    >>> a = game_digest("B:W21-32:B1-12", "11-15", {"Black": "Ann", "Site": "Here"})
    >>> a == game_digest("B:W21-32:B1-12", "11-15", {"Black": "Ann", "Site": "There"})
    True
    >>> a == game_digest("B:W21-32:B1-12", "11-15", {"Black": "Bob"})
    False
    """
    fields = [start_fen, moves] + [headers.get(name, "?").strip().casefold()
                                   for name in ("Result", "Black", "White", "Date")]
    return hashlib.blake2b("\n".join(fields).encode(), digest_size=DIGEST_BYTES).digest()


def game_record(game: Game, line: list[tuple[int, str]], *,
                is_annotated: bool = False) -> GameRecord:
    """The stored form of ``game``, whose main line's positions are ``line``.

    ``line`` comes from :attr:`IndexingBuilder.line` (it must not be empty).
    A game with annotations keeps its whole PDN too (``is_annotated``).
    """
    headers = game.headers
    start = start_position(game)
    start_fen = start.fen() if start is not None else headers.get("FEN", STARTING_FEN)
    moves = " ".join(move for _, move in line[:-1])
    pdn = game.accept(StringExporter()) if is_annotated else None
    faults = json.dumps([str(error) for error in game.errors]) if game.errors else None
    return GameRecord(
        digest=game_digest(start_fen, moves, headers),
        event=headers.get("Event", "?"), site=headers.get("Site", "?"),
        date=headers.get("Date", "?"), date_number=date_number(headers.get("Date", "")),
        round=headers.get("Round", "?"), black=headers.get("Black", "?"),
        white=headers.get("White", "?"), result=game.result, start_fen=start_fen,
        moves=moves, tags=json.dumps(headers, ensure_ascii=False), pdn=pdn, faults=faults,
        line=tuple(line))


@dataclass(frozen=True)
class GameSummary:
    """A stored game as lists show it: its id in the database, players, event, date, result."""

    id: int
    black: str
    white: str
    event: str
    date: str
    result: str

    def to_json(self) -> dict[str, object]:
        """The game as a JSON object (the keys of the explorer's ``top_games``)."""
        return {"id": self.id, "black": self.black, "white": self.white, "event": self.event,
                "date": self.date, "result": self.result}


SUMMARY_COLUMNS = "games.id, games.black, games.white, games.event, games.date, games.result"
"""The columns of ``games`` that make a :class:`GameSummary`, in its order."""
