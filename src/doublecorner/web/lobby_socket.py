"""The lobby's live socket, ``WS /api/lobby``: open seeks, one's challenges, games to watch.

On connecting the client gets ``{"type": "lobby", "you": Player | null,
"seeks": [...], "challenges": [...], "games": [...]}``: who it is signed in
as, every open seek, the open challenges made by it or to it, and the watch
list. Then, as things happen:

- ``{"type": "seek", "event": "added" | "removed", "seek": Seek}`` to everyone;
- ``{"type": "challenge", "event": "added" | "removed", "challenge": Challenge,
  "reason": null | "accepted" | "declined" | "cancelled" | "expired"}`` to its
  two players;
- ``{"type": "started", "game": ID, "color": "black" | "white", "rated": bool}``
  to each player of a game that a seek or a challenge started (the author of a
  seek learns so that the other accepted it: both go to the game);
- ``{"type": "games", "games": [...]}``, the watch list again when it changed.

The client may send ``{"type": "ping"}`` (answered ``{"type": "pong"}``);
anything else gets an ``error`` message, and a client that sends nothing else
(:data:`MAX_ERRORS_IN_A_ROW` in a row) is closed with 1008, one that sends a
message over the limit with 1009. A socket that falls behind is closed with
1013: connecting again resyncs it. While an account has a lobby socket open,
its seeks stay (see :mod:`~doublecorner.web.seeks`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from doublecorner.color import Color
from doublecorner.web.account_record import SignedIn
from doublecorner.web.challenges import Challenge, Challenges
from doublecorner.web.json_body import parse_json
from doublecorner.web.live import send_queued
from doublecorner.web.lobby_hub import LobbyHub
from doublecorner.web.lobby_schemas import ChallengeBody, PlayerBody, SeekBody, WatchedGameBody
from doublecorner.web.schemas import side_name
from doublecorner.web.seeks import Seek, SeekBook
from doublecorner.web.state import GameState
from doublecorner.web.watch import WatchedGame, WatchList

MAX_ERRORS_IN_A_ROW = 20  # a client that errs this often is not a page with a bug
POLICY_VIOLATION = 1008
TOO_BIG = 1009

Message = dict[str, Any]


def seek_message(event: str, seek: Seek) -> Message:
    return {"type": "seek", "event": event, "seek": SeekBody.of(seek).model_dump(mode="json")}


def challenge_message(event: str, challenge: Challenge, why: str) -> Message:
    return {"type": "challenge", "event": event,
            "challenge": ChallengeBody.of(challenge).model_dump(mode="json"),
            "reason": why or None}


def started_message(state: GameState, color: Color) -> Message:
    return {"type": "started", "game": state.record.id, "color": side_name(color),
            "rated": state.record.rated}


def games_message(games: list[WatchedGame]) -> Message:
    return {"type": "games",
            "games": [WatchedGameBody.of(game).model_dump(mode="json") for game in games]}


class Lobby:
    """The lobby's parts that its socket shows: the sockets (``hub``), the open ``seeks``,
    the ``challenges`` and the ``watch`` list. Their news reach the sockets from here."""

    def __init__(self, hub: LobbyHub, seeks: SeekBook, challenges: Challenges,
                 watch: WatchList, *, max_message: int) -> None:
        self.hub = hub
        self.seeks = seeks
        self.challenges = challenges
        self.watch = watch
        self.max_message = max_message
        seeks.on_change.append(lambda event, seek: hub.send_all(seek_message(event, seek)))
        challenges.on_change.append(
            lambda event, challenge, why: hub.send_to(
                challenge.players, challenge_message(event, challenge, why)))
        for source in (seeks.on_start, challenges.on_start):
            source.append(self._started)
        watch.on_list.append(lambda games: hub.send_all(games_message(games)))
        watch.is_listened = lambda: not hub.is_empty()  # nobody in the lobby: no list to make

    def _started(self, state: GameState, players: dict[int, Color]) -> None:
        for account, color in players.items():
            self.hub.send_to([account], started_message(state, color))

    async def serve(self, websocket: WebSocket, account: SignedIn | None) -> None:
        """Serve one client's lobby socket until it leaves (``account``: its session)."""
        await websocket.accept()
        outbox = self.hub.join(None if account is None else account.account.id)
        try:
            await websocket.send_json(await self._hello(account))
            sender = asyncio.create_task(send_queued(websocket, outbox))
            try:
                await self._receive_all(websocket)
            finally:
                sender.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sender
        except (WebSocketDisconnect, RuntimeError, OSError):
            return  # the client left before its first message
        finally:
            self.hub.leave(outbox)

    async def _hello(self, account: SignedIn | None) -> Message:
        you = None if account is None else account.account
        challenges = [] if you is None else self.challenges.of(you.id)
        return {"type": "lobby",
                "you": None if you is None else PlayerBody.of_account(you).model_dump(),
                "seeks": [SeekBody.of(seek).model_dump(mode="json")
                          for seek in self.seeks.open()],
                "challenges": [ChallengeBody.of(one).model_dump(mode="json")
                               for one in challenges],
                "games": games_message(await self.watch.games())["games"]}

    async def _receive_all(self, websocket: WebSocket) -> None:
        errors_in_a_row = 0
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if len(text or message.get("bytes") or b"") > self.max_message:
                await websocket.close(TOO_BIG, "message too big")
                return
            try:
                request = parse_json(text) if text is not None else None
            except json.JSONDecodeError:
                request = None
            if request == {"type": "ping"}:
                reply: Message = {"type": "pong"}
                errors_in_a_row = 0
            else:
                reply = {"type": "error",
                         "error": "the lobby socket takes only {\"type\": \"ping\"}"}
                errors_in_a_row += 1
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await websocket.send_json(reply)
                if errors_in_a_row >= MAX_ERRORS_IN_A_ROW:
                    await websocket.close(POLICY_VIOLATION, "too many bad messages")
                    return
