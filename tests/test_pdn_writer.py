"""Writing games as PDN: tags, move numbers, short forms, wrapping."""

from __future__ import annotations

import pytest

from doublecorner import Board, IllegalMoveError, Move
from doublecorner.pdn import SEVEN_TAG_ROSTER, move_text, write_game


def tag_names(text: str) -> list[str]:
    return [line[1:].split(" ", 1)[0] for line in text.splitlines() if line.startswith("[")]


def test_the_seven_tags_come_first_then_game_type_then_the_rest() -> None:
    text = write_game([Move(11, 15)], tags={"Opening": "Old Fourteenth", "Black": "Tinsley"})
    assert tag_names(text) == [*SEVEN_TAG_ROSTER, "GameType", "Opening"]
    assert '[Black "Tinsley"]' in text and '[GameType "21"]' in text


def test_a_game_from_a_set_up_position_records_it() -> None:
    text = write_game([Move(18, 9)], start_fen="W:W18:B14")
    assert '[SetUp "1"]' in text and '[FEN "W:W18:B14"]' in text
    assert text.rstrip().endswith("1... 18x9 0-1")  # White moved first and won
    assert '[Result "0-1"]' in text


def test_short_forms_unless_ambiguous() -> None:
    board = Board("W:WK25:B6,7,14,15,22")
    moves = sorted(board.legal_moves, key=lambda move: move.path)
    assert [move_text(board, move) for move in moves] == [str(move) for move in moves]
    jump = Board("B:W14,23:B9")
    assert move_text(jump, jump.parse_move("9x27")) == "9x27"


def test_long_games_wrap_at_79_columns() -> None:
    board = Board()
    moves = []
    for _ in range(60):
        if board.is_game_over():
            break
        move = sorted(board.legal_moves, key=lambda move: move.path)[0]
        moves.append(move)
        board.push(move)
    text = write_game(moves)
    body = text.split("\n\n", 1)[1]
    assert max(len(line) for line in body.splitlines()) <= 79
    assert body.split()[:3] == ["1.", str(moves[0]), str(moves[1])]


def test_an_illegal_move_is_refused_with_its_number() -> None:
    with pytest.raises(IllegalMoveError, match="move 2, 11-15"):
        write_game([Move(11, 15), Move(11, 15)])


def test_quotes_in_tags_are_escaped() -> None:
    assert '[Event "the \\"big\\" one"]' in write_game([], tags={"Event": 'the "big" one'})
