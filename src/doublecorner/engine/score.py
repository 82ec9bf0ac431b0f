"""Search scores: hundredths of a man, or a won or lost game with its distance."""

from __future__ import annotations

from dataclasses import dataclass

from doublecorner.kernel.scores import MATE, MATE_BOUND, TABLE_BOUND


@dataclass(frozen=True, slots=True, order=True)
class Score:
    """A score from the point of view of the side to move.

    ``value`` is in hundredths of a man, or beyond :data:`MATE_BOUND` a won
    (positive) or lost (negative) game, ``MATE - value`` plies from the end,
    or between :data:`TABLE_BOUND` and that a win or loss the endgame tables
    prove, reached ``TABLE_WIN - value`` plies from the root.

    >>> str(Score(125)), str(Score(-40)), str(Score(0))
    ('+1.25', '-0.40', '0.00')
    >>> winning = Score(MATE - 13)
    >>> winning.is_win, winning.plies_to_end, str(winning)
    (True, 13, 'win in 13')
    >>> str(-winning)
    'loss in 13'
    >>> from doublecorner.kernel.scores import TABLE_WIN
    >>> table = Score(TABLE_WIN - 3)
    >>> table.is_win, table.plies_to_end, str(table)
    (True, None, 'table win')
    """

    value: int

    @property
    def is_win(self) -> bool:
        """A won game: counted to the end, or proven by the endgame tables."""
        return self.value > TABLE_BOUND

    @property
    def is_loss(self) -> bool:
        return self.value < -TABLE_BOUND

    @property
    def plies_to_end(self) -> int | None:
        """Plies until the game ends, for a counted win or loss; ``None`` otherwise."""
        if abs(self.value) > MATE_BOUND:
            return MATE - abs(self.value)
        return None

    @property
    def is_table_result(self) -> bool:
        """A win or loss that the endgame tables prove, with no count of plies."""
        return TABLE_BOUND < abs(self.value) <= MATE_BOUND

    def __neg__(self) -> Score:
        return Score(-self.value)

    def __str__(self) -> str:
        if self.is_table_result:
            return "table win" if self.value > 0 else "table loss"
        if self.is_win:
            return f"win in {self.plies_to_end}"
        if self.is_loss:
            return f"loss in {self.plies_to_end}"
        sign = "+" if self.value > 0 else "-" if self.value < 0 else ""
        return f"{sign}{abs(self.value) / 100:.2f}"

    def as_json(self) -> dict[str, int]:
        """``{"cp": n}``, ``{"win": plies}`` / ``{"loss": plies}``, or ``{"table": 1|-1}``."""
        if self.is_table_result:
            return {"table": 1 if self.value > 0 else -1}
        plies = self.plies_to_end
        if plies is None:
            return {"cp": self.value}
        return {"win": plies} if self.is_win else {"loss": plies}
