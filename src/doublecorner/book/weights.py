"""How much a book move weighs: from the games that played it, or from the engine's scores.

From games, a move weighs the half-points its side scored with it: two for
each win, one for each draw, none for a loss, so that a move is chosen in
proportion to how often it was played and how well it did. A move whose
games were all lost weighs 0: the book keeps its record but never plays it.

From the engine (``book deepen``), the moves within ``margin`` hundredths of
a man of the best weigh ``margin + 1`` less how far they fall short of it:
the best move ``margin + 1``, one just within the margin 1.

>>> game_weight(wins=3, draws=4, losses=5)
10
>>> engine_weight(best=20, score=15, margin=10)
6
>>> scaled([200_000, 100_000, 1, 0])
[65535, 32767, 1, 0]
"""

from __future__ import annotations

from doublecorner.book.format import MAX_WEIGHT


def game_weight(*, wins: int, draws: int, losses: int) -> int:
    """Half-points scored by the side that played the move (``losses`` count nothing)."""
    return 2 * wins + draws


def engine_weight(*, best: int, score: int, margin: int) -> int:
    """The weight of a move the engine scores ``score`` where the best scores ``best``.

    0 for a move more than ``margin`` below the best.
    """
    return max(0, margin + 1 - (best - score))


def scaled(weights: list[int]) -> list[int]:
    """``weights`` brought into 0-65535 in proportion, a weight above 0 kept above 0."""
    top = max(weights, default=0)
    if top <= MAX_WEIGHT:
        return list(weights)
    return [max(1, weight * MAX_WEIGHT // top) if weight else 0 for weight in weights]
