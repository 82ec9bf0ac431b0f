"""Game clocks for matches: time for the whole game, plus an increment a move.

A match on a clock (``doublecorner match --clock 60+0.5``) gives each side
``seconds`` for the game; after each of its moves the time it took is taken
off its clock and the increment added. A side whose clock runs out before
its move arrives loses on time. Players are told the time left (a
:class:`ClockReading`) and budget their own time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from doublecorner.color import Color
from doublecorner.engine.limit import Limit
from doublecorner.errors import EngineError, quoted
from doublecorner.text_numbers import plain_float

# A clock longer than a day is a typing error, not a match.
MAX_CLOCK_SECONDS = 86_400.0


@dataclass(frozen=True, slots=True)
class GameClock:
    """Each side's time for the game and the seconds added after each of its moves.

    >>> GameClock.parse("60+0.5")
    GameClock(seconds=60.0, increment=0.5)
    >>> str(GameClock.parse("90"))
    '90+0'
    >>> GameClock.parse("1+x")
    Traceback (most recent call last):
    ...
    doublecorner.errors.EngineError: clock '1+x' is not SECONDS or SECONDS+INCREMENT (e.g. 60+0.5)
    """

    seconds: float
    increment: float = 0.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.seconds) and 0 < self.seconds <= MAX_CLOCK_SECONDS):
            raise EngineError(f"a clock's time must be above 0 and at most "
                              f"{MAX_CLOCK_SECONDS:g} seconds, not {self.seconds:g}")
        if not (math.isfinite(self.increment) and 0 <= self.increment <= self.seconds):
            raise EngineError(f"a clock's increment must be 0 to {self.seconds:g} seconds "
                              f"(its time), not {self.increment:g}")

    @classmethod
    def parse(cls, text: str) -> GameClock:
        """``SECONDS`` or ``SECONDS+INCREMENT``.

        :raises EngineError: anything else, or numbers out of range.
        """
        seconds, plus, increment = text.partition("+")  # float() skips the spaces
        try:
            return cls(plain_float(seconds), plain_float(increment) if plus else 0.0)
        except ValueError:
            raise EngineError(f"clock {quoted(text)} is not SECONDS or SECONDS+INCREMENT "
                              "(e.g. 60+0.5)") from None

    def __str__(self) -> str:
        return f"{self.seconds:g}+{self.increment:g}"


@dataclass(frozen=True, slots=True)
class ClockReading:
    """The clocks as a player sees them when it is asked for a move (seconds)."""

    black: float
    white: float
    increment: float
    turn: Color

    @property
    def own(self) -> float:
        """The time left to the side to move."""
        return self.black if self.turn is Color.BLACK else self.white

    def limit(self) -> Limit:
        """The mover's search limit: its time left (at least a millisecond) and the increment."""
        return Limit(clock=max(self.own, 0.001), increment=self.increment)
