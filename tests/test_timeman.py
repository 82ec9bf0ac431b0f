"""Time management: the budget of one move and how an unsettled search stretches it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from doublecorner.engine.limit import Limit
from doublecorner.engine.timeman import (
    CLOCK_RESERVE,
    MAX_STRETCH,
    SCORE_FALL,
    SETTLED_ITERATIONS,
    TimeStretch,
    budget,
)

outcomes = st.lists(st.tuples(st.booleans(), st.integers(-3 * SCORE_FALL, 3 * SCORE_FALL)),
                    max_size=30)


@given(clock=st.floats(0.01, 3600), increment=st.floats(0, 30), history=outcomes)
def test_a_stretched_search_stays_within_a_third_of_the_clock(
        clock: float, increment: float, history: list[tuple[bool, int]]) -> None:
    times = budget(Limit(clock=clock, increment=increment))
    assert times.soft is not None and times.hard is not None and times.ceiling is not None
    stretch = TimeStretch(times)
    third = max(0.001, clock - CLOCK_RESERVE) / 3
    for move_changed, score_change in history:
        stretch.after_iteration(move_changed=move_changed, score_change=score_change)
        assert stretch.soft is not None and stretch.hard is not None
        assert stretch.soft <= stretch.hard <= times.ceiling <= third + 1e-6
        assert stretch.hard <= MAX_STRETCH * times.hard + 1e-5  # both rounded to 1e-6 s
        assert stretch.hard >= times.hard  # the planned share is never cut short


@given(seconds=st.floats(0.001, 60), history=outcomes)
def test_a_fixed_time_a_move_never_moves(seconds: float,
                                         history: list[tuple[bool, int]]) -> None:
    times = budget(Limit(time=seconds))
    stretch = TimeStretch(times)
    for move_changed, score_change in history:
        stretch.after_iteration(move_changed=move_changed, score_change=score_change)
        assert (stretch.soft, stretch.hard) == (times.soft, times.hard)


def test_a_changed_move_or_a_falling_score_stretches_and_a_settled_move_shrinks() -> None:
    times = budget(Limit(clock=300, increment=3))
    assert times.soft is not None and times.hard is not None
    changed = TimeStretch(times)
    changed.after_iteration(move_changed=True, score_change=0)
    fell = TimeStretch(times)
    fell.after_iteration(move_changed=False, score_change=-SCORE_FALL)
    for stretched in (changed, fell):
        assert stretched.soft is not None and stretched.soft > times.soft
        assert stretched.hard is not None and stretched.hard > times.hard
    settled = TimeStretch(times)
    for _ in range(SETTLED_ITERATIONS - 1):
        settled.after_iteration(move_changed=False, score_change=1 - SCORE_FALL)
        assert settled.soft == times.soft  # not yet settled
    settled.after_iteration(move_changed=False, score_change=1 - SCORE_FALL)
    assert settled.soft is not None and settled.soft < times.soft
    assert settled.hard == times.hard


def test_no_limit_of_time_has_no_budget() -> None:
    stretch = TimeStretch(budget(Limit(depth=5)))
    stretch.after_iteration(move_changed=True, score_change=-SCORE_FALL)
    assert (stretch.soft, stretch.hard) == (None, None)
