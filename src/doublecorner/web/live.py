"""The live stream of a game on ``WS /api/games/{id}/live``: every change, as it is made.

On connecting, the client gets ``{"type": "game", "event": "sync", "game":
Game}``, the game as it is; then one such message per change (``event``
``changed``, ``joined`` when a friend takes the invited seat, ``deleted``).
A reload or a dropped connection resyncs by connecting again. The client
may send ``{"type": "ping"}`` (answered ``{"type": "pong"}``); anything
else gets an ``error`` message and the stream goes on, unless the client
sends nothing else (:data:`MAX_ERRORS_IN_A_ROW` in a row: closed with 1008). A private game's
stream needs ``?token=`` with a token of one of its seats, or the session of an
account that holds one.

A stream opened with a seat (its token, or the session of the account that
holds it) is that player's; any other is a spectator's. After the ``sync``,
and whenever someone comes or goes, every stream of the game gets
``{"type": "spectators", "count": N}``, and the hub's presence listeners
(the referee of rated games) hear which seats have a stream open.

The game service calls :meth:`LiveHub.publish` with each change, with the
game's lock held, so every stream sees the changes in the order they were
made. A stream that falls :data:`MAX_BACKLOG` messages behind is closed
(code 1013, try again later): reconnecting resyncs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from doublecorner.web.account_record import SignedIn
from doublecorner.web.games import GameForbiddenError, GameNotFoundError, GameService
from doublecorner.web.json_body import parse_json
from doublecorner.web.schemas import GameBody
from doublecorner.web.state import GameState
from doublecorner.web.tokens import Seat, seat_of

MAX_BACKLOG = 100  # messages a stream may fall behind before it is dropped
MAX_ERRORS_IN_A_ROW = 20  # a client that errs this often is not a page with a bug
POLICY_VIOLATION = 1008
TRY_AGAIN_LATER = 1013

Message = dict[str, Any]


def game_message(state: GameState, event: str) -> Message:
    """The message that tells a stream about ``state`` (``event``: what happened)."""
    return {"type": "game", "event": event,
            "game": GameBody.of(state).model_dump(mode="json")}


Stream = asyncio.Queue[Message | None]  # None: the stream is dropped


class LiveHub:
    """The open streams of each game (each with its seat, ``None``: a spectator's), the
    changes handed to them, and listeners of who is present."""

    def __init__(self) -> None:
        self._streams: defaultdict[str, dict[Stream, Seat | None]] = defaultdict(dict)
        self.on_presence: list[Callable[[str, set[Seat]], None]] = []

    def publish(self, state: GameState, event: str) -> None:
        """Send a change of ``state``'s game to each of its streams."""
        streams = self._streams.get(state.record.id)
        if not streams:
            return
        self._send(state.record.id, game_message(state, event))

    def _send(self, game_id: str, message: Message) -> None:
        streams = self._streams.get(game_id, {})
        for queue in list(streams):
            if queue.qsize() >= MAX_BACKLOG:
                del streams[queue]
                queue.put_nowait(None)  # the stream closes; the client resyncs
            else:
                queue.put_nowait(message)

    def subscribe(self, game_id: str, seat: Seat | None = None) -> Stream:
        """A new stream of the game, ``seat``'s (``None``: a spectator's)."""
        queue: Stream = asyncio.Queue()
        self._streams[game_id][queue] = seat
        return queue

    def unsubscribe(self, game_id: str, queue: Stream) -> None:
        """The stream has closed: the others hear the new count."""
        streams = self._streams.get(game_id)
        if streams is not None and streams.pop(queue, False) is not False:
            if not streams:
                del self._streams[game_id]
            self.counted(game_id)

    def stream_count(self, game_id: str) -> int:
        """How many streams follow the game."""
        return len(self._streams.get(game_id, ()))

    def spectators(self, game_id: str) -> int:
        """How many streams follow the game without a seat of it."""
        return sum(seat is None for seat in self._streams.get(game_id, {}).values())

    def present(self, game_id: str) -> set[Seat]:
        """The seats with a stream of the game open."""
        return {seat for seat in self._streams.get(game_id, {}).values() if seat is not None}

    def counted(self, game_id: str) -> None:
        """Someone came or went: every stream of the game gets the spectators' count, and
        the presence listeners the seats present."""
        self._send(game_id, {"type": "spectators", "count": self.spectators(game_id)})
        present = self.present(game_id)
        for listener in self.on_presence:
            listener(game_id, present)


async def _stream_seat(websocket: WebSocket, game_id: str, service: GameService,
                       account: SignedIn | None) -> Seat | None:
    """The seat the stream is opened with: its ``?token=``'s, else one the signed-in
    ``account`` holds; ``None``: a spectator.

    :raises GameNotFoundError: there is no such game.
    :raises GameForbiddenError: the token is not one of the game's.
    """
    token = websocket.query_params.get("token")
    if token is not None:
        seat = seat_of(token, await service.seats(game_id))
        if seat is None:
            raise GameForbiddenError("the token is not one of this game's")
        return seat
    if account is None:
        return None
    held = [seat for seat, holder in (await service.seat_holders(game_id)).items()
            if holder == account.account.id]
    return held[0] if held else None


async def serve_live(websocket: WebSocket, game_id: str, hub: LiveHub,
                     service: GameService, account: SignedIn | None = None) -> None:
    """Serve one client's live stream of ``game_id`` until it leaves (``account``: the
    session the handshake came with, if any)."""
    try:
        seat = await _stream_seat(websocket, game_id, service, account)
    except (GameNotFoundError, GameForbiddenError) as error:
        await websocket.close(POLICY_VIOLATION, str(error)[:120])
        return
    queue = hub.subscribe(game_id, seat)  # before the first read: no change is missed
    try:
        try:
            state = await service.get(game_id, seat)
        except (GameNotFoundError, GameForbiddenError) as error:
            await websocket.close(POLICY_VIOLATION, str(error)[:120])
            return
        await websocket.accept()
        await websocket.send_json(game_message(state, "sync"))
        hub.counted(game_id)
        sender = asyncio.create_task(send_queued(websocket, queue))
        try:
            await _receive_all(websocket)
        finally:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sender
    finally:
        hub.unsubscribe(game_id, queue)


async def send_queued(websocket: WebSocket, queue: asyncio.Queue[Message | None]) -> None:
    """Send ``queue``'s messages to ``websocket`` until it closes; ``None`` in the queue
    closes it, as one that fell behind (the live streams' and the lobby's sockets)."""
    while True:
        message = await queue.get()
        try:
            if message is None:
                await websocket.close(TRY_AGAIN_LATER, "fell behind: connect again")
                return
            await websocket.send_json(message)
        except (WebSocketDisconnect, RuntimeError, OSError):
            return


async def _receive_all(websocket: WebSocket) -> None:
    errors_in_a_row = 0
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        try:
            request = parse_json(text) if text is not None else None
        except json.JSONDecodeError as error:
            request = {"error": error.msg}
        if isinstance(request, dict) and request == {"type": "ping"}:
            reply: Message = {"type": "pong"}
            errors_in_a_row = 0
        else:
            reply = {"type": "error", "error": "the live stream takes only {\"type\": \"ping\"}"}
            errors_in_a_row += 1
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await websocket.send_json(reply)
            if errors_in_a_row >= MAX_ERRORS_IN_A_ROW:
                await websocket.close(POLICY_VIOLATION, "too many bad messages")
                return
