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
# so not kept. Measured again with generation 8 (2026-12-04, the same match as
# engine-protocol programs): -18 Elo (95% -43 to +7), SPRT [-10, 10] H0 after 78
# pairs (docs/training.md).
ITERATION_START_SHARE = 0.6


# On a game clock the soft limit follows how settled the search is: it grows by
# STRETCH_UNSETTLED after an iteration whose best move changed or whose score fell
# by SCORE_FALL or more, up to MAX_STRETCH planned shares (and never past a third
# of the clock), and is cut to SHRINK_SETTLED of the share once the best move has
# held for SETTLED_ITERATIONS iterations: time goes where the search is unsure.
# Against the even share alone (generation 8 on both sides, --clock 5+0.05, no
# tables, 2026-12-04): +32 =151 -16, +28 Elo (95% +5 to +52), SPRT [0, 15] H1
# after 99 pairs, no game lost on time (docs/training.md). A fixed time per move
# has no time to move between moves, so it is left as it is.
STRETCH_UNSETTLED = 1.6
SHRINK_SETTLED = 0.6
SETTLED_ITERATIONS = 4
MAX_STRETCH = 3.0
SCORE_FALL = 30  # hundredths of a man


@dataclass(frozen=True, slots=True)
class TimeBudget:
    """``soft``: start no new iteration after it; ``hard``: stop the search at it (seconds).

    ``ceiling`` is how far an unsettled search may push ``hard`` on a game clock
    (see :class:`TimeStretch`); ``None`` for a fixed time per move, which stays as it is.
    """

    soft: float | None
    hard: float | None
    ceiling: float | None = None


def budget(limit: Limit) -> TimeBudget:
    """The time to spend on one move.

    A fixed time per move is the hard limit. On a game clock the move gets
    an even share of what is left, plus most of the increment, and never
    more than a third of the clock; an unsettled search may stretch it up to
    ``ceiling`` (:class:`TimeStretch`). Either way no iteration starts past
    :data:`ITERATION_START_SHARE` of the hard limit.

    >>> budget(Limit(time=0.1))
    TimeBudget(soft=0.06, hard=0.1, ceiling=None)
    >>> round(budget(Limit(clock=60, increment=1)).hard, 2)
    2.8
    >>> round(budget(Limit(clock=60, increment=1)).ceiling, 2)
    8.39
    >>> budget(Limit(depth=5))
    TimeBudget(soft=None, hard=None, ceiling=None)
    """
    hard = limit.time
    ceiling = None
    if limit.clock is not None:
        available = max(0.001, limit.clock - CLOCK_RESERVE)
        moves = limit.moves_to_go or DEFAULT_MOVES_TO_GO
        target = available / moves + 0.8 * limit.increment
        clock_hard = min(available / 3, target)
        clock_ceiling = min(available / 3, MAX_STRETCH * target)
        hard = clock_hard if hard is None else min(hard, clock_hard)
        ceiling = round(max(hard, clock_ceiling if limit.time is None
                            else min(limit.time, clock_ceiling)), 6)
    if hard is None:
        return TimeBudget(None, None)
    return TimeBudget(round(hard * ITERATION_START_SHARE, 6), round(hard, 6), ceiling)


class TimeStretch:
    """The soft and hard limits of one search, moved after each finished iteration.

    >>> stretch = TimeStretch(budget(Limit(clock=60)))
    >>> stretch.soft, stretch.hard
    (1.199, 1.998333)
    >>> stretch.after_iteration(move_changed=True, score_change=0)
    >>> round(stretch.soft, 3), round(stretch.hard, 3)
    (1.918, 3.197)
    >>> for _ in range(4):
    ...     stretch.after_iteration(move_changed=False, score_change=0)
    >>> round(stretch.soft, 3), round(stretch.hard, 3)
    (0.719, 1.998)
    """

    def __init__(self, times: TimeBudget) -> None:
        self._times = times
        self._factor = 1.0
        self._held = 0

    def after_iteration(self, *, move_changed: bool, score_change: int) -> None:
        """Note how the last iteration went: whether its best move changed, and how its
        score moved from the iteration before (for the side to move)."""
        self._held = 0 if move_changed else self._held + 1
        if move_changed or score_change <= -SCORE_FALL:
            self._factor = max(1.0, self._factor) * STRETCH_UNSETTLED
        elif self._held >= SETTLED_ITERATIONS:
            self._factor = SHRINK_SETTLED

    @property
    def soft(self) -> float | None:
        soft, ceiling = self._times.soft, self._times.ceiling
        if soft is None or ceiling is None:
            return soft
        return min(soft * self._factor, ceiling * ITERATION_START_SHARE)

    @property
    def hard(self) -> float | None:
        hard, ceiling = self._times.hard, self._times.ceiling
        if hard is None or ceiling is None:
            return hard
        return min(hard * max(1.0, self._factor), ceiling)
