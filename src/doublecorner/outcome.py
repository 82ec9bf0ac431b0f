"""How a game ended: who won and why."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from doublecorner.color import Color


class Termination(enum.Enum):
    """Why a game is over."""

    NO_MOVES = "no legal moves"
    """The side to move has no pieces or all are blocked: it loses."""
    THREEFOLD_REPETITION = "threefold repetition"
    """The same position with the same side to move for the third time: a draw."""
    FORTY_MOVE_RULE = "forty-move rule"
    """40 moves by each side with no man moved and no capture: a draw."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: the termination and the winner (``None`` for a draw).

    >>> Outcome(Termination.NO_MOVES, Color.WHITE).result()
    '0-1'
    """

    termination: Termination
    winner: Color | None

    def result(self) -> str:
        """The PDN result: ``1-0`` when Black (who moves first) wins, ``0-1`` White, else a draw."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is Color.BLACK else "0-1"
