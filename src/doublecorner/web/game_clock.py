"""The clock of a friend game: minutes each, an increment per move, a flag when time runs out.

The clock is kept as each side's seconds left when it last switched and the
moment (Unix time) the running side's time started; the time left now is
worked out from that, so nothing has to tick on the server. It starts with
the first move (the first player's thinking time is free) and a side whose
time is gone loses on time at the next look at the game.

>>> clock = start_clock(minutes=1, increment=2)
>>> clock = after_move(clock, Color.BLACK, now=100.0)   # the first move starts it
>>> clock = after_move(clock, Color.WHITE, now=110.0)   # White thought 10 s, gets 2 back
>>> [time_left(clock, side, turn=Color.BLACK, now=120.0) for side in (Color.WHITE, Color.BLACK)]
[52.0, 50.0]
>>> is_flagged(clock, Color.BLACK, now=170.0)
True
"""

from __future__ import annotations

import dataclasses

from doublecorner.color import Color
from doublecorner.web.record import Clock


def start_clock(*, minutes: float, increment: float) -> Clock:
    """A clock of ``minutes`` each and ``increment`` seconds per move, not yet running."""
    seconds = minutes * 60.0
    return Clock(initial=seconds, increment=increment, black=seconds, white=seconds, since=None)


def time_left(clock: Clock, color: Color, *, turn: Color, now: float) -> float:
    """``color``'s seconds left at ``now``, with ``turn`` to move (whose clock runs)."""
    left = clock.left(color)
    if clock.since is not None and color is turn:
        left -= now - clock.since
    return max(0.0, left)


def is_flagged(clock: Clock, turn: Color, *, now: float) -> bool:
    """Whether ``turn``, to move, has run out of time at ``now``."""
    return clock.since is not None and time_left(clock, turn, turn=turn, now=now) <= 0.0


def after_move(clock: Clock, mover: Color, *, now: float) -> Clock:
    """The clock once ``mover`` has moved at ``now``: its time taken off, the increment added,
    and the other side's time running."""
    if clock.since is None:
        return dataclasses.replace(clock, since=now)
    left = clock.left(mover) - (now - clock.since) + clock.increment
    field = "black" if mover is Color.BLACK else "white"
    return dataclasses.replace(clock, since=now, **{field: left})
