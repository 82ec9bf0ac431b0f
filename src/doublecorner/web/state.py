"""A stored game brought to life: its board, how it ended, and what the engine last said.

>>> from doublecorner.web.record import GameMode, GameRecord
>>> record = GameRecord(id="g_1", mode=GameMode.ANALYSIS, created="", updated="",
...                     black="?", white="?", start_fen="W:W18:B14", moves=("18x9",))
>>> state = GameState.of(record)
>>> state.board.fen(), state.ending
('B:W9:B', GameEnding(result='0-1', reason='no legal moves', winner=<Color.WHITE: 1>))
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.engine import Score
from doublecorner.errors import DraughtsError
from doublecorner.move import Move
from doublecorner.web.game_clock import is_flagged
from doublecorner.web.record import UNFINISHED, AgreedEnding, Agreement, GameMode, GameRecord
from doublecorner.web.store import StoreError


@dataclass(frozen=True, slots=True)
class GameEnding:
    """How a game ended: the PDN result, the reason in words, the winner (``None``: a draw)."""

    result: str
    reason: str
    winner: Color | None


@dataclass(frozen=True, slots=True)
class EngineReply:
    """The engine's move, its score for itself and the depth it searched (0 for a book move)."""

    move: Move
    score: Score
    depth: int
    is_book: bool = False


@dataclass(frozen=True, slots=True)
class GameState:
    """A game as the API shows it: the record, the board after its moves, and its ending.

    ``engine_reply`` is set only in the answer to a request that made the engine move;
    ``tokens`` (seat name to token) and ``invite`` (the secret of a friend's invite
    link) only in the answer that hands them out.
    """

    record: GameRecord
    board: Board
    ending: GameEnding | None
    engine_reply: EngineReply | None = None
    tokens: Mapping[str, str] | None = None
    invite: str | None = None

    @classmethod
    def of(cls, record: GameRecord, engine_reply: EngineReply | None = None) -> GameState:
        """Replay ``record``'s moves.

        :raises StoreError: a stored move is not legal (the database was damaged).
        """
        board = replay(record)
        return cls(record, board, ending(record, board), engine_reply)


# Replaying a game move by move (about 5 ms for 100 plies) was the largest cost of a busy
# server: every move request replays its game, and every change of the watch list replays
# each game on it (bench/web.py people). The boards of the games replayed last are kept
# (at most this many, some 130 KB each for 100 plies), and a record whose moves extend a
# kept board's plays only the moves that are new.
REPLAYED_GAMES_KEPT = 512
_replayed: OrderedDict[str, tuple[str, tuple[str, ...], Board]] = OrderedDict()
_replayed_lock = threading.Lock()  # replay runs on the event loop and on worker threads


def replay(record: GameRecord) -> Board:
    """The board after the record's moves, from its start position (a board of its own:
    the caller may push and pop).

    :raises StoreError: the start position or a move is not valid (the database was damaged).
    """
    with _replayed_lock:
        kept = _replayed.get(record.id)
    done = 0
    if (kept is not None and kept[0] == record.start_fen
            and record.moves[:len(kept[1])] == kept[1]):
        board, done = kept[2].copy(), len(kept[1])
    try:
        if not done:
            board = Board(record.start_fen)
        for text in record.moves[done:]:
            board.push(Move.parse(text))
    except DraughtsError as error:
        raise StoreError(f"game {record.id!r} in the database is damaged: {error}") from None
    with _replayed_lock:
        _replayed[record.id] = (record.start_fen, record.moves, board.copy())
        _replayed.move_to_end(record.id)
        while len(_replayed) > REPLAYED_GAMES_KEPT:
            _replayed.popitem(last=False)
    return board


def ending(record: GameRecord, board: Board, *, now: float | None = None) -> GameEnding | None:
    """How the game ended: by the rules on ``board``, else by the players, else on time
    (the side to move's clock ran out by ``now``, default: the time now), else ``None``.

    Against the engine the server is the referee: it claims a draw by repetition
    or the 40-move rule for both sides as soon as one is on the board. People
    playing each other claim it themselves (see :func:`claimable_draw`), and
    an analysis goes on past it as the records of real games do.
    """
    outcome = board.outcome(claim_draw=record.mode is GameMode.ENGINE)
    if outcome is not None:
        return GameEnding(outcome.result(), outcome.termination.value, outcome.winner)
    agreed = record.agreed
    if agreed is not None:
        return GameEnding(agreed.result, agreed.reason.value, agreed.winner)
    clock = record.clock
    if clock is not None and is_flagged(clock, board.turn,
                                        now=time.time() if now is None else now):
        flag = AgreedEnding(Agreement.TIME_FORFEIT, board.turn.opponent)
        return GameEnding(flag.result, flag.reason.value, flag.winner)
    return None


def claimable_draw(record: GameRecord, board: Board) -> Agreement | None:
    """The draw the side to move may claim now (see :meth:`Board.can_claim_draw`), if any.

    Only a player claims: an analysis has none, and neither has a game that is over.
    """
    if record.mode is GameMode.ANALYSIS or ending(record, board) is not None:
        return None
    if board.can_claim_forty_move_rule():
        return Agreement.FORTY_MOVES_CLAIMED
    if board.can_claim_threefold_repetition():
        return Agreement.REPETITION_CLAIMED
    return None


def result(record: GameRecord, board: Board) -> str:
    """The PDN result of the game: ``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` while it goes on."""
    found = ending(record, board)
    return UNFINISHED if found is None else found.result
