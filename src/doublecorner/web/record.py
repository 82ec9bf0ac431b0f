"""What the server keeps of a game: the record that the store writes and reads.

A record holds what cannot be worked out again: who plays, the start position,
the moves (full paths), endings the board does not give by itself (a
resignation, an agreed or claimed draw, a flag fall), pending offers and the
clock. Everything else (the
position, the legal moves, a win or a draw by the rules) follows from
replaying the moves, which the game service does.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from doublecorner.color import Color

UNFINISHED = "*"  # the PDN result of a game still going on


class GameMode(str, enum.Enum):
    """Who plays a game: a human against the engine, two humans at one board, two humans
    in two browsers (a friend invited by a link), or nobody (analysis)."""

    ENGINE = "engine"
    TWO_PLAYER = "two-player"
    FRIEND = "friend"
    ANALYSIS = "analysis"


class Agreement(str, enum.Enum):
    """An ending the players make rather than the board by itself.

    A claimed draw is named, in the API too, after the rule that allowed the claim.
    """

    RESIGNATION = "resignation"
    DRAW_AGREED = "draw agreed"
    TIME_FORFEIT = "time forfeit"
    REPETITION_CLAIMED = "threefold repetition"
    FORTY_MOVES_CLAIMED = "forty-move rule"


@dataclass(frozen=True, slots=True)
class AgreedEnding:
    """A resignation (``winner`` is the other side) or an agreed or claimed draw (``winner`` is
    ``None``).

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


@dataclass(frozen=True, slots=True)
class Clock:
    """A game clock: seconds left for each side, the increment added after each move, and
    when (Unix time) the clock of the side to move started running (``None``: not yet,
    it starts with the first move).

    >>> clock = Clock(initial=300.0, increment=2.0, black=300.0, white=300.0, since=None)
    >>> Clock.from_json(clock.to_json()) == clock
    True
    """

    initial: float
    increment: float
    black: float
    white: float
    since: float | None

    def left(self, color: Color) -> float:
        """Seconds left for ``color`` when the clock last switched."""
        return self.black if color is Color.BLACK else self.white

    def to_json(self) -> dict[str, float | None]:
        """The clock as a JSON object (how the store keeps it)."""
        return {"initial": self.initial, "increment": self.increment, "black": self.black,
                "white": self.white, "since": self.since}

    @classmethod
    def from_json(cls, data: Mapping[str, float | None]) -> Clock:
        """The clock of :meth:`to_json`."""
        since = data.get("since")
        return cls(initial=float(data["initial"] or 0), increment=float(data["increment"] or 0),
                   black=float(data["black"] or 0), white=float(data["white"] or 0),
                   since=None if since is None else float(since))


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRecord:
    """One stored game.

    ``moves`` are full paths (``9x18x27``) from ``start_fen``, main line only.
    ``level`` or ``seconds`` set the engine's strength in engine mode (one of
    them, the other ``None``). ``tags`` are the PDN tags of an imported game.
    ``result`` repeats the game's PDN result (``*`` while it goes on) so that
    game lists need not replay every game. A ``private`` game is shown only to
    the holders of its tokens. ``human`` is the human's side in engine mode and
    the creator's side in friend mode, where ``takeback_request`` is the side
    asking to take back its last move.
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
    private: bool = False
    takeback_request: Color | None = None
    clock: Clock | None = None
