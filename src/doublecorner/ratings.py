"""Glicko-2 ratings: a player's strength, how sure we are of it, and its update after games.

Mark Glickman's system ("Example of the Glicko-2 system", 2013): a rating ``r``,
a rating deviation ``RD`` (the uncertainty: large for a new player, smaller with
every game) and a volatility ``sigma`` (how erratic the player's results are).
A rating period's games update all three at once; the web app makes every
rated game its own period, so a rating moves as soon as the game ends.

No web or engine import: the arithmetic serves the web app, matches and tools alike.

Glickman's worked example, a player of 1500 (RD 200) who beat a 1400 (RD 30)
and lost to a 1550 (RD 100) and a 1700 (RD 300):

>>> player = Rating(1500, 200, 0.06)
>>> new = player.updated([Game(Rating(1400, 30), 1.0), Game(Rating(1550, 100), 0.0),
...                       Game(Rating(1700, 300), 0.0)])
>>> round(new.rating, 2), round(new.deviation, 2), round(new.volatility, 6)
(1464.05, 151.52, 0.059996)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# The Glicko-2 scale: r' = (r - 1500) / 173.7178, RD' = RD / 173.7178.
SCALE = 173.7178
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
# The system constant tau: how much the volatility may change over a period
# (Glickman suggests 0.3 to 1.2; lower is steadier).
TAU = 0.5
CONVERGENCE = 0.000001  # the volatility iteration's tolerance (Glickman's epsilon)
# A rating is provisional while its deviation is above this (lichess's threshold,
# on the same Glicko-2 scale): the player has not played enough to be placed.
PROVISIONAL_DEVIATION = 110.0
# Deviations never go below this: a rating always stays able to move.
MIN_DEVIATION = 30.0


@dataclass(frozen=True, slots=True)
class Rating:
    """A Glicko-2 rating: ``rating``, its ``deviation`` (RD) and ``volatility`` (sigma)."""

    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY

    def __post_init__(self) -> None:
        if not all(math.isfinite(value) for value in (self.rating, self.deviation,
                                                      self.volatility)):
            raise ValueError(f"a rating's numbers must be finite: {self}")
        if self.deviation <= 0 or self.volatility <= 0:
            raise ValueError(f"a rating's deviation and volatility must be above 0: {self}")

    @property
    def is_provisional(self) -> bool:
        """Whether the deviation is still above :data:`PROVISIONAL_DEVIATION`.

        >>> Rating().is_provisional, Rating(1500, 80).is_provisional
        (True, False)
        """
        return self.deviation > PROVISIONAL_DEVIATION

    def updated(self, games: Sequence[Game]) -> Rating:
        """The rating after one rating period with ``games`` (none: only the RD grows)."""
        mu, phi = (self.rating - DEFAULT_RATING) / SCALE, self.deviation / SCALE
        if not games:
            grown = math.sqrt(phi * phi + self.volatility * self.volatility)
            return Rating(self.rating, min(grown * SCALE, DEFAULT_DEVIATION), self.volatility)
        inverse_variance = 0.0
        improvement = 0.0
        for game in games:
            opponent_mu = (game.opponent.rating - DEFAULT_RATING) / SCALE
            weight = _g(game.opponent.deviation / SCALE)
            expected = 1 / (1 + math.exp(-weight * (mu - opponent_mu)))
            inverse_variance += weight * weight * expected * (1 - expected)
            improvement += weight * (game.score - expected)
        variance = 1 / inverse_variance
        delta = variance * improvement
        volatility = _new_volatility(phi, self.volatility, variance, delta)
        phi_star = math.sqrt(phi * phi + volatility * volatility)
        new_phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / variance)
        new_mu = mu + new_phi * new_phi * improvement
        deviation = min(max(new_phi * SCALE, MIN_DEVIATION), DEFAULT_DEVIATION)
        return Rating(DEFAULT_RATING + SCALE * new_mu, deviation, volatility)


@dataclass(frozen=True, slots=True)
class Game:
    """One game of a rating period: the opponent's rating before it, and the score (1, ½, 0)."""

    opponent: Rating
    score: float

    def __post_init__(self) -> None:
        if self.score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game's score is 0, 0.5 or 1, not {self.score}")


def rate_game(first: Rating, second: Rating, first_score: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one game between them (its own rating period).

    ``first_score`` is the first player's: 1 a win, 0.5 a draw, 0 a loss.

    >>> winner, loser = rate_game(Rating(), Rating(), 1.0)
    >>> round(winner.rating), round(loser.rating), round(winner.deviation)
    (1662, 1338, 290)
    """
    return (first.updated([Game(second, first_score)]),
            second.updated([Game(first, 1.0 - first_score)]))


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _new_volatility(phi: float, sigma: float, variance: float, delta: float) -> float:
    """Step 5 of Glickman's paper: the Illinois algorithm for the new volatility."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        exp_x = math.exp(x)
        denominator = phi * phi + variance + exp_x
        return (exp_x * (delta * delta - phi * phi - variance - exp_x)
                / (2 * denominator * denominator)) - (x - a) / (TAU * TAU)

    upper = a
    if delta * delta > phi * phi + variance:
        lower = math.log(delta * delta - phi * phi - variance)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        lower = a - k * TAU
    f_upper, f_lower = f(upper), f(lower)
    while abs(lower - upper) > CONVERGENCE:
        middle = upper + (upper - lower) * f_upper / (f_lower - f_upper)
        f_middle = f(middle)
        if f_middle * f_lower <= 0:
            upper, f_upper = lower, f_lower
        else:
            f_upper /= 2
        lower, f_lower = middle, f_middle
    return math.exp(upper / 2)
