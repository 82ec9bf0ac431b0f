"""Search scores: hundredths of a man, or a won or lost game with its distance."""

from __future__ import annotations

from dataclasses import dataclass

from doublecorner.kernel.scores import MATE, MATE_BOUND


@dataclass(frozen=True, slots=True, order=True)
class Score:
    """A score from the point of view of the side to move.

    ``value`` is in hundredths of a man, or beyond :data:`MATE_BOUND` a won
    (positive) or lost (negative) game, ``MATE - value`` plies from the end.

    >>> str(Score(125)), str(Score(-40)), str(Score(0))
    ('+1.25', '-0.40', '0.00')
    >>> winning = Score(MATE - 13)
    >>> winning.is_win, winning.plies_to_end, str(winning)
    (True, 13, 'win in 13')
    >>> str(-winning)
    'loss in 13'
    """

    value: int

    @property
    def is_win(self) -> bool:
        return self.value > MATE_BOUND

    @property
    def is_loss(self) -> bool:
        return self.value < -MATE_BOUND

    @property
    def plies_to_end(self) -> int | None:
        """Plies until the game ends, for a win or a loss; ``None`` otherwise."""
        if self.is_win or self.is_loss:
            return MATE - abs(self.value)
        return None

    def __neg__(self) -> Score:
        return Score(-self.value)

    def __str__(self) -> str:
        if self.is_win:
            return f"win in {self.plies_to_end}"
        if self.is_loss:
            return f"loss in {self.plies_to_end}"
        sign = "+" if self.value > 0 else "-" if self.value < 0 else ""
        return f"{sign}{abs(self.value) / 100:.2f}"

    def as_json(self) -> dict[str, int]:
        """``{"cp": n}`` or ``{"win": plies}`` / ``{"loss": plies}``, for ``--json``."""
        plies = self.plies_to_end
        if plies is None:
            return {"cp": self.value}
        return {"win": plies} if self.is_win else {"loss": plies}
