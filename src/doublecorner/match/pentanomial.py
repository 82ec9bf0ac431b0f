"""Game pairs: the two games of a ballot, colours reversed, counted as one result.

A match plays each ballot twice (games ``2k + 1`` and ``2k + 2``), so the
first player's points in a pair are 0, 1/2, 1, 3/2 or 2. Counting pairs by
those points gives the pentanomial ``[LL, LD, DD+WL, WD, WW]`` that
cutechess and fastchess report. The two games of a pair share an opening, so
their results are correlated (a lopsided opening wins one colour and loses
the other); the spread of the pairs' scores measures that, and its interval
for the Elo difference is usually narrower than the per-game one of
:class:`~doublecorner.match.elo.MatchScore`, which assumes every game independent.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from doublecorner.match.arena import GameRecord
from doublecorner.match.elo import Z_95, elo_from_score, signed

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # points per game of the five pair results
NELO_SCALE = 800 / math.log(10)  # normalized Elo per unit of (score - 1/2) / sigma


@dataclass(frozen=True, slots=True)
class Pentanomial:
    """How many pairs the first player scored 0, 1/2, 1, 3/2 and 2 points in.

    ``counts`` is ``(LL, LD, DD+WL, WD, WW)``. Figures for a made-up match of
    20 pairs (score 11.5/20 = 0.575; variance of a pair's score per game
    1.2625/20 = 0.063125, worked out by hand):

    >>> pairs = Pentanomial((1, 2, 10, 4, 3))
    >>> pairs.pairs, pairs.score, round(pairs.variance, 6)
    (20, 0.575, 0.063125)
    >>> round(pairs.elo, 1), [round(x, 1) for x in pairs.elo_interval]
    (52.5, [-24.4, 135.0])
    >>> round(pairs.normalized_elo, 1), round(pairs.los, 4)
    (73.3, 0.9091)
    >>> pairs.summary()
    'Ptnml(0-2) [1, 2, 10, 4, 3]  Elo +53 (95% -24 to +135)  nElo +73  LOS 90.9%'
    """

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def __post_init__(self) -> None:
        if len(self.counts) != len(PAIR_SCORES) or min(self.counts) < 0:
            raise ValueError(f"a pentanomial is five counts of at least 0, not {self.counts!r}")

    def with_pair(self, points: float) -> Pentanomial:
        """These counts and one more pair in which the first player scored ``points`` (0-2).

        >>> Pentanomial().with_pair(1.5).with_pair(2).counts
        (0, 0, 0, 1, 1)
        """
        index = round(2 * points)
        if not (0 <= index < len(PAIR_SCORES) and index == 2 * points):
            raise ValueError(f"a pair is worth 0, 0.5, 1, 1.5 or 2 points, not {points!r}")
        counts = list(self.counts)
        counts[index] += 1
        return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def score(self) -> float:
        """Points per game over the pairs (1/2 without pairs)."""
        if not self.pairs:
            return 0.5
        points = sum(n * score for n, score in zip(self.counts, PAIR_SCORES, strict=True))
        return points / self.pairs

    @property
    def variance(self) -> float:
        """The spread of a pair's points per game around :attr:`score`, per pair."""
        if not self.pairs:
            return 0.0
        mean = self.score
        return sum(n * (score - mean) ** 2
                   for n, score in zip(self.counts, PAIR_SCORES, strict=True)) / self.pairs

    @property
    def elo(self) -> float:
        """The logistic Elo difference :attr:`score` implies (infinite at 0 % or 100 %)."""
        return elo_from_score(self.score)

    @property
    def elo_interval(self) -> tuple[float, float]:
        """A 95 % interval for the Elo difference, from the spread of the pairs."""
        if not self.pairs:
            return (-math.inf, math.inf)
        margin = Z_95 * math.sqrt(self.variance / self.pairs)
        return (elo_from_score(self.score - margin), elo_from_score(self.score + margin))

    @property
    def normalized_elo(self) -> float:
        """The score's distance from 1/2 in standard deviations of a game, on an Elo-like scale.

        A pair's variance counts two games, so a game's standard deviation is
        ``sqrt(2 * variance)``; normalized Elo divides by it, so it measures how
        surely one player wins rather than by how much, and does not depend on
        how drawish the games are.
        """
        deviation = math.sqrt(2 * self.variance)
        if deviation == 0:  # every pair scored alike
            return 0.0 if self.score == 0.5 else math.copysign(math.inf, self.score - 0.5)
        return (self.score - 0.5) / deviation * NELO_SCALE

    @property
    def los(self) -> float:
        """Likelihood of superiority from the pairs: the chance the first player is the stronger."""
        if not self.pairs:
            return 0.5
        spread = math.sqrt(2 * self.variance / self.pairs)
        if spread == 0:
            return 0.5 if self.score == 0.5 else float(self.score > 0.5)
        return 0.5 * (1 + math.erf((self.score - 0.5) / spread))

    def summary(self) -> str:
        """The five counts, Elo with its interval, normalized Elo and LOS, on one line."""
        low, high = self.elo_interval
        counts = ", ".join(map(str, self.counts))
        return (f"Ptnml(0-2) [{counts}]  Elo {signed(self.elo)} (95% {signed(low)} to "
                f"{signed(high)})  nElo {signed(self.normalized_elo)}  LOS {100 * self.los:.1f}%")


def pair_of(number: int) -> int:
    """The pair (the ballot's index in the match, from 0) game ``number`` belongs to.

    >>> [pair_of(number) for number in (1, 2, 3, 4)]
    [0, 0, 1, 1]
    """
    return (number - 1) // 2


class PairCounter:
    """Pairs a match's games as they finish, in any order: a pair counts once both are done.

    >>> from doublecorner.match import RandomPlayer, play_game, three_move_deck
    >>> ballot = three_move_deck()[0]
    >>> games = [play_game(RandomPlayer(1), RandomPlayer(2), ballot, number=number,
    ...                    first_is_black=number == 1) for number in (2, 1)]
    >>> counter = PairCounter()
    >>> counter.add(games[0]) is None, counter.add(games[1]) is not None
    (True, True)
    >>> counter.pentanomial.pairs, counter.unpaired
    (1, 0)
    """

    def __init__(self) -> None:
        self._waiting: dict[int, GameRecord] = {}  # the first game of each unfinished pair
        self._counted: set[int] = set()
        self.pentanomial = Pentanomial()

    @property
    def unpaired(self) -> int:
        """Games whose pair has not finished."""
        return len(self._waiting)

    def add(self, record: GameRecord) -> float | None:
        """Count a finished game; returns the pair's points if this game completes its pair.

        A game already counted (the same number again) changes nothing and returns None.
        """
        pair = pair_of(record.number)
        other = self._waiting.get(pair)
        if pair in self._counted or (other is not None and other.number == record.number):
            return None
        if other is None:
            self._waiting[pair] = record
            return None
        del self._waiting[pair]
        self._counted.add(pair)
        points = other.first_player_points + record.first_player_points
        self.pentanomial = self.pentanomial.with_pair(points)
        return points


def pentanomial_of(records: Iterable[GameRecord]) -> Pentanomial:
    """The pentanomial of the finished pairs among ``records`` (a lone game of a pair is not)."""
    counter = PairCounter()
    for record in records:
        counter.add(record)
    return counter.pentanomial
