"""Play games between two players over the ballot deck, judged by the rules."""

from __future__ import annotations

import queue
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.egtb.probe import Tables, Value
from doublecorner.errors import DraughtsError, TableError
from doublecorner.match.ballots import Ballot
from doublecorner.match.clock import ClockReading, GameClock
from doublecorner.match.elo import MatchScore
from doublecorner.match.players import Player
from doublecorner.move import Move
from doublecorner.pdn import write_game

ADJUDICATED = "adjudicated by endgame tables"
PlayerFactory = Callable[[], Player]


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game. ``first_is_black`` tells which colour the match's first player had."""

    number: int
    ballot: Ballot
    first_is_black: bool
    black: str
    white: str
    moves: tuple[Move, ...]
    result: str  # "1-0" (Black won), "0-1" or "1/2-1/2"
    reason: str
    fallback_moves: int  # moves played at random because a player produced none

    @property
    def first_player_points(self) -> float:
        if self.result == "1/2-1/2":
            return 0.5
        black_won = self.result == "1-0"
        return 1.0 if black_won == self.first_is_black else 0.0

    def pdn(self, *, event: str) -> str:
        return write_game(self.moves, result=self.result, tags={
            "Event": event,
            "Round": str(self.number),
            "Black": self.black,
            "White": self.white,
            "Ballot": f"{self.ballot.number}: {self.ballot}",
            "Termination": self.reason,
        })


def play_game(black: Player, white: Player, ballot: Ballot, *, number: int,
              first_is_black: bool, seed: int = 0,
              tables: Tables | None = None, clock: GameClock | None = None) -> GameRecord:
    """Play one game from ``ballot`` to its end by the rules.

    The arena claims draws for the players: a game ends as soon as a position
    occurs a third time or 40 moves by each side pass without a man move or
    capture (see :meth:`Board.outcome <doublecorner.board.Board.outcome>`).
    A player that raises or plays an illegal move loses the game. One that
    produces no move (a peer whose own rules ended the game early) gets a
    random legal move played for it, counted in ``fallback_moves``. With
    ``tables``, the game ends as soon as they hold its position, with their
    result (reason ``adjudicated by endgame tables: ...``). With ``clock``
    each side has its time for the game (see :mod:`.clock`): a player is
    given the clocks with each request, the time it took (on the arena's
    watch, so its own overheads count) comes off its clock and the increment
    goes on, and a player whose move comes after its time ran out loses on
    time.
    """
    board = ballot.board()
    players = {Color.BLACK: black, Color.WHITE: white}
    fallback = random.Random(seed)
    fallbacks = 0
    for player in (black, white):
        player.new_game()
    left = {Color.BLACK: clock.seconds, Color.WHITE: clock.seconds} if clock else {}
    result, reason = "", ""
    while True:
        # The arena is the referee: it claims a draw by repetition or the 40-move rule
        # for the players as soon as one is on the board.
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result, reason = outcome.result(), outcome.termination.value
            break
        if tables is not None:
            adjudication = _adjudicate(board, tables)
            if adjudication is not None:
                result, reason = adjudication
                break
        mover = players[board.turn]
        reading = (ClockReading(left[Color.BLACK], left[Color.WHITE], clock.increment,
                                board.turn) if clock else None)
        asked = time.monotonic()
        try:
            move = mover.choose(board) if reading is None else mover.choose(board, reading)
        except DraughtsError as error:
            result, reason = _forfeit(board.turn, f"{mover.name} failed: {error}")
            break
        if clock is not None:
            took = time.monotonic() - asked
            if took > left[board.turn]:
                result, reason = _forfeit(board.turn, f"{mover.name} lost on time ({took:.3f} s "
                                                      f"with {left[board.turn]:.3f} s left)")
                break
            left[board.turn] += clock.increment - took
        if move is None:
            move = fallback.choice(sorted(board.legal_moves, key=lambda m: m.path))
            fallbacks += 1
        if move not in board.legal_moves:
            result, reason = _forfeit(board.turn, f"{mover.name} played illegal {move}")
            break
        board.push(move)
    return GameRecord(number, ballot, first_is_black, black.name, white.name,
                      tuple(board.move_stack), result, reason, fallbacks)


def _adjudicate(board: Board, tables: Tables) -> tuple[str, str] | None:
    """The tables' result and reason for the board's position, or None if they lack it."""
    position = board.position()
    if (position.black | position.white).bit_count() > tables.max_pieces:
        return None
    if not tables.covers(position):
        return None
    try:
        value = tables.value(position)
    except TableError:  # a slice the loader skipped: play on by the rules
        return None
    mover = board.turn
    verdict = f"{ADJUDICATED}: {value.name.lower()} for {mover.name.capitalize()} to move"
    if value is Value.DRAW:
        return "1/2-1/2", verdict
    loser = mover if value is Value.LOSS else mover.opponent
    return _forfeit(loser, verdict)[0], verdict


def _forfeit(loser: Color, reason: str) -> tuple[str, str]:
    return ("0-1" if loser is Color.BLACK else "1-0"), reason


def score_of(records: Sequence[GameRecord]) -> MatchScore:
    """Wins, draws and losses of the match's first player."""
    points = [record.first_player_points for record in records]
    return MatchScore(points.count(1.0), points.count(0.5), points.count(0.0))


def run_match(first: PlayerFactory, second: PlayerFactory, ballots: Sequence[Ballot], *,
              concurrency: int = 1,
              on_game: Callable[[GameRecord], None] | None = None,
              skip: Collection[int] = (),
              tables: Tables | None = None,
              stop: threading.Event | None = None,
              clock: GameClock | None = None) -> list[GameRecord]:
    """Play every ballot twice, colours reversed; ``concurrency`` games at a time.

    Each concurrent slot owns its own pair of players (the engine's search
    runs without the GIL, peers in their own processes). ``on_game`` is
    called, in the calling thread, as each game finishes. Returns the games
    in their numbered order: game ``2k + 1`` gives the first player Black on
    ballot ``k``, game ``2k + 2`` White. Games whose numbers are in ``skip``
    (already played, say) are left out of the play and of the list returned;
    ``tables`` adjudicate endings and ``clock`` times the games as
    :func:`play_game` says. Once ``stop`` is
    set (by ``on_game``, say, when a test has decided the match) no further
    game starts; the games already started are played out and returned.
    """
    waiting = deque((number, ballot, first_is_black)
                    for index, ballot in enumerate(ballots)
                    for number, first_is_black in ((2 * index + 1, True), (2 * index + 2, False))
                    if number not in skip)
    if not waiting or (stop is not None and stop.is_set()):  # nothing to play: start no players
        return []
    # The calling thread hands out the games one by one, so none starts after ``stop``.
    jobs: queue.Queue[tuple[int, Ballot, bool] | None] = queue.Queue()
    finished: queue.Queue[GameRecord | BaseException] = queue.Queue()

    def work() -> None:
        try:
            one, two = first(), second()
        except BaseException as error:  # reported by the calling thread
            finished.put(error)
            return
        try:
            while (job := jobs.get()) is not None:
                number, ballot, first_is_black = job
                black, white = (one, two) if first_is_black else (two, one)
                finished.put(play_game(black, white, ballot, number=number,
                                       first_is_black=first_is_black, seed=number,
                                       tables=tables, clock=clock))
        except BaseException as error:
            finished.put(error)
        finally:
            one.close()
            two.close()

    slots = max(1, min(concurrency, len(waiting)))
    threads = [threading.Thread(target=work, daemon=True) for _ in range(slots)]
    for thread in threads:
        thread.start()
    for _ in range(slots):
        jobs.put(waiting.popleft())
    playing = slots  # games handed out and not yet back
    records: list[GameRecord] = []
    try:
        while playing:
            item = finished.get()
            if isinstance(item, BaseException):
                raise item
            playing -= 1
            records.append(item)
            if on_game is not None:
                on_game(item)
            if waiting and not (stop is not None and stop.is_set()):
                jobs.put(waiting.popleft())
                playing += 1
    finally:
        for _ in range(slots):  # each slot ends once its current game is over
            jobs.put(None)
    for thread in threads:  # their players closed
        thread.join()
    return sorted(records, key=lambda record: record.number)
