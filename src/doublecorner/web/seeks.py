"""The lobby's open seeks: games offered to anyone, until one accepts or the author leaves.

A seek belongs to a signed-in account (a seek shows its author's name and
rating, and a rated one rates two accounts): a time control (``minutes``
each and ``increment`` seconds a move), rated or casual, and the colour its
author wants (black, white, or random). Anyone signed in but its author
accepts it: the game starts at once between the two accounts
(:meth:`GameService.start_between`), and both players' other seeks go (they
are playing now). Its author cancels it, or leaves: a seek lives while its
author has a lobby socket open (:class:`LobbyHub`), and goes ``grace``
seconds after the last one closes (or after it was posted with none open)
unless one opens again meanwhile.

Seeks are kept in memory: a restart of the server clears the lobby (its
sockets reconnect to an empty one). Listeners hear each seek added and
removed (the lobby socket tells everyone) and each game started (both
players are told where to go).
"""

from __future__ import annotations

import asyncio
import enum
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from doublecorner.color import Color
from doublecorner.web.account_record import AccountRecord
from doublecorner.web.games import (
    MAX_CLOCK_MINUTES,
    MAX_INCREMENT_SECONDS,
    GameRequestError,
    GameService,
    utc_now,
)
from doublecorner.web.limits import RateLimiter, ServerLimits, retry_after
from doublecorner.web.lobby_errors import (
    NotYourSeekError,
    OwnSeekError,
    SeekNotFoundError,
    TooManySeeksError,
)
from doublecorner.web.lobby_hub import LobbyHub
from doublecorner.web.state import GameState


class ColorChoice(str, enum.Enum):
    """The side the author of a seek or challenge plays."""

    BLACK = "black"
    WHITE = "white"
    RANDOM = "random"


def seating(choice: ColorChoice, author: AccountRecord, other: AccountRecord,
            chance: random.Random) -> tuple[AccountRecord, AccountRecord, Color]:
    """Black's and White's players of a game whose ``author`` chose ``choice``, and the
    author's side.

    >>> ann = AccountRecord(id=1, username="Ann", created="", password_hash="")
    >>> bob = AccountRecord(id=2, username="Bob", created="", password_hash="")
    >>> black, white, side = seating(ColorChoice.WHITE, ann, bob, random.Random(1))
    >>> black.username, white.username, side.name
    ('Bob', 'Ann', 'WHITE')
    """
    if choice is ColorChoice.RANDOM:
        side = chance.choice([Color.BLACK, Color.WHITE])
    else:
        side = Color[choice.name]
    return (author, other, side) if side is Color.BLACK else (other, author, side)


def check_time_control(minutes: float, increment: float) -> None:
    """Refuse a time control the games' clocks do not take.

    :raises GameRequestError: ``minutes`` is not above 0 and at most 180, or ``increment``
        not 0 to 60.
    """
    if not 0 < minutes <= MAX_CLOCK_MINUTES:
        raise GameRequestError(f"'minutes' must be above 0 and at most {MAX_CLOCK_MINUTES:g}, "
                               f"not {minutes:g}")
    if not 0 <= increment <= MAX_INCREMENT_SECONDS:
        raise GameRequestError(f"'increment' must be 0 to {MAX_INCREMENT_SECONDS:g} seconds, "
                               f"not {increment:g}")


@dataclass(frozen=True, slots=True)
class Seek:
    """An open seek: its author (as they were when posting it), the time control, whether
    it is rated, the author's colour, when it was posted and from which address."""

    id: str
    author: AccountRecord
    minutes: float
    increment: float
    rated: bool
    color: ColorChoice
    created: str
    address: str


SeekListener = Callable[[str, Seek], None]  # ("added" | "removed", the seek)
StartListener = Callable[[GameState, dict[int, Color]], None]  # the game, each player's side


class SeekBook:
    """The open seeks, within ``limits``; games start in ``games``; ``hub`` tells who is
    present. ``chance`` draws the random colours."""

    def __init__(self, games: GameService, hub: LobbyHub, limits: ServerLimits, *,
                 chance: random.Random | None = None,
                 clock: Callable[[], str] = utc_now) -> None:
        self.games = games
        self.hub = hub
        self.limits = limits
        self._chance = chance or random.Random()
        self._clock = clock
        self._posting = RateLimiter(rate=limits.lobby_post_rate, burst=limits.lobby_post_burst)
        self._seeks: dict[str, Seek] = {}
        self._leaving: dict[int, asyncio.TimerHandle] = {}
        self.on_change: list[SeekListener] = []
        self.on_start: list[StartListener] = []
        hub.on_arrive.append(self._arrived)
        hub.on_leave.append(self._left)

    def open(self) -> list[Seek]:
        """The open seeks, oldest first."""
        return list(self._seeks.values())

    def post(self, author: AccountRecord, *, minutes: float, increment: float, rated: bool,
             color: ColorChoice, address: str) -> Seek:
        """A new seek of ``author`` (posted from ``address``).

        :raises GameRequestError: the time control is out of range.
        :raises TooManySeeksError: the author or the address has as many open seeks as it
            may, or posts too fast.
        """
        check_time_control(minutes, increment)
        mine = sum(seek.author.id == author.id for seek in self._seeks.values())
        if mine >= self.limits.seeks_per_account:
            raise TooManySeeksError(f"an account may have {self.limits.seeks_per_account} "
                                    "open seeks at once: cancel one first")
        from_address = sum(seek.address == address for seek in self._seeks.values())
        if from_address >= self.limits.seeks_per_address:
            raise TooManySeeksError(f"one address may have {self.limits.seeks_per_address} "
                                    "open seeks at once")
        wait = self._posting.wait(f"account {author.id}")
        if wait > 0:
            raise TooManySeeksError(f"too many seeks posted: try again in {retry_after(wait)} s",
                                    wait)
        seek = Seek(id=f"s_{secrets.token_hex(8)}", author=author, minutes=minutes,
                    increment=increment, rated=rated, color=color, created=self._clock(),
                    address=address)
        self._seeks[seek.id] = seek
        self._tell("added", seek)
        if not self.hub.is_present(author.id):
            self._left(author.id)  # posted without a lobby socket: the grace starts now
        return seek

    def cancel(self, account: AccountRecord, seek_id: str) -> None:
        """The author takes their seek back.

        :raises SeekNotFoundError: no open seek has this id.
        :raises NotYourSeekError: the seek is another account's.
        """
        seek = self._found(seek_id)
        if seek.author.id != account.id:
            raise NotYourSeekError(f"seek {seek_id!r} is {seek.author.username!r}'s: only its "
                                   "author cancels it")
        self._remove(seek)

    async def accept(self, account: AccountRecord, seek_id: str, *,
                     address: str) -> GameState:
        """``account`` takes up the seek: the game between it and the author starts.

        :raises SeekNotFoundError: no open seek has this id (it went meanwhile).
        :raises OwnSeekError: the seek is ``account``'s own.
        :raises GameLimitError: the client or the server keeps as many games as it may.
        """
        seek = self._found(seek_id)
        if seek.author.id == account.id:
            raise OwnSeekError(f"seek {seek_id!r} is your own: another player accepts it")
        del self._seeks[seek_id]  # before the wait: a second acceptance finds it gone
        black, white, side = seating(seek.color, seek.author, account, self._chance)
        try:
            state = await self.games.start_between(
                black, white, minutes=seek.minutes, increment=seek.increment,
                rated=seek.rated, human=side, creator=address)
        except BaseException:
            self._seeks[seek_id] = seek  # nothing started: the seek stays open
            raise
        self._tell("removed", seek)
        for other in [one for one in self._seeks.values()
                      if one.author.id in (seek.author.id, account.id)]:
            self._remove(other)  # both are playing now
        for listener in self.on_start:
            listener(state, {black.id: Color.BLACK, white.id: Color.WHITE})
        return state

    def close(self) -> None:
        """Forget the timers (the server is stopping)."""
        for handle in self._leaving.values():
            handle.cancel()
        self._leaving.clear()

    def _found(self, seek_id: str) -> Seek:
        seek = self._seeks.get(seek_id)
        if seek is None:
            raise SeekNotFoundError(f"no open seek {seek_id!r}: it was accepted or cancelled, "
                                    "or its author left")
        return seek

    def _remove(self, seek: Seek) -> None:
        if self._seeks.pop(seek.id, None) is not None:
            self._tell("removed", seek)

    def _tell(self, event: str, seek: Seek) -> None:
        for listener in self.on_change:
            listener(event, seek)

    def _arrived(self, account: int) -> None:
        handle = self._leaving.pop(account, None)
        if handle is not None:
            handle.cancel()

    def _left(self, account: int) -> None:
        if account in self._leaving or not any(
                seek.author.id == account for seek in self._seeks.values()):
            return
        self._leaving[account] = asyncio.get_running_loop().call_later(
            self.limits.seek_grace_seconds, self._gone, account)

    def _gone(self, account: int) -> None:
        """The grace is over and the author has not come back: their seeks go."""
        self._leaving.pop(account, None)
        if self.hub.is_present(account):
            return
        for seek in [one for one in self._seeks.values() if one.author.id == account]:
            self._remove(seek)
