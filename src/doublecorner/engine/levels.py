"""Playing strengths for people: ten levels of fixed depth, or seconds per move.

The terminal game (``doublecorner play``) and the web app offer the same
levels, so they live here, below both.
"""

from __future__ import annotations

from dataclasses import dataclass

from doublecorner.engine.limit import Limit
from doublecorner.errors import EngineError

# Plies searched at each level. Fixed depths make a level play the same on any
# machine; above depth 15 an opening move takes seconds (depth 20: half a minute).
LEVEL_DEPTHS = (1, 2, 3, 4, 6, 8, 10, 12, 15, 18)
DEFAULT_LEVEL = 6
# The engine takes a draw unless it thinks it is ahead by more than this many
# hundredths of a man: small evaluation noise should not make it refuse a dead draw.
DRAW_ACCEPT_MAX_SCORE = 10
HUMAN_NAME = "human"


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
