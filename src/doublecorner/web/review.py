"""Reviews: the whole-game analysis of a game, run on the server and kept with the game.

``POST /api/games/{id}/review`` starts one (:meth:`ReviewService.start`),
``GET /api/games/{id}/review`` tells how it goes (:meth:`ReviewService.status`)
and ``GET /api/games/{id}/review.pdn`` gives the game annotated
(:meth:`ReviewService.pdn`). The analysis is the analysis package's
(:func:`~doublecorner.analysis.analyse_game` and
:func:`~doublecorner.analysis.annotate`), so the scores, the judgements
(``?!``, ``?``, ``??``) and the annotated PDN are those of ``doublecorner
analyse``. It runs in a thread of its own, and each of its searches waits its
turn in the engine pool's fair queue as an analysis of the client that asked
(a game's search goes first, and may cut one short). The pool's engines are
shared, and keep their tables from one search to the next, as for the
analysis stream.

Limits (:class:`ReviewLimits`): each position is searched for
``seconds_per_position``, less in a long game, so that a review's searches
take at most ``total_seconds`` together (time spent waiting in the queue is
not counted); a game has one review at a time (asking again while it runs
answers how it goes), a client ``per_client`` at once and the server
``at_once``. A finished review is kept in the store with a key of the moves
it reviewed: asking again answers at once, and a game whose moves have
changed since (an analysis board played on) is reviewed anew. A game
between people is not reviewed while it goes on (fair play: it opens when it
ends).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import enum
import hashlib
import json
import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from doublecorner.analysis import MoveAnalysis, analyse_game, annotate, summary
from doublecorner.analysis.game import black_view
from doublecorner.color import Color
from doublecorner.engine import Limit, Score, SearchResult
from doublecorner.errors import DraughtsError, EngineError
from doublecorner.pdn import nags
from doublecorner.position import Position
from doublecorner.web.engine_pool import EnginePool
from doublecorner.web.engine_queue import Priority
from doublecorner.web.fair_play import is_live_between_people
from doublecorner.web.games import GameService, GameStateError
from doublecorner.web.limits import ClientSlots
from doublecorner.web.pdn_games import game_tree
from doublecorner.web.record import GameRecord
from doublecorner.web.state import GameState
from doublecorner.web.store import GameStore, StoreError
from doublecorner.web.tokens import Seat

MAX_WAIT_SECONDS = 30.0  # how long a GET may wait for a review to end

_log = logging.getLogger(__name__)


class ReviewStatus(str, enum.Enum):
    """Where a game's review stands."""

    NONE = "none"  # never reviewed, or reviewed before its moves changed
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class GameInProgressError(GameStateError):
    """A review asked of a game between people that goes on (fair play)."""

    code = "game_in_progress"


class ReviewLimitError(RuntimeError):
    """Another review would go over the client's or the server's bound."""

    code = "too_many_reviews"


class ReviewNotFoundError(LookupError):
    """The game has no finished review of its moves as they are."""

    code = "review_not_found"


@dataclass(frozen=True)
class ReviewLimits:
    """How much reviewing the server does: time per position, in all, and reviews at once.

    ``depth``, if given, also stops each search at that depth (a fixed depth
    gives the scores of ``doublecorner analyse`` at that depth, but for what
    the pool's engines keep in their hash tables from earlier searches).

    >>> ReviewLimits(seconds_per_position=0.5, total_seconds=20).limit(positions=80).time
    0.25
    """

    seconds_per_position: float = 0.5
    total_seconds: float = 120.0
    depth: int | None = None
    per_client: int = 1
    at_once: int = 2

    def limit(self, *, positions: int) -> Limit:
        """The limit of each search of a game of ``positions`` positions.

        :raises EngineError: a limit is out of range.
        """
        seconds = min(self.seconds_per_position, self.total_seconds / max(1, positions))
        return Limit(depth=self.depth, time=seconds)


@dataclass(frozen=True)
class Review:
    """A game's review as the API shows it: how far it got, and what it found.

    ``scores`` are the positions' scores from Black's side (``{"ply", "score",
    "black"}``: the text, and men clipped to the evaluation plot's range), as
    they come while it runs; ``moves`` are the judged moves and ``summary`` the
    judgements counted per side, once it is done; ``pdn`` is the annotated game.
    """

    game_id: str
    status: ReviewStatus
    positions: int = 0
    searched: int = 0
    limit: dict[str, float | None] | None = None
    scores: Sequence[dict[str, Any]] = ()
    moves: Sequence[dict[str, Any]] = ()
    summary: dict[str, dict[str, int]] | None = None
    pdn: str | None = None
    error: str | None = None


def moves_key(record: GameRecord) -> str:
    """What a review is kept under: the SHA-256 of the game's start and moves."""
    text = " ".join((record.start_fen, *record.moves))
    return hashlib.sha256(text.encode()).hexdigest()


def position_score(ply: int, score: Score, side: Color) -> dict[str, Any]:
    """The entry of ``scores`` for the position after ``ply`` moves, scored ``score``
    for ``side``."""
    black = score if side is Color.BLACK else -score
    return {"ply": ply, "score": str(black), "black": black_view(score, side)}


def move_entry(analysis: MoveAnalysis) -> dict[str, Any]:
    """The entry of ``moves`` for one judged move (scores from Black's side)."""
    judgement = analysis.judgement
    return {"ply": analysis.ply, "move": str(analysis.move),
            "side": analysis.mover.name.lower(), "score": str(analysis.black_after()),
            "best": None if analysis.best is None else str(analysis.best),
            "best_score": str(analysis.black_before()), "loss": analysis.loss,
            "judgement": None if judgement is None else judgement.name.lower(),
            "mark": None if judgement is None else nags.mark_of_nag(judgement.value),
            "forced": analysis.forced, "depth": analysis.depth}


class _QueuedSearcher:
    """The engine :func:`analyse_game` searches with, from the review's thread: each search
    waits its turn in the engine pool's queue, as an analysis of ``client``."""

    def __init__(self, engines: EnginePool, loop: asyncio.AbstractEventLoop, client: str,
                 on_result: Callable[[Position, SearchResult], None]) -> None:
        self._engines = engines
        self._loop = loop
        self._client = client
        self._on_result = on_result
        self._stopped = threading.Event()
        self._current: concurrent.futures.Future[SearchResult] | None = None

    def new_game(self) -> None:
        """Nothing: the pool's engines are shared and keep their tables."""

    def search(self, position: Position, limit: Limit | None = None, *,
               history: Sequence[Position] = (), halfmove_clock: int = 0) -> SearchResult:
        if self._stopped.is_set():
            raise EngineError("the review was stopped: the server is closing")
        self._current = asyncio.run_coroutine_threadsafe(self._engines.search(
            position, limit or Limit(), history=history, halfmove_clock=halfmove_clock,
            priority=Priority.ANALYSIS, client=self._client), self._loop)
        try:
            found = self._current.result()
        except concurrent.futures.CancelledError:
            raise EngineError("the review was stopped: the server is closing") from None
        self._loop.call_soon_threadsafe(self._on_result, position, found)
        return found

    def stop(self) -> None:
        """End the review at its next search (its search now ends at once)."""
        self._stopped.set()
        if self._current is not None:
            self._current.cancel()


@dataclass(eq=False)
class _Running:
    """A review under way (or failed, until the next request)."""

    game_id: str
    key: str
    client: str
    limit: Limit
    positions: int
    scores: list[dict[str, Any]] = field(default_factory=list)
    status: ReviewStatus = ReviewStatus.RUNNING
    error: str | None = None
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    searcher: _QueuedSearcher | None = None
    task: asyncio.Task[None] | None = None

    def review(self) -> Review:
        return Review(self.game_id, self.status, positions=self.positions,
                      searched=len(self.scores), limit=_limit_json(self.limit),
                      scores=list(self.scores), error=self.error)

    def add(self, position: Position, found: SearchResult) -> None:
        self.scores.append(position_score(len(self.scores), found.score, position.turn))


class ReviewService:
    """Reviews of the games of ``games``, searched by ``engines`` within ``limits``."""

    def __init__(self, games: GameService, engines: EnginePool, store: GameStore,
                 limits: ReviewLimits | None = None) -> None:
        self.games = games
        self.engines = engines
        self.store = store
        self.limits = ReviewLimits() if limits is None else limits
        self.limits.limit(positions=1)  # checks the limits now, not at the first review
        self._slots = ClientSlots(self.limits.per_client, total=self.limits.at_once)
        self._threads = ThreadPoolExecutor(max_workers=self.limits.at_once,
                                           thread_name_prefix="doublecorner-review")
        self._running: dict[str, _Running] = {}

    async def start(self, game_id: str, seat: Seat | None, *, client: str) -> Review:
        """Start the review of the game (as ``client``'s), unless it runs or is done already.

        :raises GameNotFoundError: there is no such game.
        :raises GameForbiddenError: the game is private and ``seat`` is ``None``.
        :raises GameInProgressError: the game is between people and goes on.
        :raises ReviewLimitError: the client, or the server, runs as many reviews as it may.
        """
        state = await self._open(game_id, seat)
        key = moves_key(state.record)
        stored = await self._stored(game_id, key)
        notes = await asyncio.to_thread(self.store.notes, game_id)
        # No await from here on: no other request can start this game's review meanwhile.
        running = self._running.get(game_id)
        if running is not None and running.status is ReviewStatus.RUNNING:
            return running.review()
        if stored is not None:
            return stored
        if not self._slots.take(client):
            raise ReviewLimitError(
                f"a client may run {self.limits.per_client} and the server "
                f"{self.limits.at_once} reviews at once: try again when one has ended")
        positions = len(state.record.moves) + 1
        running = _Running(game_id, key, client, self.limits.limit(positions=positions),
                           positions)
        running.searcher = _QueuedSearcher(self.engines, asyncio.get_running_loop(), client,
                                           running.add)
        self._running[game_id] = running
        running.task = asyncio.create_task(self._run(running, state.record, notes))
        return running.review()

    async def status(self, game_id: str, seat: Seat | None, *, wait: float = 0.0) -> Review:
        """How the game's review goes; with ``wait``, waits up to that many seconds (at most
        :data:`MAX_WAIT_SECONDS`) for a running one to end.

        :raises GameNotFoundError: there is no such game.
        :raises GameForbiddenError: the game is private and ``seat`` is ``None``.
        :raises GameInProgressError: the game is between people and goes on.
        """
        state = await self._open(game_id, seat)
        running = self._running.get(game_id)
        if running is not None and running.status is ReviewStatus.RUNNING and wait > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(running.ended.wait(), min(wait, MAX_WAIT_SECONDS))
        running = self._running.get(game_id)
        if running is not None:
            return running.review()
        stored = await self._stored(game_id, moves_key(state.record))
        return Review(game_id, ReviewStatus.NONE) if stored is None else stored

    async def pdn(self, game_id: str, seat: Seat | None) -> str:
        """The game annotated by its review.

        :raises GameNotFoundError: there is no such game.
        :raises GameForbiddenError: the game is private and ``seat`` is ``None``.
        :raises GameInProgressError: the game is between people and goes on.
        :raises ReviewNotFoundError: the game has no finished review of its moves.
        """
        state = await self._open(game_id, seat)
        stored = await self._stored(game_id, moves_key(state.record))
        if stored is None or stored.pdn is None:
            raise ReviewNotFoundError(f"game {game_id!r} has no review of its moves as they "
                                      f"are: POST /api/games/{game_id}/review first")
        return stored.pdn

    async def close(self) -> None:
        """Stop the reviews under way and wait for them to end."""
        tasks = []
        for running in self._running.values():
            if running.searcher is not None:
                running.searcher.stop()
            if running.task is not None:
                tasks.append(running.task)
        await asyncio.gather(*tasks, return_exceptions=True)
        self._threads.shutdown(wait=True)

    async def _open(self, game_id: str, seat: Seat | None) -> GameState:
        state = await self.games.get(game_id, seat)
        if is_live_between_people(state):
            raise GameInProgressError(f"game {game_id!r} is being played: its review opens "
                                      "when it ends (fair play)")
        return state

    async def _stored(self, game_id: str, key: str) -> Review | None:
        found = await asyncio.to_thread(self.store.review, game_id)
        if found is None or found[0] != key:
            return None
        kept = json.loads(found[1])
        return Review(game_id, ReviewStatus.DONE, positions=len(kept["scores"]),
                      searched=len(kept["scores"]), limit=kept["limit"], scores=kept["scores"],
                      moves=kept["moves"], summary=kept["summary"], pdn=kept["pdn"])

    async def _run(self, running: _Running, record: GameRecord, notes: str | None) -> None:
        searcher = running.searcher
        assert searcher is not None  # set by start
        try:
            analyses, pdn = await asyncio.get_running_loop().run_in_executor(
                self._threads, _analyse, record, notes, searcher, running.limit)
            kept = {"limit": _limit_json(running.limit), "pdn": pdn,
                    "scores": _scores(analyses, running.scores),
                    "moves": [move_entry(analysis) for analysis in analyses],
                    "summary": {side.lower(): counts
                                for side, counts in summary(analyses).items()}}
            await asyncio.to_thread(self.store.put_review, running.game_id, running.key,
                                    json.dumps(kept))
            running.status = ReviewStatus.DONE
            del self._running[running.game_id]  # the store answers from now on
        except (DraughtsError, StoreError) as error:
            running.status, running.error = ReviewStatus.FAILED, str(error)
        except Exception:  # a fault of the server's own: the review fails, the server goes on
            _log.exception("the review of game %r failed", running.game_id)
            running.status = ReviewStatus.FAILED
            running.error = "the review failed on an error of the server"
        finally:
            self._slots.give_back(running.client)
            running.ended.set()


def _analyse(record: GameRecord, notes: str | None, searcher: _QueuedSearcher,
             limit: Limit) -> tuple[list[MoveAnalysis], str]:
    """Analyse the game (in a review thread); its analyses, and the game annotated as PDN."""
    game = game_tree(record, notes)
    analyses = analyse_game(game, searcher, limit)
    annotate(game, analyses)
    return analyses, str(game)


def _scores(analyses: Sequence[MoveAnalysis],
            searched: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The scores of every position, from the analyses (which count a draw on the board
    as one); the one position searched where the game has no move."""
    if not analyses:
        return searched[:1]
    first = analyses[0]
    return [position_score(0, first.before, first.mover),
            *(position_score(analysis.ply, analysis.after, analysis.mover)
              for analysis in analyses)]


def _limit_json(limit: Limit) -> dict[str, float | None]:
    return {"depth": limit.depth, "seconds": limit.time}
