"""Writing games as PDN: tags, move numbers, short forms, wrapping."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from doublecorner import Board, IllegalMoveError, Move
from doublecorner.pdn import (
    SEVEN_TAG_ROSTER,
    Game,
    GameNode,
    PdnReader,
    StringExporter,
    iter_games,
    move_text,
    read_game,
    write_game,
)


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


# -- the tree writer ------------------------------------------------------------------------


def read(text: str) -> Game:
    game = read_game(io.StringIO(text), strict=True)
    assert game is not None
    return game


def movetext(game: Game, **options: Any) -> str:
    return game.accept(StringExporter(**options)).split("\n\n", 1)[1].strip()


def test_white_moves_get_a_number_after_a_comment_or_a_variation() -> None:
    game = read("{c} 1. 11-15 {after} 23-19 (22-18 15x22 {x} 25x18) 2. 8-11 (9-14) 22-17 *")
    assert movetext(game, columns=None) == (
        "{c} 1. 11-15 {after} 1... 23-19 (1... 22-18 2. 15x22 {x} 2... 25x18) 2. 8-11 "
        "(2. 9-14) 2... 22-17 *")


def test_marks_for_the_first_six_nags_and_dollars_for_the_rest() -> None:
    game = Game()
    game.add_variation(Move(11, 15), nags={1, 14}).add_variation(Move(23, 19), nags={6, 2})
    assert movetext(game) == "1. 11-15! $14 23-19? $6 *"


def test_options_leave_out_comments_and_variations() -> None:
    game = read("{c} 1. 11-15 {after} 23-19 (22-18 15x22) *")
    assert movetext(game, comments=False, variations=False) == "1. 11-15 23-19 *"


def test_a_comment_with_a_brace_becomes_a_line_comment() -> None:
    game = Game()
    game.add_variation(Move(11, 15), comment="a } b\n c").add_variation(Move(23, 19))
    game.variations[0].add_variation(Move(22, 18), comment="d}")
    assert movetext(game, columns=None) == "1. 11-15 ; a } b c\n1... 23-19 (1... 22-18 ; d}\n) *"
    read_back = read(str(game))
    assert read_back.variations[0].comment == "a } b c"
    assert read_back.variations[0].variations[1].comment == "d}"


def test_tags_in_standard_order_with_a_canonical_fen_and_unknown_tags_last() -> None:
    game = Game({"Opening": "x", "FEN": "W:W18:B14", "Black": "B", "Site": "s"})
    text = str(game)
    assert tag_names(text) == [*SEVEN_TAG_ROSTER, "GameType", "SetUp", "FEN", "Opening"]
    assert '[Date "????.??.??"]' in text and '[Event "?"]' in text
    assert str(read(text).board().fen()) == "W:W18:B14"


def test_a_move_number_stays_on_the_line_of_its_move() -> None:
    board = Board()
    game = Game()
    node: GameNode = game
    for _ in range(120):
        if board.is_game_over():
            break
        move = sorted(board.legal_moves, key=lambda move: move.path)[-1]
        node = node.add_variation(move, comment="a fairly long comment" if len(
            board.move_stack) % 7 == 0 else "")
        board.push(move)
    lines = movetext(game, columns=30).splitlines()
    assert max(len(line) for line in lines) <= 30
    assert not any(line.endswith(".") for line in lines)
    assert " ".join(movetext(game, columns=None).split()) == " ".join(" ".join(lines).split())
    assert read(str(game)).mainline_moves() == board.move_stack


def test_ambiguous_captures_are_written_in_full_inside_a_tree() -> None:
    game = Game()
    game.setup("W:WK25:B6,7,14,15,22")
    game.add_variation(Move(25, 18, 9, 2, 11, 18))
    game.add_variation(Move(25, 18, 11, 2, 9, 18))
    assert movetext(game) == "1... 25x18x9x2x11x18 (1... 25x18x11x2x9x18) *"


def test_the_exporter_writes_straight_from_the_reader() -> None:
    path = Path(__file__).with_name("data") / "pdn" / "quirks.pdn"
    games = list(iter_games(path))
    with path.open("rb") as handle:
        reader = PdnReader(handle)
        streamed = [reader.read_game(StringExporter()) for _ in games]
    assert streamed == [str(game) for game in games]


def test_a_result_tag_with_spaces_round_it_writes_the_result_it_names() -> None:
    """The reader forgives '[Result " 1-0"]' (it compares the tag stripped), so the writer must."""
    game = read_game(io.StringIO('[Result " 1-0"]\n\n1. 11-15 23-19 1-0\n'), strict=True)
    text = str(game)
    assert text.rstrip().endswith("1-0")
    assert read_game(io.StringIO(text), strict=True).headers["Result"] == " 1-0"
