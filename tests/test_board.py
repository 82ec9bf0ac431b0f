"""Board internals that the rule tests do not reach."""

from __future__ import annotations

import pytest

from doublecorner import Board, IllegalMoveError, InvalidFenError, Move
from doublecorner.board import _new_buffer

FENS = ["B:W21-32:B1-12", "W:WK25:B6,7,14,15,22", "B:WK10,13,K17,K23,32:B5,12,K22,K29,K31"]


@pytest.mark.parametrize("fen", FENS)
def test_positions_with_more_moves_than_the_buffer_holds(fen: str) -> None:
    expected = Board(fen)
    small = Board(fen)
    small._buffer, small._buffer_rows = _new_buffer(moves=1)
    assert list(small.legal_moves) == list(expected.legal_moves)
    for move in expected.legal_moves:
        small.push(move)
        expected.push(move)
        assert small.fen() == expected.fen()
        assert len(small.legal_moves) == len(expected.legal_moves)
        small.pop()
        expected.pop()


def test_push_rejects_what_is_not_a_move_and_changes_nothing() -> None:
    board = Board()
    for thing in ("11-15", (11, 15), None, 1115):
        with pytest.raises(TypeError, match="push_str"):
            board.push(thing)  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="illegal move '15-19'"):
        board.push(Move(15, 19))
    assert board.fen() == Board().fen() and board.move_stack == []


def test_copy_without_stack_keeps_the_forty_move_count_but_no_repetitions() -> None:
    board = Board("B:WK32:BK1")
    for move in ["1-6", "32-27", "6-1", "27-32"] * 2:
        board.push_str(move)
    assert board.is_repetition(3)
    copy = board.copy(stack=False)
    assert copy.halfmove_clock == 8 and not copy.is_repetition(2)
    assert board.copy().is_repetition(3)


def test_a_fen_square_with_thousands_of_digits_is_an_invalid_fen() -> None:
    with pytest.raises(InvalidFenError, match=r"square 999999999999\.\.\. is outside 1-32"):
        Board("B:W" + "9" * 5000 + ":B1")
