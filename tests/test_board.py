"""Board internals that the rule tests do not reach."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from doublecorner import (
    AmbiguousMoveError,
    Board,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    Move,
    Position,
)
from doublecorner.board import _new_buffer
from doublecorner.squares import square_name
from tests.conftest import positions

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


def algebraic(move: Move) -> str:
    return ("x" if move.is_capture else "-").join(square_name(square) for square in move.path)


def test_parse_move_reads_a1_to_h8_names_and_short_forms() -> None:
    assert Board().parse_move("f6-e5") == Board().parse_move("F6 : e5") == Move(11, 15)
    assert Board("B:W14,23:B9").parse_move("b6xf2") == Move(9, 18, 27)
    with pytest.raises(IllegalMoveError, match=r"illegal move 'c3-d4'.*legal moves: 9-13"):
        Board().parse_move("c3-d4")


@pytest.mark.parametrize("text,problem", [("a2-b3", "square a2 is a light square"),
                                          ("f6-15", "not both"), ("f6-e5-", "expected squares"),
                                          ("f6-e9", "expected squares")])
def test_parse_move_refuses_a_light_square_or_mixed_notation(text: str, problem: str) -> None:
    board = Board()
    with pytest.raises(InvalidMoveError, match=problem) as error:
        board.push_str(text)
    assert repr(text) in str(error.value)
    assert board.move_stack == [] and board.fen() == Board().fen()


@settings(max_examples=150, deadline=None)
@given(positions())
def test_every_legal_move_reads_back_from_its_a1_to_h8_spelling(position: Position) -> None:
    board = Board.from_position(position)
    for move in board.legal_moves:
        assert board.parse_move(algebraic(move)) == move
        assert Move.parse(algebraic(move)) == move


def test_move_errors_carry_their_parts_for_front_ends() -> None:
    with pytest.raises(IllegalMoveError) as compulsory:
        Board("B:W14,23:B9").parse_move("9-13")
    assert compulsory.value.reason == "a capture is compulsory"
    assert compulsory.value.legal_moves == ("9x18x27",)
    with pytest.raises(IllegalMoveError) as no_reason:
        Board().parse_move("22-18")
    assert (no_reason.value.reason, len(no_reason.value.legal_moves)) == ("", 7)
    with pytest.raises(IllegalMoveError) as stuck:
        Board("W:W29:B22,25").parse_move("29-25")  # White's only man is blocked
    assert stuck.value.reason == "White has no legal moves" and stuck.value.legal_moves == ()
    with pytest.raises(AmbiguousMoveError) as ambiguous:
        Board("W:WK25:B6,7,14,15,22").parse_move("25x18")
    assert ambiguous.value.routes == ("25x18x11x2x9x18", "25x18x9x2x11x18")
