"""The games anyone may watch: those in progress between two people, rated first.

The list (``GET /api/watch``, and the lobby socket's ``games`` messages) holds
the public games between two people (friend mode: from the lobby, a
challenge, a rematch or an invite taken) that go on and moved in the last
:data:`IDLE_SECONDS`: rated games first, then by their players' average
rating (a player without an account counts as a new one, 1500), then the
last moved first; at most :data:`MAX_WATCHED`. Each shows how many watch it
(the spectators of its live stream). Anyone may open one and follow its live
stream.

The list is made again, and handed to the listeners of :attr:`WatchList.on_list`
(the lobby's sockets), when a game between people starts, ends, is joined or
deleted, while someone listens: at most one making at a time and one a
:data:`LIST_EVERY_SECONDS`, the changes meanwhile folded into the next (with
hundreds of games in play, games start and end several times a second).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from doublecorner.ratings import DEFAULT_RATING
from doublecorner.web.db_thread import DbThread
from doublecorner.web.record import GameMode, GameRecord
from doublecorner.web.state import GameState
from doublecorner.web.store import GameStore, StoreError

IDLE_SECONDS = 3600  # a game nobody moved in for an hour is not on the list
MAX_WATCHED = 50
CANDIDATES = 500  # games read to make the list (the last moved)
LIST_EVERY_SECONDS = 1.0

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class WatchedGame:
    """A game of the watch list, and how many watch it now."""

    state: GameState
    spectators: int


def average_rating(record: GameRecord) -> float:
    """The players' average rating at the start (1500 for a player without an account)."""
    ratings = record.ratings
    found = [DEFAULT_RATING if rating is None else rating.before.rating
             for rating in ((None, None) if ratings is None else (ratings.black, ratings.white))]
    return sum(found) / 2


class WatchList:
    """The games in progress of ``store`` (read on ``db``), each with its number of
    ``spectators``; ``now`` tells the time (Unix seconds)."""

    def __init__(self, store: GameStore, db: DbThread, spectators: Callable[[str], int], *,
                 now: Callable[[], float] = time.time) -> None:
        self.store = store
        self.db = db
        self.spectators = spectators
        self._now = now
        self.on_list: list[Callable[[list[WatchedGame]], None]] = []
        # Whether anyone listens now (the lobby sets it: whether it has sockets open).
        self.is_listened: Callable[[], bool] = lambda: bool(self.on_list)
        self._making: asyncio.Task[None] | None = None
        self._again = False

    async def games(self) -> list[WatchedGame]:
        """The list as it is now."""
        since = datetime.datetime.fromtimestamp(self._now() - IDLE_SECONDS,
                                                datetime.timezone.utc)
        records = await self.db.run(self.store.games_in_play,
                                    since.strftime("%Y-%m-%dT%H:%M:%SZ"), CANDIDATES)
        # Replaying the games is Python work of some milliseconds each: off the event loop.
        states = [state for state in await asyncio.to_thread(lambda: [*map(GameState.of, records)])
                  if state.ending is None]
        # The store gives the last moved first; a stable sort keeps that order among equals.
        states.sort(key=lambda state: (not state.record.rated, -average_rating(state.record)))
        return [WatchedGame(state, self.spectators(state.record.id))
                for state in states[:MAX_WATCHED]]

    def changed(self, state: GameState, event: str) -> None:
        """A game changed (``event``, as the game service says): when the list may change
        with it, it is made again and handed to the listeners."""
        if state.record.mode is not GameMode.FRIEND or not self.is_listened():
            return
        if event in ("started", "joined", "deleted") or state.ending is not None:
            self._again = True
            if self._making is None or self._making.done():
                self._making = asyncio.get_running_loop().create_task(self._make())

    async def _make(self) -> None:
        while self._again:
            self._again = False
            try:
                listed = await self.games()
            except StoreError as error:  # the next change tries again
                _log.warning("cannot make the watch list: %s", error)
                return
            for listener in self.on_list:
                listener(listed)
            await asyncio.sleep(LIST_EVERY_SECONDS)  # the changes meanwhile wait for it

    async def close(self) -> None:
        """Stop making the list (the server is stopping)."""
        if self._making is not None:
            self._making.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._making
