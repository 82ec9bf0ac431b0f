"""What the server keeps of a game: the record that the store writes and reads.

A record holds what cannot be worked out again: who plays, the start position,
the moves (full paths), and endings the rules do not give (a resignation, an
agreed draw). Everything else (the position, the legal moves, a win or a draw
by the rules) follows from replaying the moves, which the game service does.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from doublecorner.color import Color

UNFINISHED = "*"  # the PDN result of a game still going on


class GameMode(str, enum.Enum):
    """Who plays a game: a human against the engine, two humans, or nobody (analysis)."""

    ENGINE = "engine"
    TWO_PLAYER = "two-player"
    ANALYSIS = "analysis"


class Agreement(str, enum.Enum):
    """An ending the players make rather than the rules."""

    RESIGNATION = "resignation"
    DRAW_AGREED = "draw agreed"


@dataclass(frozen=True, slots=True)
class AgreedEnding:
    """A resignation (``winner`` is the other side) or an agreed draw (``winner`` is ``None``).

    >>> AgreedEnding(Agreement.RESIGNATION, Color.WHITE).result
    '0-1'
    """

    reason: Agreement
    winner: Color | None

    @property
    def result(self) -> str:
        """The PDN result: ``1-0`` when Black won, ``0-1`` White, ``1/2-1/2`` a draw."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is Color.BLACK else "0-1"


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRecord:
    """One stored game.

    ``moves`` are full paths (``9x18x27``) from ``start_fen``, main line only.
    ``level`` or ``seconds`` set the engine's strength in engine mode (one of
    them, the other ``None``). ``tags`` are the PDN tags of an imported game.
    ``result`` repeats the game's PDN result (``*`` while it goes on) so that
    game lists need not replay every game.
    """

    id: str
    mode: GameMode
    created: str
    updated: str
    black: str
    white: str
    start_fen: str
    human: Color | None = None
    level: int | None = None
    seconds: float | None = None
    moves: tuple[str, ...] = ()
    agreed: AgreedEnding | None = None
    draw_offer: Color | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    result: str = UNFINISHED
