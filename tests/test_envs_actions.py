"""The action encoding and ActionGame: one hop per action, over the board's legal moves."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublecorner import Board, Color, IllegalMoveError, InvalidMoveError, Move, Position
from doublecorner.envs.actions import (
    ACTION_COUNT,
    IllegalActionError,
    InvalidActionError,
    action_hop,
    check_action,
    hop_action,
    move_actions,
)
from doublecorner.envs.game import ActionGame, start_board
from doublecorner.squares import ADJACENT_PAIRS, JUMPED_SQUARE, square_row
from tests.conftest import positions


def _action_sequences(game: ActionGame) -> dict[tuple[int, ...], Move]:
    """Every sequence of actions that completes a move from here, and the move it makes."""
    found: dict[tuple[int, ...], Move] = {}

    def walk(here: ActionGame, prefix: tuple[int, ...]) -> None:
        for action in sorted(here.legal_actions()):
            after = here.copy()
            move = after.play(action)
            if move is None:
                walk(after, (*prefix, action))
            else:
                found[(*prefix, action)] = move

    walk(game, ())
    return found


def test_black_and_white_openings_mirror_each_other() -> None:
    assert move_actions(Move(11, 15), Color.BLACK) == (40,)
    assert move_actions(Move(22, 18), Color.WHITE) == (40,)
    assert move_actions(Move(9, 18, 27), Color.BLACK) == (33, 69)
    assert move_actions(Move(24, 15, 6), Color.WHITE) == (33, 69)  # 9x18x27 turned round


def test_each_square_and_direction_is_one_action_for_either_side() -> None:
    for color in Color:
        seen = set()
        for start, end in sorted(ADJACENT_PAIRS | set(JUMPED_SQUARE)):
            action = hop_action(start, end, color)
            seen.add((action, (start, end) in ADJACENT_PAIRS))
            assert action_hop(action, color, jump=(start, end) in JUMPED_SQUARE) == (start, end)
        assert {action for action, _ in seen} <= set(range(ACTION_COUNT))
        assert len(seen) == len(ADJACENT_PAIRS) + len(JUMPED_SQUARE)


def test_directions_zero_and_one_are_forward_for_the_mover() -> None:
    for color in Color:
        for start, end in ADJACENT_PAIRS:
            direction = hop_action(start, end, color) % 4
            towards_white = square_row(end) > square_row(start)
            forward = towards_white if color is Color.BLACK else not towards_white
            assert (direction < 2) == forward, (color, start, end)


def test_a_hop_off_the_board_is_none() -> None:
    assert action_hop(4 * (4 - 1) + 1, Color.BLACK, jump=False) is None  # 4 is on the h-file
    assert action_hop(0 + 2, Color.BLACK, jump=False) is None  # 1 is on Black's back row


@pytest.mark.parametrize("bad", [-1, 128, 2.0, "3", None, True])
def test_a_value_outside_the_space_is_an_invalid_action(bad: object) -> None:
    with pytest.raises(InvalidActionError, match="invalid action"):
        check_action(bad)
    assert issubclass(InvalidActionError, InvalidMoveError)


def test_numpy_integers_are_actions() -> None:
    assert check_action(np.int32(40)) == 40
    assert check_action(np.int64(127)) == 127


def test_squares_not_a_hop_apart_have_no_action() -> None:
    with pytest.raises(InvalidMoveError, match="11-19"):
        hop_action(11, 19, Color.BLACK)


def test_a_multi_jump_is_one_action_per_jump_by_the_same_side() -> None:
    game = ActionGame(Board("B:W14,23:B9"))
    assert sorted(game.legal_actions()) == [33]
    assert game.play(33) is None
    assert (game.turn, game.path, game.captured()) == (Color.BLACK, (9, 18), (14,))
    assert game.legal_actions() == {69: (18, 27)}
    assert game.play(69) == Move(9, 18, 27)
    assert (game.turn, game.path, game.board.fen()) == (Color.WHITE, (), "W:W:B27")


def test_a_man_that_crowns_in_a_jump_stops_there() -> None:
    # 22x31 crowns; a king on 31 could go on over 27, but the move ends.
    game = ActionGame(Board("B:W26,27:B22"))
    assert [move.path for move in game.board.legal_moves] == [(22, 31)]
    assert game.play(hop_action(22, 31, Color.BLACK)) == Move(22, 31)
    assert game.turn is Color.WHITE and not game.is_jumping
    assert game.board.piece_at(31) is not None and game.board.piece_at(31).is_king


def test_two_routes_to_the_same_square_are_two_action_sequences() -> None:
    # The king on 2 takes 6, 14, 15 and 7 round the ring, either way round.
    board = Board("B:W6,7,14,15:BK2")
    routes = {move.path for move in board.legal_moves}
    assert {(2, 9, 18, 11, 2), (2, 11, 18, 9, 2)} <= routes
    sequences = _action_sequences(ActionGame(board))
    assert sorted(move.path for move in sequences.values()) == sorted(routes)
    assert move_actions(Move(2, 9, 18, 11, 2), Color.BLACK) in sequences
    assert move_actions(Move(2, 11, 18, 9, 2), Color.BLACK) in sequences


def test_an_illegal_action_names_the_action_and_the_legal_ones_and_changes_nothing() -> None:
    game = ActionGame(Board("B:W14,23:B9"))
    game.play(33)
    with pytest.raises(IllegalActionError, match=r"illegal action 40 .* jump 9x18.* 69 \(18-27\)"):
        game.play(40)
    assert game.path == (9, 18) and game.board.fen() == "B:W14,23:B9"
    assert issubclass(IllegalActionError, IllegalMoveError)


def test_no_action_is_legal_when_the_game_is_over() -> None:
    game = ActionGame(Board("B:W18:B"))
    assert game.legal_actions() == {} and not game.action_mask().any()
    with pytest.raises(IllegalActionError, match="no legal moves"):
        game.play(0)


def test_push_refuses_a_whole_move_in_the_middle_of_a_jump() -> None:
    game = ActionGame(Board("B:W14,23:B9"))
    game.play(33)
    with pytest.raises(IllegalActionError, match="middle of the jump 9x18"):
        game.push(Move(9, 18, 27))


@settings(max_examples=150, deadline=None)
@given(positions())
def test_action_sequences_and_legal_moves_correspond_one_to_one(position: Position) -> None:
    board = Board.from_position(position)
    sequences = _action_sequences(ActionGame(board))
    assert sorted(move.path for move in sequences.values()) == sorted(
        move.path for move in board.legal_moves)
    for actions, move in sequences.items():
        assert move_actions(move, position.turn) == actions


def _expected_actions(game: ActionGame) -> dict[int, tuple[int, int]]:
    """The next hops of the legal moves that begin with the path, from the board alone."""
    done = len(game.path) - 1 if game.path else 0
    return {move_actions(move, game.turn)[done]: (move.path[done], move.path[done + 1])
            for move in game.board.legal_moves if move.path[:len(game.path)] == game.path}


@settings(max_examples=100, deadline=None)
@given(positions(), st.randoms(use_true_random=False))
def test_the_legal_actions_follow_every_play_and_push(position: Position,
                                                      rng: random.Random) -> None:
    # ActionGame keeps the legal actions of the move in progress between calls:
    # they must follow each hop, each whole move pushed, and stay the copy's own.
    game = ActionGame(Board.from_position(position))
    for _ in range(30):
        expected = _expected_actions(game)
        assert game.legal_actions() == expected
        assert set(np.flatnonzero(game.action_mask())) == set(expected)
        assert [game.is_legal(action) for action in range(ACTION_COUNT)] == [
            action in expected for action in range(ACTION_COUNT)]
        if not expected:
            break
        if rng.random() < 0.3:
            game.copy().play(rng.choice(sorted(expected)))  # must leave game as it was
            assert game.legal_actions() == expected
        if not game.path and rng.random() < 0.3:
            game.push(rng.choice(sorted(game.board.legal_moves, key=lambda move: move.path)))
        else:
            game.play(rng.choice(sorted(expected)))


def test_each_action_mask_is_a_new_array() -> None:
    game = ActionGame()
    mask = game.action_mask()
    assert mask.dtype == np.int8 and mask.shape == (ACTION_COUNT,) and mask.flags.writeable
    mask[:] = 1
    assert game.action_mask().sum() == 7


@settings(max_examples=100, deadline=None)
@given(positions())
def test_the_bitboards_between_moves_are_the_boards_position(position: Position) -> None:
    board = Board.from_position(position)
    game = ActionGame(board)
    assert game.bitboards() == (position.black, position.white, position.kings)
    for move in list(board.legal_moves)[:3]:
        board.push(move)
        after = board.position()
        assert ActionGame(board).bitboards() == (after.black, after.white, after.kings)
        board.pop()


def test_the_start_board_is_a_new_board_at_the_start() -> None:
    first, second = start_board(), start_board()
    assert first.fen() == Board().fen() and first.move_stack == []
    assert first.halfmove_clock == 0 and first.turn is Color.BLACK
    first.push_str("11-15")
    assert second.fen() == Board().fen() and ActionGame().board.fen() == Board().fen()


def test_a_king_whose_jump_comes_back_to_its_start_is_still_on_the_board() -> None:
    # 18x27x20x11x18x9: after four jumps the king stands on 18 again, one to go.
    game = ActionGame(Board("B:W13,14,15,16,21,23,24,31,32:BK18"))
    route = Move(18, 27, 20, 11, 18, 9)
    assert route in game.board.legal_moves
    for action in move_actions(route, Color.BLACK)[:4]:
        assert game.play(action) is None
    black, white, kings = game.bitboards()
    assert game.path[-1] == 18 and black == kings == 1 << 17  # the king is on 18
    assert white.bit_count() == 9 - 4  # four of the nine jumped so far
