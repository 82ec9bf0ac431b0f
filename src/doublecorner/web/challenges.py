"""Direct challenges: a game offered to one named account, which accepts or declines it.

The challenger (signed in) names the account, a time control, rated or
casual, and their colour; the challenged player sees it live on their lobby
socket and accepts (the game starts between the two accounts) or declines it;
the challenger may cancel it. An open challenge expires ``challenge_seconds``
after it was made. Challenges are kept in memory, as seeks are. Listeners
hear each challenge added and removed (with why: ``accepted``, ``declined``,
``cancelled`` or ``expired``) and each game started.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from doublecorner.color import Color
from doublecorner.web.account_record import AccountRecord
from doublecorner.web.games import GameService
from doublecorner.web.limits import RateLimiter, ServerLimits, retry_after
from doublecorner.web.lobby_errors import (
    CannotChallengeError,
    ChallengeNotFoundError,
    NotYourChallengeError,
    TooManyChallengesError,
)
from doublecorner.web.seeks import ColorChoice, StartListener, check_time_control, seating
from doublecorner.web.state import GameState


@dataclass(frozen=True, slots=True)
class Challenge:
    """An open challenge: who challenges whom (as they were when it was made), the time
    control, rated or not, the challenger's colour, when it expires (Unix time) and the
    address it came from."""

    id: str
    challenger: AccountRecord
    challenged: AccountRecord
    minutes: float
    increment: float
    rated: bool
    color: ColorChoice
    expires: float
    address: str

    @property
    def players(self) -> list[int]:
        """The accounts of both players."""
        return [self.challenger.id, self.challenged.id]


ChallengeListener = Callable[[str, Challenge, str], None]  # (added | removed, it, why)


class Challenges:
    """The open challenges, within ``limits``; their games start in ``games``. ``now``
    tells the time (Unix seconds); ``chance`` draws the random colours."""

    def __init__(self, games: GameService, limits: ServerLimits, *,
                 chance: random.Random | None = None,
                 now: Callable[[], float] = time.time) -> None:
        self.games = games
        self.limits = limits
        self._chance = chance or random.Random()
        self._now = now
        self._posting = RateLimiter(rate=limits.lobby_post_rate, burst=limits.lobby_post_burst)
        self._open: dict[str, Challenge] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self.on_change: list[ChallengeListener] = []
        self.on_start: list[StartListener] = []

    def of(self, account: int) -> list[Challenge]:
        """The open challenges made by ``account`` or to it, oldest first."""
        return [one for one in self._open.values() if account in one.players]

    def create(self, challenger: AccountRecord, challenged: AccountRecord, *, minutes: float,
               increment: float, rated: bool, color: ColorChoice, address: str) -> Challenge:
        """A new challenge (made from ``address``).

        :raises CannotChallengeError: the challenger names themselves.
        :raises GameRequestError: the time control is out of range.
        :raises TooManyChallengesError: the challenger or the address has as many open
            challenges as it may, or makes them too fast.
        """
        if challenger.id == challenged.id:
            raise CannotChallengeError("you cannot challenge yourself")
        check_time_control(minutes, increment)
        limits = self.limits
        if sum(one.challenger.id == challenger.id for one in self._open.values()
               ) >= limits.challenges_per_account:
            raise TooManyChallengesError(f"an account may have {limits.challenges_per_account} "
                                         "open challenges at once: cancel one first")
        if sum(one.address == address for one in self._open.values()
               ) >= limits.challenges_per_address:
            raise TooManyChallengesError(f"one address may have {limits.challenges_per_address} "
                                         "open challenges at once")
        wait = self._posting.wait(f"account {challenger.id}")
        if wait > 0:
            raise TooManyChallengesError(
                f"too many challenges made: try again in {retry_after(wait)} s", wait)
        challenge = Challenge(id=f"c_{secrets.token_hex(8)}", challenger=challenger,
                              challenged=challenged, minutes=minutes, increment=increment,
                              rated=rated, color=color,
                              expires=self._now() + limits.challenge_seconds, address=address)
        self._open[challenge.id] = challenge
        self._timers[challenge.id] = asyncio.get_running_loop().call_later(
            limits.challenge_seconds, self._remove, challenge.id, "expired")
        self._tell("added", challenge, "")
        return challenge

    async def accept(self, account: AccountRecord, challenge_id: str, *,
                     address: str) -> GameState:
        """The challenged player accepts: the game between the two starts.

        :raises ChallengeNotFoundError: no open challenge has this id.
        :raises NotYourChallengeError: the challenge was made to someone else.
        :raises GameLimitError: the client or the server keeps as many games as it may.
        """
        challenge = self._addressed_to(account, challenge_id, "accepts")
        del self._open[challenge_id]  # before the wait: a second answer finds it gone
        black, white, side = seating(challenge.color, challenge.challenger,
                                     challenge.challenged, self._chance)
        try:
            state = await self.games.start_between(
                black, white, minutes=challenge.minutes, increment=challenge.increment,
                rated=challenge.rated, human=side, creator=address)
        except BaseException:
            self._open[challenge_id] = challenge  # nothing started: it stays open
            raise
        self._remove(challenge_id, "accepted", challenge)
        for listener in self.on_start:
            listener(state, {black.id: Color.BLACK, white.id: Color.WHITE})
        return state

    def decline(self, account: AccountRecord, challenge_id: str) -> None:
        """The challenged player declines.

        :raises ChallengeNotFoundError: no open challenge has this id.
        :raises NotYourChallengeError: the challenge was made to someone else.
        """
        self._addressed_to(account, challenge_id, "declines")
        self._remove(challenge_id, "declined")

    def cancel(self, account: AccountRecord, challenge_id: str) -> None:
        """The challenger takes the challenge back.

        :raises ChallengeNotFoundError: no open challenge has this id.
        :raises NotYourChallengeError: the challenge is someone else's.
        """
        challenge = self._found(challenge_id)
        if challenge.challenger.id != account.id:
            raise NotYourChallengeError(f"challenge {challenge_id!r} is "
                                        f"{challenge.challenger.username!r}'s: only they "
                                        "cancel it")
        self._remove(challenge_id, "cancelled")

    def close(self) -> None:
        """Forget the timers (the server is stopping)."""
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()

    def _found(self, challenge_id: str) -> Challenge:
        challenge = self._open.get(challenge_id)
        if challenge is None:
            raise ChallengeNotFoundError(f"no open challenge {challenge_id!r}: it was answered "
                                         "or cancelled, or it expired")
        return challenge

    def _addressed_to(self, account: AccountRecord, challenge_id: str,
                      does: str) -> Challenge:
        challenge = self._found(challenge_id)
        if challenge.challenged.id != account.id:
            raise NotYourChallengeError(f"challenge {challenge_id!r} was made to "
                                        f"{challenge.challenged.username!r}: only they {does}")
        return challenge

    def _remove(self, challenge_id: str, why: str, taken: Challenge | None = None) -> None:
        """Close a challenge (``taken``: one already taken out of the open ones)."""
        challenge = self._open.pop(challenge_id, None) or taken
        timer = self._timers.pop(challenge_id, None)
        if timer is not None:
            timer.cancel()
        if challenge is not None:
            self._tell("removed", challenge, why)

    def _tell(self, event: str, challenge: Challenge, why: str) -> None:
        for listener in self.on_change:
            listener(event, challenge, why)
