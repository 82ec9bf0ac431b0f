"""What the server keeps of a game: the record that the store writes and reads.

A record holds what cannot be worked out again: who plays, the start position,
the moves (full paths), endings the board does not give by itself (a
resignation, an agreed or claimed draw, a flag fall, an abandonment), pending
offers, the clock, whether the game is rated and the players' ratings. Everything else (the
position, the legal moves, a win or a draw by the rules) follows from
replaying the moves, which the game service does.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from doublecorner.color import Color
from doublecorner.ratings import Rating

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
    # A player of a rated game left it (no live stream) and did not come back in time.
    ABANDONMENT = "abandonment"


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


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A player's Glicko-2 rating when the game started, and after it (once it was rated)."""

    before: Rating
    after: Rating | None = None

    def to_json(self) -> dict[str, list[float] | None]:
        return {"before": _rating_json(self.before),
                "after": None if self.after is None else _rating_json(self.after)}

    @classmethod
    def from_json(cls, data: Mapping[str, list[float] | None]) -> PlayerRating:
        before, after = data["before"], data.get("after")
        assert before is not None  # written by to_json
        return cls(Rating(*before), None if after is None else Rating(*after))


def _rating_json(rating: Rating) -> list[float]:
    return [rating.rating, rating.deviation, rating.volatility]


@dataclass(frozen=True, slots=True)
class GameRatings:
    """The ratings of a game's players who have accounts (``None``: a player without one).

    >>> ratings = GameRatings(PlayerRating(Rating(1500, 350)), None)
    >>> GameRatings.from_json(ratings.to_json()) == ratings
    True
    """

    black: PlayerRating | None
    white: PlayerRating | None

    def of(self, color: Color) -> PlayerRating | None:
        """The rating of ``color``'s player."""
        return self.black if color is Color.BLACK else self.white

    def to_json(self) -> dict[str, dict[str, list[float] | None] | None]:
        """The ratings as a JSON object (how the store keeps them)."""
        return {"black": None if self.black is None else self.black.to_json(),
                "white": None if self.white is None else self.white.to_json()}

    @classmethod
    def from_json(cls, data: Mapping[str, Mapping[str, list[float] | None] | None]
                  ) -> GameRatings:
        """The ratings of :meth:`to_json`."""
        black, white = data.get("black"), data.get("white")
        return cls(None if black is None else PlayerRating.from_json(black),
                   None if white is None else PlayerRating.from_json(white))


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
    asking to take back its last move. A ``rated`` game (two accounts, from the
    lobby, a challenge or a rematch) changes its players' ratings when it ends;
    ``ratings`` are the accounts' ratings at its start (and after it, once
    rated). ``rematch_offer`` is the side offering a rematch of a finished
    game, and ``rematch`` the id of the rematch once it was made.
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
    rated: bool = False
    ratings: GameRatings | None = None
    rematch_offer: Color | None = None
    rematch: str | None = None
