"""The game tree: nodes, variations, boards, headers and the walk that visitors see."""

from __future__ import annotations

import pytest

from doublecorner import Board, Color, IllegalMoveError, InvalidFenError, Move
from doublecorner.pdn import SEVEN_TAG_ROSTER, ChildNode, Game, GameBuilder, GameNode, write_game
from tests.test_pdn_reader import Recorder


def opening() -> tuple[Game, ChildNode, ChildNode, ChildNode]:
    """11-15 23-19 (22-18 15x22) on a new game."""
    game = Game()
    first = game.add_variation(Move(11, 15))
    main = first.add_variation(Move(23, 19))
    side = first.add_variation(Move(22, 18))
    side.add_variation(Move(15, 22))
    return game, first, main, side


def test_a_new_game_has_the_seven_tags_with_unknown_values() -> None:
    game = Game()
    assert list(game.headers) == list(SEVEN_TAG_ROSTER)
    assert game.headers["Date"] == "????.??.??" and game.result == "*"
    assert game.board().fen() == Board().fen() and game.errors == []
    assert Game({"Event": "x"}).headers == {"Event": "x"}


def test_main_line_variations_and_plies() -> None:
    game, first, main, side = opening()
    assert game.mainline_moves() == [Move(11, 15), Move(23, 19)]
    assert first.mainline_moves() == [Move(23, 19)]
    assert [node.move for node in game.mainline()] == [Move(11, 15), Move(23, 19)]
    assert (game.ply(), first.ply(), main.ply(), side.variations[0].ply()) == (0, 1, 2, 3)
    assert main.is_mainline() and main.is_main_variation()
    assert not side.is_mainline() and not side.is_main_variation()
    assert not side.variations[0].is_mainline() and side.variations[0].is_main_variation()
    assert game.is_mainline() and game.is_main_variation()
    assert game.next() is first and main.next() is None and main.is_end()
    assert game.end() is main and side.end() is side.variations[0]
    assert side.variations[0].path() == [Move(11, 15), Move(22, 18), Move(15, 22)]
    assert side.game() is game and side.parent is first


def test_each_node_gives_the_board_after_its_move() -> None:
    _, first, main, side = opening()
    assert first.board().turn is Color.WHITE
    board = Board()
    for text in ("11-15", "22-18", "15x22"):
        board.push_str(text)
    assert side.variations[0].board().fen() == board.fen()
    assert main.board().move_stack == [Move(11, 15), Move(23, 19)]


def test_a_set_up_game_starts_from_its_fen() -> None:
    game = Game()
    game.setup("W:W18:B14")
    assert game.headers["SetUp"] == "1" and game.headers["FEN"] == "W:W18:B14"
    node = game.add_variation(Move(18, 9))
    assert node.board().fen() == "B:W9:B"
    with pytest.raises(InvalidFenError):
        game.setup("W:W99:B1")
    assert game.headers["FEN"] == "W:W18:B14"  # unchanged by the failed set-up


def test_a_bad_fen_tag_fails_when_a_board_is_asked_for() -> None:
    game = Game({"FEN": "nonsense"})
    with pytest.raises(InvalidFenError):
        game.board()


def test_from_board_takes_the_moves_and_the_start_position() -> None:
    board = Board("W:W18,27:B14,5")
    board.push_str("18x9")
    board.push_str("5x14")
    game = Game.from_board(board)
    assert game.headers["FEN"] == "W:W18,27:B5,14"
    assert game.mainline_moves() == [Move(18, 9), Move(5, 14)]
    assert "FEN" not in Game.from_board(Board()).headers


def test_adding_promoting_and_removing_variations() -> None:
    game, first, _, side = opening()
    assert first.has_variation(Move(22, 18)) and first.variation(Move(22, 18)) is side
    first.promote_to_main(Move(22, 18))
    assert game.mainline_moves() == [Move(11, 15), Move(22, 18), Move(15, 22)]
    first.remove_variation(Move(23, 19))
    assert first.variations == [side]
    with pytest.raises(KeyError):
        first.variation(Move(24, 19))
    new_main = first.add_main_variation(Move(24, 19), comment="first", nags={1})
    assert first.variations[0] is new_main and new_main.comment == "first"
    assert new_main.nags == {1}
    last = new_main.add_line([Move(15, 24), Move(28, 19)])
    assert last.path()[-2:] == [Move(15, 24), Move(28, 19)]
    with pytest.raises(TypeError, match="takes a Move"):
        first.add_variation("11-15")  # type: ignore[arg-type]


def test_the_winner_follows_the_result_tag() -> None:
    winners = {}
    for result in ("1-0", "0-1", "1/2-1/2", "*"):
        winners[result] = Game({"Result": result}).winner()
    assert winners == {"1-0": Color.BLACK, "0-1": Color.WHITE, "1/2-1/2": None, "*": None}


def test_accept_walks_each_alternative_right_after_the_move_it_replaces() -> None:
    game, _, main, side = opening()
    game.headers = {"Event": "e", "Result": "1-0"}
    game.comment = "start"
    main.comment, main.nags = "main", {14, 1}
    side.starting_comment = "instead"
    main.add_variation(Move(8, 11))
    assert game.accept(Recorder()) == [
        "begin_game", "[Event=e]", "[Result=1-0]", "end_headers", "{start}", "11-15@0",
        "23-19@1", "$1", "$14", "{main}", "(", "{instead}", "22-18@1", "15x22@2", ")", "8-11@2",
        "1-0", "end_game"]


def test_accept_refuses_an_illegal_move_in_the_tree() -> None:
    game = Game()
    game.add_variation(Move(11, 15)).add_variation(Move(11, 16))
    with pytest.raises(IllegalMoveError, match="11-16"):
        game.accept(Recorder())


def test_accept_copies_a_tree_through_the_game_builder() -> None:
    game, _, main, side = opening()
    main.comment = "c"
    side.nags = {5}
    copy = game.accept(GameBuilder())
    assert copy is not game and str(copy) == str(game)


def test_long_games_and_deep_nesting_need_no_recursion() -> None:
    game = Game()
    game.setup("B:WK32:BK1")
    node: GameNode = game
    shuffle = [Move(1, 6), Move(32, 27), Move(6, 1), Move(27, 32)]
    for index in range(3000):
        node = node.add_variation(shuffle[index % 4])
    assert sum("@" in call for call in game.accept(Recorder())) == 3000
    # Each move has a sideline whose second move has a sideline, 1500 deep: the
    # sidelines' moves take the kings round 1-6-1 and 32-27-32, the main moves elsewhere.
    game = Game()
    game.setup("B:WK32:BK1")
    node = game
    elsewhere = {1: Move(1, 5), 6: Move(6, 2), 32: Move(32, 28), 27: Move(27, 31)}
    for index in range(1500):
        step = shuffle[index % 4]
        node.add_variation(elsewhere[step.from_square])
        node = node.add_variation(step)
    calls = game.accept(Recorder())
    assert calls.count("(") == calls.count(")") == 1500
    assert str(game).count("(") == 1500


def test_write_game_ends_a_game_only_on_what_the_rules_end_by_themselves() -> None:
    # The start position occurs a third time: a draw a player may claim, not an end.
    shuffle = [Move(1, 6), Move(32, 27), Move(6, 1), Move(27, 32)] * 2
    assert '[Result "*"]' in write_game(shuffle, start_fen="B:WK32:BK1")
    assert '[Result "1/2-1/2"]' in write_game(shuffle, start_fen="B:WK32:BK1",
                                              result="1/2-1/2")
    assert '[Result "0-1"]' in write_game([Move(18, 9)], start_fen="W:W18:B14")
