"""A player's public page: their rating and its history, results and games, and all as PDN.

Anyone may read a profile (``GET /api/users/{username}``): the account's
Glicko-2 rating (provisional while its deviation is above 110), its last
:data:`MAX_HISTORY` rated games as points of a history (the rating after each,
oldest first), the games it won, drew and lost, and the list of its games.
The games are those between two people (friend games: the lobby, challenges,
rematches, invites) that are not private and in which the account holds a
seat; its games against the engine and its analyses are its own business.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from doublecorner.web.account_record import AccountRecord
from doublecorner.web.db_thread import DbThread
from doublecorner.web.lobby_errors import UserNotFoundError
from doublecorner.web.pdn_games import game_pdn
from doublecorner.web.record import GameRecord
from doublecorner.web.store import GameStore, RatingChange, Results

MAX_HISTORY = 500  # rated games a profile's history shows: the last ones
PDN_BATCH = 100  # games read at a time for a download of them all


@dataclass(frozen=True, slots=True)
class Profile:
    """An account's public page: the account, its results, how many games it lists, its
    rating history (oldest first) and the names of the opponents in it."""

    account: AccountRecord
    results: Results
    games: int
    history: list[RatingChange]
    opponents: dict[int, str]


class Profiles:
    """The profiles of the accounts in ``store``, read on the thread ``db``."""

    def __init__(self, store: GameStore, db: DbThread) -> None:
        self.store = store
        self.db = db

    async def account(self, username: str) -> AccountRecord:
        """The account with this username (ignoring case).

        :raises UserNotFoundError: there is none (or it was deleted).
        """
        found = await self.db.run(self.store.account_named, username)
        if found is None:
            raise UserNotFoundError(f"no player is called {username[:40]!r}")
        return found

    async def profile(self, username: str) -> Profile:
        """The account's profile.

        :raises UserNotFoundError: no account has this username.
        """
        account = await self.account(username)
        results = await self.db.run(self.store.results_of, account.id)
        games = await self.db.run(self.store.count_people_games_of, account.id)
        history = await self.db.run(self.store.rating_history, account.id, MAX_HISTORY)
        opponents = await self.db.run(self.store.account_names,
                                      [change.opponent_id for change in history])
        return Profile(account, results, games, history, opponents)

    async def games(self, username: str, *, limit: int, offset: int
                    ) -> tuple[list[GameRecord], int]:
        """``limit`` of the account's games from the ``offset``-th, newest first, and how
        many it has.

        :raises UserNotFoundError: no account has this username.
        """
        account = await self.account(username)
        records = await self.db.run(self.store.people_games_of, account.id, limit,
                                    offset=offset)
        return records, await self.db.run(self.store.count_people_games_of, account.id)

    async def pdn(self, account: AccountRecord) -> AsyncIterator[str]:
        """Every game of the account as PDN, oldest first, a game at a time (read
        :data:`PDN_BATCH` at a time: a long list is never held whole)."""
        offset = 0
        while True:
            batch = await self.db.run(self.store.people_games_of, account.id, PDN_BATCH,
                                      offset=offset, newest_first=False)
            for record in batch:
                yield game_pdn(record) + "\n"
            if len(batch) < PDN_BATCH:
                return
            offset += len(batch)
