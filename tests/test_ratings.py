"""Glicko-2 (doublecorner.ratings) against Glickman's worked example and its own invariants."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from doublecorner.ratings import (
    DEFAULT_DEVIATION,
    MIN_DEVIATION,
    Game,
    Rating,
    rate_game,
)


def test_glickmans_worked_example() -> None:
    # "Example of the Glicko-2 system" (Glickman, 2013): r' = 1464.06, RD' = 151.52,
    # sigma' = 0.05999 (the paper rounds its intermediate steps, hence the tolerance).
    new = Rating(1500, 200, 0.06).updated([
        Game(Rating(1400, 30), 1.0), Game(Rating(1550, 100), 0.0), Game(Rating(1700, 300), 0.0)])
    assert new.rating == pytest.approx(1464.06, abs=0.02)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    idle = Rating(1700, 100, 0.06).updated([])
    assert idle.rating == 1700 and idle.deviation > 100
    assert Rating(1500, DEFAULT_DEVIATION).updated([]).deviation == DEFAULT_DEVIATION


def test_a_draw_between_equals_changes_no_rating() -> None:
    first, second = rate_game(Rating(1600, 80), Rating(1600, 80), 0.5)
    assert first.rating == pytest.approx(1600) and second.rating == pytest.approx(1600)
    assert first.deviation < 80


def test_provisional_until_the_deviation_falls() -> None:
    rating = Rating()
    assert rating.is_provisional
    opponent = Rating(1500, 60)
    for score in [1.0, 0.0, 0.5] * 4:
        rating = rating.updated([Game(opponent, score)])
    assert not rating.is_provisional


@pytest.mark.parametrize("bad", [
    {"deviation": 0}, {"volatility": -0.1}, {"rating": float("nan")}])
def test_impossible_ratings_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="rating"):
        Rating(**bad)


def test_a_score_is_a_win_a_draw_or_a_loss() -> None:
    with pytest.raises(ValueError, match=r"0\.7"):
        Game(Rating(), 0.7)


ratings = st.builds(Rating, st.floats(500, 2800), st.floats(MIN_DEVIATION, DEFAULT_DEVIATION),
                    st.floats(0.03, 0.1))


@given(ratings, ratings, st.sampled_from([0.0, 0.5, 1.0]))
def test_the_winner_never_loses_points_and_deviations_stay_in_bounds(
        first: Rating, second: Rating, score: float) -> None:
    new_first, new_second = rate_game(first, second, score)
    if score == 1.0:
        assert new_first.rating >= first.rating and new_second.rating <= second.rating
    if score == 0.0:
        assert new_first.rating <= first.rating and new_second.rating >= second.rating
    for new in (new_first, new_second):
        assert MIN_DEVIATION <= new.deviation <= DEFAULT_DEVIATION
