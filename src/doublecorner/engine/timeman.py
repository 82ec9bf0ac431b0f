"""Time management: how long one search may take under a :class:`Limit`."""

from __future__ import annotations

from dataclasses import dataclass

from doublecorner.engine.limit import Limit

# Moves the clock is assumed to have to last when no time control says.
DEFAULT_MOVES_TO_GO = 30
# Kept in hand on the clock for the moves after this one and for overheads.
CLOCK_RESERVE = 0.05
# A new iteration takes about as long as all earlier ones together, so one
# that starts after this share of the budget would rarely finish. Starting
# iterations up to the deadline of a fixed time per move instead (a cut
# iteration still counts where a root move beat the last best) was measured
# against this at 0.1 s/move over the deck twice (2026-12-01, 624 games, the
# network on both sides): +114 =412 -98, +9 Elo (95% -7 to +25). Not proven,
# so not kept.
ITERATION_START_SHARE = 0.6


@dataclass(frozen=True, slots=True)
class TimeBudget:
    """``soft``: start no new iteration after it; ``hard``: stop the search at it (seconds)."""

    soft: float | None
    hard: float | None


def budget(limit: Limit) -> TimeBudget:
    """The time to spend on one move.

    A fixed time per move is the hard limit. On a game clock the move gets
    an even share of what is left, plus most of the increment, and never
    more than a third of the clock. Either way no iteration starts past
    :data:`ITERATION_START_SHARE` of the hard limit.

    >>> budget(Limit(time=0.1))
    TimeBudget(soft=0.06, hard=0.1)
    >>> round(budget(Limit(clock=60, increment=1)).hard, 2)
    2.8
    >>> budget(Limit(depth=5))
    TimeBudget(soft=None, hard=None)
    """
    hard = limit.time
    if limit.clock is not None:
        available = max(0.001, limit.clock - CLOCK_RESERVE)
        moves = limit.moves_to_go or DEFAULT_MOVES_TO_GO
        target = available / moves + 0.8 * limit.increment
        clock_hard = min(available / 3, target)
        hard = clock_hard if hard is None else min(hard, clock_hard)
    if hard is None:
        return TimeBudget(None, None)
    return TimeBudget(round(hard * ITERATION_START_SHARE, 6), round(hard, 6))
