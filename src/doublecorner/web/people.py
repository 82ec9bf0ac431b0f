"""Play between people, put together: the lobby, challenges, the watch list, profiles, the referee.

One object that the app makes once: it joins the parts to each other (the
lobby's sockets hear of seeks, challenges and the watch list; the referee
hears who is present on each game's live stream), hears every change of a
game (:meth:`People.changed`, after the live streams) and starts and stops
with the app.
"""

from __future__ import annotations

from doublecorner.web.challenges import Challenges
from doublecorner.web.db_thread import DbThread
from doublecorner.web.games import GameService
from doublecorner.web.limits import ServerLimits
from doublecorner.web.live import LiveHub
from doublecorner.web.lobby_hub import LobbyHub
from doublecorner.web.lobby_socket import Lobby
from doublecorner.web.profiles import Profiles
from doublecorner.web.referee import Referee
from doublecorner.web.seeks import SeekBook
from doublecorner.web.state import GameState
from doublecorner.web.store import GameStore
from doublecorner.web.watch import WatchList


class People:
    """The parts of play between people over ``store`` and ``games``, within ``limits``;
    ``live`` is the games' live streams."""

    def __init__(self, store: GameStore, games: GameService, live: LiveHub,
                 limits: ServerLimits) -> None:
        self._db = DbThread("doublecorner-people")
        hub = LobbyHub()
        self.watch = WatchList(store, self._db, live.spectators)
        self.lobby = Lobby(hub, SeekBook(games, hub, limits), Challenges(games, limits),
                           self.watch, max_message=limits.lobby_message_bytes)
        self.profiles = Profiles(store, self._db)
        self.referee = Referee(games, abandon_seconds=limits.abandon_seconds)
        live.on_presence.append(self.referee.presence)

    def changed(self, state: GameState, event: str) -> None:
        """A game changed (``event``, as the game service says)."""
        self.referee.changed(state, event)
        self.watch.changed(state, event)

    async def start(self) -> None:
        """Take up the rated games in play (the app is starting)."""
        await self.referee.start()

    async def close(self) -> None:
        """Stop the timers and finish the reads under way (the app is stopping)."""
        self.referee.close()
        self.lobby.seeks.close()
        self.lobby.challenges.close()
        await self.watch.close()
        self._db.close()
