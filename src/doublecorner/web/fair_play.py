"""Fair play: no engine help for a game between people while it goes on.

A game between people is one whose sides are played from two browsers: a
friend's game by invite, and any other mode of people that comes (the
lobby's, rated games). It is *live* until it ends. While it is, the server
gives no engine help for it: :meth:`FairPlay.check` refuses (``403``, code
``fair_play``) an analysis or an explorer request

- that names the game (the page sends the id of the game it shows), or
- for a position that is the position on the board of a live game between
  people in which the request holds a seat: by a token it sends, or by the
  account its session is signed in as.

Only the position itself counts, not the positions a search could reach
from it. Engine games, analysis boards and two players at one board are no
games between people here: at one board both sides sit at one screen, so
whatever help it shows both see, and refusing it would only take away its
use as a lesson. The review of a game (:mod:`~doublecorner.web.review`)
opens when it ends.

>>> from doublecorner.web.record import GameRecord
>>> record = GameRecord(id="g_1", mode=GameMode.FRIEND, created="", updated="",
...                     black="Ann", white="Bob", start_fen="B:W21-32:B1-12")
>>> is_between_people(record), is_live_between_people(GameState.of(record))
(True, True)
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from doublecorner.position import Position
from doublecorner.web.record import GameMode, GameRecord
from doublecorner.web.state import GameState, ending, replay
from doublecorner.web.store import GameStore
from doublecorner.web.tokens import token_hash

# The modes that are not played between people in two browsers; any other is.
NOT_BETWEEN_PEOPLE = (GameMode.ENGINE, GameMode.ANALYSIS, GameMode.TWO_PLAYER)


def is_between_people(record: GameRecord) -> bool:
    """Whether people play the game's sides from two browsers."""
    return record.mode not in NOT_BETWEEN_PEOPLE


def is_live_between_people(state: GameState) -> bool:
    """Whether the game is between people and goes on: no engine help for it now."""
    return is_between_people(state.record) and state.ending is None


class FairPlayError(PermissionError):
    """Engine help asked for a game between people that goes on."""

    code = "fair_play"


class FairPlay:
    """The check of every analysis and explorer request against the live games in ``store``."""

    def __init__(self, store: GameStore) -> None:
        self.store = store

    async def check(self, position: Position, *, game_id: str | None = None,
                    tokens: Sequence[str] = (), account: int | None = None) -> None:
        """Refuse engine help with ``position`` for a request that names ``game_id`` and
        holds ``tokens`` and the seats of ``account``.

        :raises FairPlayError: the request names a live game between people, or the
            position is on the board of one in which it holds a seat.
        :raises StoreError: a stored game is damaged.
        """
        if game_id is None and not tokens and account is None:
            return  # nothing to check: no query
        refusal = await asyncio.to_thread(self._refusal, position, game_id,
                                          [token_hash(token) for token in tokens], account)
        if refusal is not None:
            raise FairPlayError(refusal)

    def _refusal(self, position: Position, game_id: str | None, hashes: list[str],
                 account: int | None) -> str | None:
        """Why the request is refused (in a worker thread: it reads and replays games)."""
        named = None if game_id is None else self.store.get(game_id)
        if (named is not None and is_between_people(named)
                and ending(named, replay(named)) is None):
            return (f"no engine help for game {named.id!r} while it is played: analysis and "
                    "the explorer open for it when it ends (fair play)")
        for record in self.store.unfinished_games_of(hashes, account=account,
                                                     except_modes=NOT_BETWEEN_PEOPLE):
            board = replay(record)
            if ending(record, board) is None and board.position() == position:
                return (f"this position is on the board of game {record.id!r}, in which you "
                        "hold a seat and which goes on: no engine help for it until it ends "
                        "(fair play)")
        return None
