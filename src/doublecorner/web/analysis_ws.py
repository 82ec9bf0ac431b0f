"""The live analysis stream on ``WS /api/analysis``: one search at a time per connection.

The client sends ``{"action": "start", "fen": ..., "moves": [...]}`` or
``{"action": "stop"}``. For each search the server sends an ``info`` message
per finished depth and then one ``done`` with the best move, when the client
stops it, starts another, or the server's time cap ends it. Bad input gets an
``error`` message and starts nothing; the connection stays open, unless the
client sends nothing but bad input (:data:`MAX_ERRORS_IN_A_ROW` messages):
then it is closed with code 1008 (policy violation).

A client (an address) may start at most ``rate`` searches a second (with a
burst) and run at most ``per_client`` at once, over all its connections; a
start beyond either gets an ``error`` (with ``retry_after`` seconds for the
rate). Searches wait behind games' searches in the engine pool, and a game
may end one early (its ``done`` then comes before the time cap).

A ``start`` may name the game whose position it is (``"game": id``). Each is
checked for fair play (:mod:`~doublecorner.web.fair_play`) against the game
it names and the seats the connection holds (the session of its handshake's
cookie, the tokens of its ``Authorization`` header): a refused one gets an
``error`` with ``"code": "fair_play"`` and starts nothing.

The search runs in the engine pool; its per-depth reports arrive in the
pool's thread and are handed to the event loop through a queue, which one
task drains to the socket, so messages keep their order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect

from doublecorner.board import Board
from doublecorner.engine import Limit, SearchResult
from doublecorner.errors import DraughtsError, EngineError
from doublecorner.fen import STARTING_FEN
from doublecorner.web.engine_pool import EnginePool
from doublecorner.web.engine_queue import Priority
from doublecorner.web.fair_play import FairPlayError
from doublecorner.web.json_body import parse_json
from doublecorner.web.limits import ClientSlots, RateLimiter, retry_after
from doublecorner.web.schemas import AnalysisRequest
from doublecorner.web.validation import first_error

WIN_CP = 10000  # ``score_cp`` of a won game (a lost one is the negative)
MAX_ERRORS_IN_A_ROW = 20  # a client that errs this often is not a page with a bug
POLICY_VIOLATION = 1008
CLOSE_WAIT = 5.0  # seconds for the last messages to go out before a close

Message = dict[str, Any]
# Refuses (FairPlayError) to analyse the board for the game a start names, if any.
FairPlayCheck = Callable[[Board, "str | None"], Awaitable[None]]


def info_message(result: SearchResult) -> Message:
    """The ``info`` message for one finished depth.

    >>> from doublecorner.engine import Score
    >>> from doublecorner.kernel.scores import MATE
    >>> result = SearchResult(None, Score(MATE - 3), 5, 7, 1000, 0.5, ())
    >>> message = info_message(result)
    >>> message["score"], message["score_cp"], message["nps"]
    ('win in 3', 10000, 2000)
    """
    score = result.score
    score_cp = WIN_CP if score.is_win else -WIN_CP if score.is_loss else score.value
    return {"type": "info", "depth": result.depth, "seldepth": result.seldepth,
            "score": str(score), "score_cp": score_cp, "nodes": result.nodes,
            "nps": result.nps, "pv": [str(move) for move in result.pv]}


def error_message(error: str) -> Message:
    return {"type": "error", "error": error}


@dataclass(frozen=True)
class AnalysisLimits:
    """What one client may ask of the analysis streams: starts by ``rate``, searches at
    once by ``slots``."""

    rate: RateLimiter
    slots: ClientSlots


class AnalysisSession:
    """One client's analysis stream; :meth:`run` serves it until the client leaves."""

    def __init__(self, websocket: WebSocket, engines: EnginePool, *, max_message: int,
                 limits: AnalysisLimits, client: str,
                 fair_play: FairPlayCheck | None = None) -> None:
        self.websocket = websocket
        self.engines = engines
        self.max_message = max_message
        self.limits = limits
        self.client = client
        self.fair_play = fair_play
        self._outbox: asyncio.Queue[Message] = asyncio.Queue()
        self._search: asyncio.Task[None] | None = None
        self._stop = threading.Event()
        self._errors_in_a_row = 0

    async def run(self) -> None:
        """Accept the connection and answer its messages until it closes."""
        await self.websocket.accept()
        sender = asyncio.create_task(self._send_all())
        try:
            while True:
                message = await self.websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                text = message.get("text")
                if text is None:
                    self._post(error_message("send JSON text messages, not binary ones"))
                else:
                    await self._handle(text)
                if self._errors_in_a_row >= MAX_ERRORS_IN_A_ROW:
                    with contextlib.suppress(TimeoutError):  # the errors go out first
                        await asyncio.wait_for(self._outbox.join(), CLOSE_WAIT)
                    await self.websocket.close(POLICY_VIOLATION, "too many bad messages")
                    return
        finally:
            await self._stop_search()
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sender

    async def _handle(self, text: str) -> None:
        if len(text) > self.max_message:
            self._post(error_message(f"the message ({len(text)} characters) is over the "
                                     f"limit of {self.max_message}"))
            return
        try:
            request = AnalysisRequest.model_validate(parse_json(text))
        except json.JSONDecodeError as error:
            self._post(error_message(f"the message is not JSON: {error}"))
            return
        except ValidationError as error:
            self._post(error_message(first_error(error.errors())))
            return
        self._errors_in_a_row = 0
        if request.action == "stop":
            await self._stop_search()
            return
        try:
            board = _board(request.fen, request.moves)
        except (DraughtsError, BadPositionError) as error:
            self._post(error_message(str(error)))
            return
        if self.fair_play is not None:
            try:
                await self.fair_play(board, request.game)
            except FairPlayError as error:
                self._post({**error_message(str(error)), "code": error.code})
                return
        await self._stop_search()  # its ``done`` goes out before the new search's messages
        wait = self.limits.rate.wait(self.client)
        if wait > 0:
            seconds = retry_after(wait)
            self._post({**error_message(f"too many analyses started: try again in {seconds} s"),
                        "retry_after": seconds})
            return
        if not self.limits.slots.take(self.client):
            self._post(error_message(f"at most {self.limits.slots.per_client} analyses at once "
                                     "from one client: stop one first"))
            return
        self._stop = threading.Event()
        self._search = asyncio.create_task(self._analyse(board, self._stop))

    async def _analyse(self, board: Board, stop: threading.Event) -> None:
        try:
            await self._run_search(board, stop)
        finally:
            self.limits.slots.give_back(self.client)

    async def _run_search(self, board: Board, stop: threading.Event) -> None:
        if not board.legal_moves:
            self._post({"type": "done", "bestmove": None})
            return
        loop = asyncio.get_running_loop()

        def on_info(result: SearchResult) -> None:  # runs in the engine's thread
            try:
                loop.call_soon_threadsafe(self._post, info_message(result))
            except RuntimeError:  # the loop has closed: nobody is listening any more
                stop.set()

        try:
            found = await self.engines.search(board.position(), Limit(),
                                              history=board.position_history(),
                                              halfmove_clock=board.halfmove_clock,
                                              on_info=on_info, stop=stop,
                                              priority=Priority.ANALYSIS, client=self.client)
        except EngineError as error:
            self._post(error_message(str(error)))
            return
        self._post({"type": "done", "bestmove": None if found.move is None else str(found.move)})

    async def _stop_search(self) -> None:
        self._stop.set()
        if self._search is not None:
            await self._search
            self._search = None

    def _post(self, message: Message) -> None:
        if message["type"] == "error":
            self._errors_in_a_row += 1
        self._outbox.put_nowait(message)

    async def _send_all(self) -> None:
        while True:
            message = await self._outbox.get()
            try:
                await self.websocket.send_json(message)
            except (WebSocketDisconnect, RuntimeError, OSError):
                return  # the client has gone; the receiving loop ends the session
            finally:
                self._outbox.task_done()


class BadPositionError(ValueError):
    """A move of a ``start`` message that cannot be played; names the move's number."""


def _board(fen: str | None, moves: list[str]) -> Board:
    """The board at ``fen`` (default: the start) after ``moves``.

    :raises InvalidFenError: a bad FEN.
    :raises BadPositionError: a move that is not legal where it is played.
    """
    board = Board(STARTING_FEN if fen is None else fen)
    for number, text in enumerate(moves, start=1):
        try:
            board.push_str(text)
        except DraughtsError as error:
            raise BadPositionError(f"moves[{number - 1}]: {error}") from None
    return board
