"""The sequential probability ratio test on game pairs: accept or reject an engine change.

H0 says the first player is ``elo0`` Elo stronger than the second, H1 that it
is ``elo1`` stronger. After each finished pair the log-likelihood ratio (LLR)
of the two is compared with Wald's bounds ``ln(beta / (1 - alpha))`` and
``ln((1 - beta) / alpha)``: below the lower one H0 is accepted, above the
upper one H1, in between the match goes on. ``alpha`` is the chance of
accepting H1 when H0 holds, ``beta`` the chance of accepting H0 when H1 holds.

It is the generalized SPRT on the pentanomial counts, as fastchess computes
it for logistic Elo: the likelihood of each hypothesis is that of
the distribution over the five pair results that is closest to the observed
one (the maximum-likelihood estimate) among those whose expected score is the
hypothesis's (M. Van den Bergh, "Comments on normalized Elo", proposition 1.1).
That distribution is ``p_i = q_i / (1 + theta * (a_i - s))`` for observed
frequencies ``q_i`` of pair scores ``a_i`` and expected score ``s``, with
``theta`` the root of ``sum(q_i * (a_i - s) / (1 + theta * (a_i - s))) = 0``,
found here by bisection. Unlike the normal approximation
``LLR ~ N * ((x - s0)^2 - (x - s1)^2) / (2 * var)`` over ``N`` pairs of mean
score ``x`` and variance ``var``, to which it comes close over many pairs, it
stays sensible when one side wins nearly every pair (the variance near zero),
as an engine against a random mover does.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from doublecorner.match.pentanomial import PAIR_SCORES, Pentanomial

EMPTY_CELL = 1e-3  # what a count of 0 weighs (as in fastchess): keeps every estimate inside
KEYS = ("elo0", "elo1", "alpha", "beta")
MAX_ELO = 1000  # beyond, the expected scores are too close to 0 or 1 to test


class Verdict(enum.Enum):
    """What the test says so far."""

    H0 = "H0 accepted"
    H1 = "H1 accepted"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True, slots=True)
class Sprt:
    """The test's settings: the two Elo hypotheses and the two error rates.

    >>> sprt = Sprt(elo0=0, elo1=10)
    >>> round(sprt.lower_bound, 4), round(sprt.upper_bound, 4)
    (-2.9444, 2.9444)

    :raises ValueError: ``elo0`` is not below ``elo1`` or outside
        -:data:`MAX_ELO` to :data:`MAX_ELO`, an error rate is not between 0
        and 1, or together they are not below 1.
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for key in ("elo0", "elo1"):
            if not -MAX_ELO <= getattr(self, key) <= MAX_ELO:
                raise ValueError(f"{key} must be between -{MAX_ELO} and {MAX_ELO}, "
                                 f"not {getattr(self, key):g}")
        for key in ("alpha", "beta"):
            if not 0 < getattr(self, key) < 1:
                raise ValueError(f"{key} must be between 0 and 1, not {getattr(self, key):g}")
        if self.alpha + self.beta >= 1:
            raise ValueError(f"alpha + beta must be below 1, not {self.alpha + self.beta:g}")
        if self.elo0 >= self.elo1:
            raise ValueError(f"elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g})")

    @property
    def lower_bound(self) -> float:
        """The LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """The LLR at or above which H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, pentanomial: Pentanomial) -> float:
        """The log-likelihood ratio of H1 against H0 for these pairs (0 without pairs).

        >>> round(Sprt(elo0=0, elo1=10).llr(Pentanomial((10, 40, 100, 45, 15))), 4)
        0.5878

        (The normal approximation gives 0.5886 for these 210 pairs: mean
        108.75/210, variance 0.05474 per pair.)
        """
        if not pentanomial.pairs:
            return 0.0
        return log_likelihood_ratio(pentanomial.counts, PAIR_SCORES,
                                    _expected_score(self.elo0), _expected_score(self.elo1))

    def verdict(self, llr: float) -> Verdict:
        """Which hypothesis an LLR accepts, if either.

        >>> [Sprt().verdict(llr).name for llr in (-3.0, 0.0, 2.95)]
        ['H0', 'INCONCLUSIVE', 'H1']
        """
        if llr >= self.upper_bound:
            return Verdict.H1
        if llr <= self.lower_bound:
            return Verdict.H0
        return Verdict.INCONCLUSIVE


def parse_sprt(text: str) -> Sprt:
    """The settings ``--sprt`` gives: ``key=value`` items, comma-separated, any of
    ``elo0`` (default 0), ``elo1`` (10), ``alpha`` (0.05) and ``beta`` (0.05).

    >>> parse_sprt("elo1=5,alpha=0.1")
    Sprt(elo0=0.0, elo1=5.0, alpha=0.1, beta=0.05)
    >>> parse_sprt("elo0=5,elo1=0")
    Traceback (most recent call last):
    ValueError: 'elo0=5,elo1=0': elo0 (5) must be below elo1 (0)

    :raises ValueError: an item that is not ``key=value``, an unknown or
        repeated key, a value that is not a number, or settings :class:`Sprt`
        refuses; the message quotes ``text``.
    """
    values: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, equals, value = item.partition("=")
        key = key.strip()
        if not equals:
            raise ValueError(f"{text!r}: {item!r} is not key=value")
        if key not in KEYS:
            raise ValueError(f"{text!r}: unknown key {key!r} (expected {', '.join(KEYS)})")
        if key in values:
            raise ValueError(f"{text!r}: {key} is given twice")
        try:
            values[key] = float(value)
        except ValueError:
            raise ValueError(f"{text!r}: {key} must be a number, not {value.strip()!r}") from None
    try:
        return Sprt(**values)
    except ValueError as error:
        raise ValueError(f"{text!r}: {error}") from None


class SequentialTest:
    """The test run pair by pair, as a match finishes them, settled by the first crossing.

    Pairs added after a bound is crossed (the games a concurrent match had
    already started) change neither the verdict nor the LLR; they are counted
    in :attr:`late_pairs`.

    >>> test = SequentialTest(Sprt(elo0=0, elo1=200))
    >>> [test.add_pair(2.0).name for _ in range(9)][-3:]
    ['INCONCLUSIVE', 'H1', 'H1']
    >>> test.pairs, test.late_pairs, round(test.llr, 2)
    (8, 1, 3.35)
    >>> for part in test.summary().split("; "): print(part)
    SPRT: H1 accepted (elo1=200)  LLR 3.35 (-2.94, 2.94)  after 8 pairs  [alpha=0.05, beta=0.05]
    1 pair finished after the decision, not counted
    """

    def __init__(self, sprt: Sprt) -> None:
        self.sprt = sprt
        self.pentanomial = Pentanomial()
        self.llr = 0.0
        self.verdict = Verdict.INCONCLUSIVE
        self.late_pairs = 0

    @property
    def pairs(self) -> int:
        """The pairs the test counted."""
        return self.pentanomial.pairs

    def add_pair(self, points: float) -> Verdict:
        """Count a finished pair (the first player's points in it, 0-2); returns the verdict."""
        if self.verdict is not Verdict.INCONCLUSIVE:
            self.late_pairs += 1
            return self.verdict
        self.pentanomial = self.pentanomial.with_pair(points)
        self.llr = self.sprt.llr(self.pentanomial)
        self.verdict = self.sprt.verdict(self.llr)
        return self.verdict

    def progress(self) -> str:
        """The LLR and its bounds, for a running match's progress lines."""
        return (f"LLR {self.llr:.2f} ({self.sprt.lower_bound:.2f}, "
                f"{self.sprt.upper_bound:.2f})")

    def summary(self) -> str:
        """The verdict, the hypothesis it accepts, the LLR and bounds, and the pairs counted."""
        sprt = self.sprt
        accepted = {Verdict.H0: f"elo0={sprt.elo0:g}", Verdict.H1: f"elo1={sprt.elo1:g}",
                    Verdict.INCONCLUSIVE: f"elo0={sprt.elo0:g}, elo1={sprt.elo1:g}"}
        late = (f"; {self.late_pairs} pair{'s' * (self.late_pairs != 1)} finished after the "
                "decision, not counted" if self.late_pairs else "")
        return (f"SPRT: {self.verdict.value} ({accepted[self.verdict]})  {self.progress()}  "
                f"after {self.pairs} pair{'s' * (self.pairs != 1)}  "
                f"[alpha={sprt.alpha:g}, beta={sprt.beta:g}]{late}")


def log_likelihood_ratio(counts: Sequence[float], scores: Sequence[float],
                         score0: float, score1: float) -> float:
    """The generalized LLR of expected score ``score1`` against ``score0``.

    ``counts[i]`` results scored ``scores[i]`` each (sorted, per game, from 0
    to 1); empty counts weigh :data:`EMPTY_CELL`. With two outcomes the
    estimates are the Bernoulli distributions of the two scores, so the LLR is
    ``wins * ln(s1 / s0) + losses * ln((1 - s1) / (1 - s0))``:

    >>> s0, s1 = 0.5, 0.6
    >>> round(log_likelihood_ratio([4, 6], [0.0, 1.0], s0, s1), 6)
    0.201355
    >>> round(6 * math.log(s1 / s0) + 4 * math.log((1 - s1) / (1 - s0)), 6)
    0.201355
    """
    weights = [count if count > 0 else EMPTY_CELL for count in counts]
    total = sum(weights)
    frequencies = [weight / total for weight in weights]
    estimate0 = _closest_distribution(frequencies, scores, score0)
    estimate1 = _closest_distribution(frequencies, scores, score1)
    return total * sum(q * (math.log(p1) - math.log(p0))
                       for q, p0, p1 in zip(frequencies, estimate0, estimate1, strict=True))


def _closest_distribution(frequencies: Sequence[float], scores: Sequence[float],
                          expected: float) -> list[float]:
    """The likeliest distribution over ``scores`` given ``frequencies``, with mean ``expected``."""
    deviations = [score - expected for score in scores]

    def slope(theta: float) -> float:  # decreasing in theta; its root is the estimate's theta
        return sum(q * d / (1 + theta * d) for q, d in zip(frequencies, deviations, strict=True))

    # Every 1 + theta * d must stay positive: theta lies between -1/max(d) and -1/min(d),
    # where the slope runs from +inf down to -inf.
    low, high = -1 / max(deviations), -1 / min(deviations)
    while True:
        middle = (low + high) / 2
        if middle in (low, high):  # the interval is down to adjacent floats
            break
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    return [q / (1 + middle * d) for q, d in zip(frequencies, deviations, strict=True)]


def _expected_score(elo: float) -> float:
    """The score per game a logistic Elo difference implies."""
    return 1 / (1 + 10 ** (-elo / 400))
