"""Perft with py-draughts (pure Python bitboards), run inside its own virtualenv.

Two things in its ``AmericanBoard`` differ from the rules of English draughts,
and both are corrected here rather than left to skew the count:

* Captures are optional there (its ``legal_moves`` offers quiet moves beside
  captures). ``ForcedCaptureBoard`` asks the library's own move builder for the
  mandatory-capture mode it uses for the Russian and Brazilian games
  (``captures_optional=False``, no maximum-capture rule), so a capture, when
  there is one, is the only kind of move offered.
* White moves first by default. The board is built from the FEN with Black to
  move; squares 1-12 hold Black's men, as in standard numbering.

The library merges capture routes that share origin, landing square and captured
set; that changes perft only from depth 12 (388,617,999 instead of 388,623,673).
"""

from __future__ import annotations

import sys

from _worker import run_worker
from draughts import AmericanBoard, BaseBoard, Move
from draughts.boards._core import CORE_AMERICAN

START_FEN = "B:W21-32:B1-12"
# Depth at which the as-shipped rules already part from the published count.
SHIPPED_CHECK_DEPTH = 3


class ForcedCaptureBoard(AmericanBoard):
    """American board on which a capture, when available, must be taken."""

    @property
    def legal_moves(self) -> list[Move]:
        return self._legal_moves_from_core(
            CORE_AMERICAN, max_capture=False, captures_optional=False
        )


def perft_board(board: BaseBoard, depth: int) -> int:
    """Leaves ``depth`` moves below the board's position, made with push and pop."""
    moves = board.legal_moves
    if depth == 1:
        return len(moves)
    leaves = 0
    for move in moves:
        board.push(move)
        leaves += perft_board(board, depth - 1)
        board.pop()
    return leaves


def perft(depth: int) -> int:
    """Perft of the start position under compulsory captures, Black first."""
    return perft_board(ForcedCaptureBoard.from_fen(START_FEN), depth)


def shipped_note() -> str:
    """The as-shipped board's count at a shallow depth, to show why it is wrapped."""
    shipped = perft_board(AmericanBoard.from_fen(START_FEN), SHIPPED_CHECK_DEPTH)
    first = AmericanBoard().turn.name.lower()
    return (
        "captures forced (library's captures_optional=False mode), Black first via FEN; "
        f"as shipped: captures optional (perft({SHIPPED_CHECK_DEPTH}) = {shipped}), "
        f"{first} moves first"
    )


if __name__ == "__main__":
    sys.exit(
        run_worker("py-draughts", "Board.push/pop, captures forced", perft, note=shipped_note())
    )
