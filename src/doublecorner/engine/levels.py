"""Playing strengths for people: ten levels of fixed depth, or seconds per move.

The terminal game (``doublecorner play``) and the web app offer the same
levels, so they live here, below both.
"""

from __future__ import annotations

from dataclasses import dataclass

from doublecorner.egtb.material import Material
from doublecorner.engine.limit import Limit
from doublecorner.engine.score import Score
from doublecorner.errors import EngineError
from doublecorner.position import Position

# Plies searched at each level. Fixed depths make a level play the same on any
# machine; above depth 15 an opening move takes seconds (depth 20: half a minute).
LEVEL_DEPTHS = (1, 2, 3, 4, 6, 8, 10, 12, 15, 18)
DEFAULT_LEVEL = 6
# The engine takes a draw unless it thinks it is ahead by more than this many
# hundredths of a man: small evaluation noise should not make it refuse a dead draw.
DRAW_ACCEPT_MAX_SCORE = 10
# With kings alone on the board, as many for each side, no side can force a win
# unless a shot is there, which the search scores as a piece won (a whole man or
# more). Below this, the network's scores of such endings are noise, no reason to
# play on: without tables, at depth 8, generation 10 scores most positions of a bare
# king each within half a man (but 124 of the 1,984, shots aside, beyond it:
# `python bench/kings_scan.py` counts them for a network); the tables know them.
EVEN_KINGS_DRAW_MAX_SCORE = 50
HUMAN_NAME = "human"


def engine_accepts_draw(position: Position, engine_score: Score) -> bool:
    """Whether the engine takes a draw offered in ``position``, given its own score there.

    ``engine_score`` is the search's score from the engine's side.

    >>> from doublecorner.fen import STARTING_FEN
    >>> engine_accepts_draw(Position.from_fen(STARTING_FEN), Score(5))
    True
    >>> kings_only = Position.from_fen("B:WK28:BK1")
    >>> engine_accepts_draw(kings_only, Score(38)), engine_accepts_draw(kings_only, Score(120))
    (True, False)
    >>> engine_accepts_draw(Position.from_fen("B:WK28:B1"), Score(38))
    False
    >>> engine_accepts_draw(Position.from_fen("B:WK28,K32:BK1"), Score(38))
    False
    """
    if engine_score.value <= DRAW_ACCEPT_MAX_SCORE:
        return True
    material = Material.of(position.black, position.white, position.kings)
    even_kings = material.men == 0 and material.black_kings == material.white_kings
    return even_kings and engine_score.value <= EVEN_KINGS_DRAW_MAX_SCORE


@dataclass(frozen=True, slots=True)
class Strength:
    """How the engine plays: the limit of each of its searches, and how to name it.

    >>> strength = Strength.from_level(6)
    >>> strength.limit.depth, strength.name
    (8, 'level 6')
    >>> Strength.from_seconds(0.5).name
    '0.5 s per move'
    """

    limit: Limit
    name: str

    @classmethod
    def from_level(cls, level: int) -> Strength:
        """A level of :data:`LEVEL_DEPTHS`, 1 (weakest) to 10.

        :raises EngineError: ``level`` is not one of the levels.
        """
        if not 1 <= level <= len(LEVEL_DEPTHS):
            raise EngineError(f"level must be from 1 to {len(LEVEL_DEPTHS)}, not {level}")
        return cls(Limit(depth=LEVEL_DEPTHS[level - 1]), f"level {level}")

    @classmethod
    def from_seconds(cls, seconds: float) -> Strength:
        """``seconds`` of thought per move.

        :raises EngineError: ``seconds`` is not a positive number.
        """
        return cls(Limit(time=seconds), f"{seconds:g} s per move")
