"""Write a game as standard PDN: the seven tags, GameType 21, short-form moves, wrapped lines."""

from __future__ import annotations

import datetime
import textwrap
from collections.abc import Mapping, Sequence

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.errors import AmbiguousMoveError, IllegalMoveError
from doublecorner.fen import STARTING_FEN
from doublecorner.move import Move
from doublecorner.outcome import Outcome
from doublecorner.position import Position

SEVEN_TAG_ROSTER = ("Event", "Site", "Date", "Round", "Black", "White", "Result")
GAME_TYPE = "21"  # English draughts; "1-0" is a win for Black, who moves first
LINE_WIDTH = 79


def result_text(outcome: Outcome | None) -> str:
    """The PDN result of a game: ``1-0`` (Black won), ``0-1``, ``1/2-1/2`` or ``*``."""
    return "*" if outcome is None else outcome.result()


def move_text(board: Board, move: Move) -> str:
    """``move`` as PDN writes it: the short form (``9x27``) unless that is ambiguous here.

    >>> board = Board("W:W18:B14")
    >>> move_text(board, board.parse_move("18x9"))
    '18x9'
    """
    path = move.path
    short = f"{path[0]}{'x' if move.is_capture else '-'}{path[-1]}"
    try:
        if board.parse_move(short) == move:
            return short
    except AmbiguousMoveError:
        pass
    return str(move)


def write_game(moves: Sequence[Move], *, tags: Mapping[str, str] | None = None,
               start_fen: str = STARTING_FEN, result: str | None = None) -> str:
    """A game as PDN text, ending in a blank line.

    The seven standard tags come first (unset ones as ``?``, the date as
    today), then ``GameType`` and, for a game not from the start position,
    ``SetUp`` and ``FEN``, then any other tags. ``result`` defaults to the
    outcome the rules give after the last move.

    :raises IllegalMoveError: a move is not legal where it is played.

    >>> tags = {"Event": "Demo", "Date": "2026.11.30"}
    >>> print(write_game([Move(11, 15), Move(23, 19)], tags=tags))
    [Event "Demo"]
    [Site "?"]
    [Date "2026.11.30"]
    [Round "?"]
    [Black "?"]
    [White "?"]
    [Result "*"]
    [GameType "21"]
    <BLANKLINE>
    1. 11-15 23-19 *
    <BLANKLINE>
    """
    board = Board(start_fen)
    tokens: list[str] = []
    for number, move in enumerate(moves, start=1):
        if move not in board.legal_moves:
            raise IllegalMoveError(f"move {number}, {move}, is not legal in {board.fen()}")
        if board.turn is Color.BLACK:
            tokens.append(f"{_move_number(board, start_fen)}.")
        elif number == 1:
            tokens.append(f"{_move_number(board, start_fen)}...")
        tokens.append(move_text(board, move))
        board.push(move)
    final = result if result is not None else result_text(board.outcome())
    tokens.append(final)
    all_tags = dict.fromkeys(SEVEN_TAG_ROSTER, "?")
    all_tags["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    all_tags.update(tags or {})
    all_tags["Result"] = final
    all_tags["GameType"] = GAME_TYPE
    if Position.from_fen(start_fen) != Position.start():
        all_tags["SetUp"] = "1"
        all_tags["FEN"] = Position.from_fen(start_fen).fen()
    ordered = [*SEVEN_TAG_ROSTER, "GameType", "SetUp", "FEN"]
    names = [name for name in ordered if name in all_tags]
    names += [name for name in all_tags if name not in ordered]
    header = "".join(f'[{name} "{_escape(all_tags[name])}"]\n' for name in names)
    body = textwrap.fill(" ".join(tokens), width=LINE_WIDTH, break_long_words=False,
                         break_on_hyphens=False)
    return f"{header}\n{body}\n"


def _move_number(board: Board, start_fen: str) -> int:
    """The number of the full move being played (Black's and White's move share one)."""
    first_turn = Position.from_fen(start_fen).turn
    plies = len(board.move_stack) + (1 if first_turn is Color.WHITE else 0)
    return plies // 2 + 1


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')
