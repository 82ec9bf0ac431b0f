"""Match statistics: score, Elo difference with a 95 % interval, likelihood of superiority."""

from __future__ import annotations

import math
from dataclasses import dataclass

Z_95 = 1.959964  # two-sided 95 % normal quantile


@dataclass(frozen=True, slots=True)
class MatchScore:
    """Wins, draws and losses from the first player's point of view.

    >>> score = MatchScore(wins=60, draws=30, losses=10)
    >>> round(score.score, 3), round(score.elo), [round(x) for x in score.elo_interval]
    (0.75, 191, [134, 258])
    >>> round(score.los, 4)
    1.0
    """

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points per game (a win 1, a draw 1/2)."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.5

    @property
    def elo(self) -> float:
        """The Elo difference the score implies (infinite at 0 % or 100 %)."""
        return elo_from_score(self.score)

    @property
    def elo_interval(self) -> tuple[float, float]:
        """A 95 % interval for the Elo difference, from the spread of the game results."""
        if not self.games:
            return (-math.inf, math.inf)
        mean = self.score
        variance = (self.wins * (1 - mean) ** 2 + self.draws * (0.5 - mean) ** 2
                    + self.losses * mean ** 2) / self.games
        margin = Z_95 * math.sqrt(variance / self.games)
        return (elo_from_score(mean - margin), elo_from_score(mean + margin))

    @property
    def los(self) -> float:
        """Likelihood of superiority: the chance the first player is the stronger."""
        decisive = self.wins + self.losses
        if not decisive:
            return 0.5
        return 0.5 * (1 + math.erf((self.wins - self.losses) / math.sqrt(2 * decisive)))

    def summary(self) -> str:
        """``+W =D -L``, score, Elo with its interval, LOS, on one line."""
        low, high = self.elo_interval
        return (f"+{self.wins} ={self.draws} -{self.losses}  score {100 * self.score:.1f}%  "
                f"Elo {signed(self.elo)} (95% {signed(low)} to {signed(high)})  "
                f"LOS {100 * self.los:.1f}%")


def elo_from_score(score: float) -> float:
    """The logistic Elo difference a score per game implies (infinite at 0 or 1).

    >>> round(elo_from_score(0.75), 1), round(elo_from_score(0.25), 1), elo_from_score(1.0)
    (190.8, -190.8, inf)
    """
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def signed(value: float) -> str:
    """An Elo figure as text: rounded, with its sign (``+inf`` and ``-inf`` as such).

    What rounds to zero is ``0``, without a sign: an even score computes as
    ``-0.0``, and "Elo -0" reads as a loss.

    >>> signed(52.4), signed(-7.6), signed(float("-inf")), signed(-0.0), signed(-0.4)
    ('+52', '-8', '-inf', '0', '0')
    """
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    if round(value) == 0:
        return "0"
    return f"{value:+.0f}"
