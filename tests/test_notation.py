"""Notation is ASCII and bounded: other scripts' digits, too many pieces and huge inputs."""

from __future__ import annotations

import pytest

from doublecorner import Board, InvalidFenError, InvalidMoveError, Move

QUOTED_CHARACTERS = 100  # about what errors.QUOTED_CHARACTERS allows


@pytest.mark.parametrize("fen", ["B:W\uff12\uff11:B1", "B:W21:B\u0661", "B:W\u00b2\u00b9:B1",
                                 "W:WK\uff12:B1-3"])
def test_a_fen_with_other_scripts_digits_is_invalid(fen: str) -> None:
    with pytest.raises(InvalidFenError, match="is not a square"):
        Board(fen)


@pytest.mark.parametrize("text", ["\u0661\u0661-\u0661\u0665", "\uff11\uff11-\uff11\uff15",
                                  "11-\u0661\u0665", "\u06f9x\u06f1\u06f8"])
def test_moves_in_other_scripts_digits_are_not_moves(text: str) -> None:
    board = Board()
    with pytest.raises(InvalidMoveError):
        board.push_str(text)
    with pytest.raises(InvalidMoveError):
        Move.parse(text)
    assert board.move_stack == []


@pytest.mark.parametrize("side", ["W", "B"])
def test_more_than_twelve_pieces_a_side_is_an_invalid_fen(side: str) -> None:
    kings = ",".join(f"K{square}" for square in range(5, 18))
    other = "W32" if side == "B" else "B1"
    fen = f"B:{side}{kings}:{other}"
    with pytest.raises(InvalidFenError, match="13 pieces; a side has 12 at most"):
        Board(fen)
    assert Board("B:W21-32:B1-12").fen().count(",") == 22  # twelve a side is the start


def test_messages_quote_at_most_about_a_hundred_characters_of_the_input() -> None:
    huge_fen = "B:W" + ",".join(["21"] * 200_000)
    with pytest.raises(InvalidFenError) as caught:
        Board(huge_fen)
    assert len(str(caught.value)) < QUOTED_CHARACTERS + 150
    assert f"({len(huge_fen)} characters)" in str(caught.value)
    with pytest.raises(InvalidMoveError) as bad_move:
        Board().push_str("11-15" * 100_000)
    assert len(str(bad_move.value)) < QUOTED_CHARACTERS + 150
