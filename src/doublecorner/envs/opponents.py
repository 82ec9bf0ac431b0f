"""The built-in opponents of the single-agent environment: random moves, or the engine.

An opponent plays whole moves (a multi-jump at once) on a :class:`Board`.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Protocol

import numpy as np

from doublecorner.board import Board
from doublecorner.engine import Engine
from doublecorner.engine.levels import Strength
from doublecorner.errors import EngineError
from doublecorner.move import Move

_PATH = attrgetter("path")


class Opponent(Protocol):
    """Something that picks a move for the side to move of a board that is not over."""

    name: str

    def new_game(self) -> None:
        """Forget the last game."""

    def choose(self, board: Board, rng: np.random.Generator) -> Move:
        """A legal move of ``board``; any randomness must come from ``rng``."""


class RandomOpponent:
    """Picks uniformly among the legal moves (each capture route counts once)."""

    name = "random"

    def new_game(self) -> None:
        pass

    def choose(self, board: Board, rng: np.random.Generator) -> Move:
        # Sorted: the choice must not depend on the kernel's order of generation.
        moves = sorted(board.legal_moves, key=_PATH)
        return moves[int(rng.integers(len(moves)))]


class EngineOpponent:
    """doublecorner's engine at one of the levels of :mod:`doublecorner.engine.levels`.

    A level searches to a fixed depth, so the engine plays the same moves on
    any machine, and the same game again after :meth:`new_game`.

    :raises EngineError: ``level`` is not one of the levels.
    """

    def __init__(self, level: int, *, hash_mb: int = 16) -> None:
        self.strength = Strength.from_level(level)
        self.name = f"engine ({self.strength.name})"
        self.engine = Engine(hash_mb=hash_mb)

    def new_game(self) -> None:
        self.engine.new_game()

    def choose(self, board: Board, rng: np.random.Generator) -> Move:
        result = self.engine.search(board.position(), self.strength.limit,
                                    history=board.position_history(),
                                    halfmove_clock=board.halfmove_clock)
        if result.move is None:  # cannot happen: the caller checks that the game goes on
            raise EngineError(f"the engine found no move in {board.fen()}")
        return result.move
