"""The ACF three-move ballot deck: the openings matches are played from."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

from doublecorner.board import Board
from doublecorner.move import Move

DECK_FILE = "ballots-3move.txt"


@dataclass(frozen=True, slots=True)
class Ballot:
    """One opening of the deck: its number in ACF order (from 1) and its three moves."""

    number: int
    moves: tuple[Move, ...]

    def __str__(self) -> str:
        return " ".join(str(move) for move in self.moves)

    def board(self) -> Board:
        """A board at the start position with the ballot's moves played."""
        board = Board()
        for move in self.moves:
            board.push(move)
        return board


@cache
def three_move_deck() -> tuple[Ballot, ...]:
    """The 156 openings of the ACF three-move deck, in ACF order.

    >>> deck = three_move_deck()
    >>> len(deck), str(deck[0]), deck[-1].number
    (156, '9-13 21-17 5-9', 156)
    """
    text = resources.files("doublecorner.match").joinpath("data", DECK_FILE).read_text("utf-8")
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    deck = []
    for number, line in enumerate(lines, start=1):
        board = Board()
        for token in line.split():
            board.push_str(token)  # checks every move: a corrupt deck fails loudly
        deck.append(Ballot(number, tuple(board.move_stack)))
    return tuple(deck)
