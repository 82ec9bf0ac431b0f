"""The referee of rated games: it ends those that end without anyone asking.

Two endings need no request: a flag that falls (the clock of the side to
move runs out) and an abandonment. The referee keeps a timer for each rated
game in play: at the moment the running clock would reach zero it has the
game service write the time forfeit (and so rate the game), whether or not
anyone is looking; at the start of the server it does the same for the rated
games it finds in play, those whose flag fell while it was down at once.

A player is *present* while a live stream of the game is open with their
seat (their session or token). A player of a rated game in play who has
left it (was present, and is no more) while the opponent is present, for
``abandon_seconds`` on end (a closed tab, a lost connection not regained),
loses by abandonment. While both are absent nobody is waiting, and the clock
decides; a player not yet seen since the server started (a page still on its
way, or a restart) has left nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from doublecorner.color import Color
from doublecorner.web.game_clock import time_left
from doublecorner.web.games import GameNotFoundError, GameService
from doublecorner.web.state import GameState
from doublecorner.web.store import StoreError
from doublecorner.web.tokens import Seat

FLAG_MARGIN = 0.05  # seconds after zero: the flag has surely fallen when the timer fires

_log = logging.getLogger(__name__)


class Referee:
    """Timers that end the rated games of ``games``: flags, and abandonment after
    ``abandon_seconds``; ``now`` tells the time (Unix seconds) as the clocks do."""

    def __init__(self, games: GameService, *, abandon_seconds: float,
                 now: Callable[[], float] = time.time) -> None:
        self.games = games
        self.abandon_seconds = abandon_seconds
        self._now = now
        self._in_play: set[str] = set()
        self._present: dict[str, set[Seat]] = {}
        self._seen: dict[str, set[Seat]] = {}  # the seats that had a stream open
        self._flags: dict[str, asyncio.TimerHandle] = {}
        self._leaving: dict[tuple[str, Color], asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        """Take up the rated games in play (after a restart: a fallen flag ends its game)."""
        for state in await self.games.rated_in_play():
            if state.ending is None:
                self.changed(state, "changed")
            else:  # it ended on time while the server was down
                await self._run(self.games.settle(state.record.id))

    def changed(self, state: GameState, event: str) -> None:
        """A game changed (as the game service says): its timers follow."""
        record = state.record
        if not record.rated:
            return
        game_id = record.id
        self._cancel(self._flags.pop(game_id, None))
        if state.ending is not None or event == "deleted":
            self._in_play.discard(game_id)
            self._seen.pop(game_id, None)
            for side in Color:
                self._cancel(self._leaving.pop((game_id, side), None))
            return
        self._in_play.add(game_id)
        clock = record.clock
        if clock is not None and clock.since is not None:
            turn = state.board.turn
            left = time_left(clock, turn, turn=turn, now=self._now())
            self._flags[game_id] = asyncio.get_running_loop().call_later(
                left + FLAG_MARGIN, self._flag_fell, game_id)
        self._judge_presence(game_id)

    def presence(self, game_id: str, seats: set[Seat]) -> None:
        """The seats with a live stream of the game open are now ``seats``."""
        if seats:
            self._present[game_id] = seats
        else:
            self._present.pop(game_id, None)
        if game_id in self._in_play:
            self._seen.setdefault(game_id, set()).update(seats)
            self._judge_presence(game_id)

    def close(self) -> None:
        """Stop every timer (the server is stopping)."""
        for handle in [*self._flags.values(), *self._leaving.values()]:
            handle.cancel()
        self._flags.clear()
        self._leaving.clear()
        for task in self._tasks:
            task.cancel()

    def _judge_presence(self, game_id: str) -> None:
        present, seen = self._present.get(game_id, set()), self._seen.get(game_id, set())
        for side in Color:
            key = (game_id, side)
            seat = Seat.of(side)
            is_left = seat in seen and seat not in present and Seat.of(side.opponent) in present
            if not is_left:
                self._cancel(self._leaving.pop(key, None))
            elif key not in self._leaving:
                self._leaving[key] = asyncio.get_running_loop().call_later(
                    self.abandon_seconds, self._abandoned, game_id, side)

    def _flag_fell(self, game_id: str) -> None:
        self._flags.pop(game_id, None)
        self._spawn(self.games.settle(game_id))

    def _abandoned(self, game_id: str, side: Color) -> None:
        self._leaving.pop((game_id, side), None)
        self._spawn(self.games.abandon(game_id, side))

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._run(work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _run(work: Coroutine[Any, Any, Any]) -> None:
        try:
            await work
        except (GameNotFoundError, StoreError) as error:  # deleted meanwhile, or the disk
            _log.warning("the referee could not end a game: %s", error)

    @staticmethod
    def _cancel(handle: asyncio.TimerHandle | None) -> None:
        if handle is not None:
            handle.cancel()
