"""The PettingZoo environment, through its real interface."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

from doublecorner import Board, Color, Move, Position, Termination
from doublecorner.envs import DoubleCornerAEC, IllegalActionError, env, move_actions
from doublecorner.envs.actions import InvalidActionError
from doublecorner.envs.game import ActionGame
from doublecorner.envs.observation import PLANES, SHAPE, observation
from doublecorner.squares import square_file, square_row
from tests.conftest import positions


def quiet_king_walk(plies: int, fen: str = "B:WK29,K30:BK3,K4", seed: int = 0) -> Board:
    """A board after ``plies`` king moves with no capture and no position seen twice."""
    rng = random.Random(seed)
    board = Board(fen)

    def extend() -> bool:
        if len(board.move_stack) == plies:
            return True
        moves = sorted((move for move in board.legal_moves if not move.is_capture),
                       key=lambda move: move.path)
        rng.shuffle(moves)
        for move in moves:
            board.push(move)
            if (not board.is_repetition(2)
                    and not any(reply.is_capture for reply in board.legal_moves)
                    and extend()):
                return True
            board.pop()
        return False

    assert extend()
    return board


def _mask(aec: DoubleCornerAEC) -> set[int]:
    return {int(action) for action in np.flatnonzero(aec.observe(aec.agent_selection)
                                                     ["action_mask"])}


def _snapshot(aec: DoubleCornerAEC) -> tuple[object, ...]:
    return (aec.board.fen(), len(aec.board.move_stack), aec.game.path, aec.agent_selection,
            dict(aec.rewards), dict(aec._cumulative_rewards), dict(aec.terminations),
            aec.steps)


def _play(aec: DoubleCornerAEC, move: str) -> None:
    """Play a whole move, hop by hop, asserting that the same agent acts throughout."""
    agent = aec.agent_selection
    for action in move_actions(aec.board.parse_move(move), aec.board.turn):
        assert aec.agent_selection == agent
        aec.step(action)


def test_passes_pettingzoo_api_test_raw_and_wrapped() -> None:
    with warnings.catch_warnings():
        # The dict observation (planes and action mask) is PettingZoo's classic-game
        # convention, which api_test only exempts for its own games by name.
        warnings.filterwarnings("ignore", message="Observation (space for each agent|is not)")
        api_test(DoubleCornerAEC(), num_cycles=300)
        api_test(env(max_steps=50), num_cycles=100)


def test_passes_pettingzoo_seed_test() -> None:
    seed_test(DoubleCornerAEC, num_cycles=200)


def test_black_is_player_0_and_moves_first() -> None:
    aec = DoubleCornerAEC()
    aec.reset()
    assert aec.agents == ["player_0", "player_1"] and aec.agent_selection == "player_0"
    assert _mask(aec) == {move_actions(move, Color.BLACK)[0] for move in aec.board.legal_moves}
    assert not aec.observe("player_1")["action_mask"].any()


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 300))
def test_the_mask_is_the_legal_moves_and_every_other_action_is_refused(
        rng: random.Random, steps: int) -> None:
    aec = DoubleCornerAEC()
    aec.reset()
    for _ in range(steps):
        if aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]:
            break
        game, turn = aec.game, aec.board.turn
        done = len(game.path) - 1 if game.path else 0  # hops made of the move in progress
        expected = {move_actions(move, turn)[done] for move in aec.board.legal_moves
                    if move.path[:len(game.path)] == game.path}
        mask = _mask(aec)
        assert mask == expected
        refused = rng.sample(sorted(set(range(128)) - mask), 3)
        before = _snapshot(aec)
        for action in refused:
            with pytest.raises(IllegalActionError, match=f"illegal action {action} "):
                aec.step(action)
            assert _snapshot(aec) == before
        aec.step(rng.choice(sorted(mask)))


def test_invalid_actions_raise_and_change_nothing() -> None:
    aec = DoubleCornerAEC()
    aec.reset()
    before = _snapshot(aec)
    for bad in (128, -3, 1.5, "40"):
        with pytest.raises(InvalidActionError):
            aec.step(bad)
    assert _snapshot(aec) == before


def test_a_multi_jump_keeps_the_same_agent_until_it_is_complete() -> None:
    aec = DoubleCornerAEC()
    aec.reset(options={"fen": "B:W14,23,30:B9"})
    aec.step(33)  # 9x18
    assert aec.agent_selection == "player_0" and aec.game.path == (9, 18)
    assert _mask(aec) == {69}
    planes = aec.observe("player_0")["observation"]
    assert planes[4, 3, PLANES.index("jumping piece")] == 1  # square 18 is d4: row 4, file 3
    assert planes[..., PLANES.index("jumped this move")].sum() == 1
    aec.step(69)  # x27
    assert aec.agent_selection == "player_1" and aec.board.peek() == Move(9, 18, 27)


def test_a_jump_that_crowns_ends_the_move() -> None:
    aec = DoubleCornerAEC()
    aec.reset(options={"fen": "B:W26,27:B22"})
    _play(aec, "22x31")
    assert aec.agent_selection == "player_1" and not aec.game.path


def test_a_win_gives_plus_and_minus_one_and_both_agents_finish() -> None:
    aec = DoubleCornerAEC()
    aec.reset(options={"fen": "B:W14:B9,K1"})  # 9x18 takes White's last piece
    _play(aec, "9x18")
    assert all(aec.terminations.values())
    assert aec.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert sum(aec.rewards.values()) == 0
    assert aec.infos["player_1"]["result"] == "1-0"
    finished = []
    for agent in aec.agent_iter():
        _, reward, terminated, _, _ = aec.last()
        assert terminated
        finished.append((agent, reward))
        aec.step(None)
    assert sorted(finished) == [("player_0", 1.0), ("player_1", -1.0)]
    assert aec.agents == []
    assert not aec.observe("player_0")["action_mask"].any()  # still observable, nothing to do


def test_random_games_end_with_rewards_that_sum_to_zero() -> None:
    aec = DoubleCornerAEC()
    for seed in range(3):
        aec.reset(seed=seed)
        totals = dict.fromkeys(aec.agents, 0.0)
        for agent in aec.agent_iter():
            observation_, reward, terminated, truncated, _ = aec.last()
            totals[agent] += reward
            action = None if terminated or truncated else aec.action_space(agent).sample(
                observation_["action_mask"])
            aec.step(action)
        assert sum(totals.values()) == 0
        assert set(totals.values()) in ({0.0}, {1.0, -1.0})


def test_the_forty_move_rule_truncates_the_game_in_a_draw() -> None:
    board = quiet_king_walk(79)
    aec = DoubleCornerAEC()
    aec.reset(options={"board": board})
    assert aec.observe(aec.agent_selection)["observation"][0, 0, 6] == pytest.approx(79 / 80)
    quiet = next(move for move in aec.board.legal_moves if not move.is_capture)
    aec.step(move_actions(quiet, aec.board.turn)[0])
    assert all(aec.truncations.values()) and not any(aec.terminations.values())
    assert aec.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert aec.infos["player_0"]["termination"] == Termination.FORTY_MOVE_RULE.value
    assert len(board.move_stack) == 79  # the option's board was copied, not played on


def test_threefold_repetition_truncates_the_game_in_a_draw() -> None:
    aec = DoubleCornerAEC()
    aec.reset(options={"fen": "B:WK29:BK4"})
    for move in ["4-8", "29-25", "8-4", "25-29"] * 2:
        assert not any(aec.truncations.values())
        _play(aec, move)
    assert all(aec.truncations.values()) and not any(aec.terminations.values())
    assert aec.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert aec.infos["player_1"]["termination"] == Termination.THREEFOLD_REPETITION.value
    assert aec.observe("player_0")["observation"][0, 0, 7] == 1.0


def test_the_step_cap_truncates_both_agents() -> None:
    aec = DoubleCornerAEC(max_steps=3)
    aec.reset()
    for move in ["11-15", "22-18", "15x22"]:
        _play(aec, move)
    assert all(aec.truncations.values()) and not any(aec.terminations.values())
    assert aec.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert "step cap" in aec.infos["player_0"]["truncated"]


def test_a_seed_makes_sampled_episodes_repeat() -> None:
    def episode(seed: int) -> list[str]:
        aec = DoubleCornerAEC()
        aec.reset(seed=seed)
        for agent in aec.agent_iter(400):
            observation_, _, terminated, truncated, _ = aec.last()
            aec.step(None if terminated or truncated else aec.action_space(agent).sample(
                observation_["action_mask"]))
        return [str(move) for move in aec.board.move_stack]

    assert episode(5) == episode(5)
    assert episode(5) != episode(6)


def test_render_modes() -> None:
    text = DoubleCornerAEC(render_mode="ansi")
    text.reset()
    assert str(text.board) in text.render() and text.render().endswith("Black to move")
    picture = DoubleCornerAEC(render_mode="rgb_array")
    picture.reset()
    image = picture.render()
    assert isinstance(image, np.ndarray)
    assert image.shape == (256, 256, 3) and image.dtype == np.uint8
    with pytest.raises(ValueError, match="'human'"):
        DoubleCornerAEC(render_mode="human")


def test_reset_refuses_a_game_that_is_over() -> None:
    with pytest.raises(ValueError, match="game is over"):
        DoubleCornerAEC().reset(options={"fen": "B:W18:B"})


def _mirror(position: Position) -> Position:
    def turned(bitboard: int) -> int:
        return int(f"{bitboard:032b}"[::-1], 2)

    return Position(turned(position.white), turned(position.black), turned(position.kings),
                    position.turn.opponent)


@settings(max_examples=100, deadline=None)
@given(positions())
def test_a_position_and_its_mirror_look_the_same_to_the_side_concerned(
        position: Position) -> None:
    game = ActionGame(Board.from_position(position))
    mirrored = ActionGame(Board.from_position(_mirror(position)))
    for color in Color:
        assert np.array_equal(observation(game, color), observation(mirrored, color.opponent))
    assert np.array_equal(game.action_mask(), mirrored.action_mask())


def test_the_planes_show_each_side_from_its_own_back_row() -> None:
    aec = DoubleCornerAEC()
    aec.reset()
    black = aec.observe("player_0")["observation"]
    white = aec.observe("player_1")["observation"]
    assert np.array_equal(black, white)  # the start is symmetric
    assert black[:3, :, 0].sum() == 12 and black[5:, :, 2].sum() == 12
    assert black[0, 1, 0] == 1  # square 1 is b8: Black's row 0, file b
    assert black.dtype == np.float32 and black.shape == (8, 8, len(PLANES))


def _planes_square_by_square(game: ActionGame, observer: Color) -> np.ndarray:
    """The observation built the slow, plain way, from the table in the module's docstring."""
    black, white, kings = game.bitboards()
    own, other = (black, white) if observer is Color.BLACK else (white, black)
    board = game.board
    occurrences = 3 if board.is_repetition(3) else 2 if board.is_repetition(2) else 1
    planes = np.zeros(SHAPE, dtype=np.float32)
    for square in range(1, 33):
        seen = square if observer is Color.BLACK else 33 - square  # turned half a turn
        bit = 1 << (square - 1)
        cell = planes[square_row(seen), square_file(seen)]
        cell[:6] = [bool(own & bit and not kings & bit), bool(own & kings & bit),
                    bool(other & bit and not kings & bit), bool(other & kings & bit),
                    bool(game.path) and square == game.path[-1], square in game.captured()]
    planes[..., 6] = min(board.halfmove_clock, 80) / 80
    planes[..., 7] = (occurrences - 1) / 2
    return planes


@settings(max_examples=100, deadline=None)
@given(positions(), st.randoms(use_true_random=False))
def test_the_planes_are_the_tables_square_by_square(position: Position,
                                                    rng: random.Random) -> None:
    game = ActionGame(Board.from_position(position))
    for _ in range(12):  # through multi-jumps: planes 4 and 5
        for color in Color:
            planes = observation(game, color)
            assert planes.dtype == np.float32 and planes.flags.c_contiguous
            assert np.array_equal(planes, _planes_square_by_square(game, color))
        legal = sorted(game.legal_actions())
        if not legal:
            break
        game.play(rng.choice(legal))


def test_the_draw_rule_planes_count_and_each_observation_is_its_own() -> None:
    aec = DoubleCornerAEC()
    aec.reset(options={"board": quiet_king_walk(6)})
    first = aec.observe(aec.agent_selection)["observation"]
    assert first[..., 6].min() == first[..., 6].max() == np.float32(6 / 80)
    assert not first[..., 7].any()
    first[:] = 9  # a learner may write into its observation: later ones are unchanged
    assert aec.observe(aec.agent_selection)["observation"][0, 0, 6] == np.float32(6 / 80)
    aec.reset(options={"fen": "B:WK29:BK4"})
    for move in ["4-8", "29-25", "8-4", "25-29"]:
        _play(aec, move)
    planes = aec.observe("player_0")["observation"]
    assert planes[..., 7].min() == planes[..., 7].max() == 0.5  # seen once before
    assert planes[..., 6].max() == np.float32(4 / 80)


def test_reset_in_the_middle_of_a_jump_starts_afresh() -> None:
    aec = DoubleCornerAEC()
    aec.reset(options={"fen": "B:W14,23,30:B9"})
    aec.step(33)  # 9x18, the jump goes on
    assert aec.game.path == (9, 18)
    aec.reset(options={"fen": "B:W26,27:B22"})
    assert aec.game.path == () and _mask(aec) == {move_actions(Move(22, 31), Color.BLACK)[0]}
    fresh = ActionGame(Board("B:W26,27:B22"))
    assert np.array_equal(aec.observe("player_0")["observation"],
                          observation(fresh, Color.BLACK))
    aec.reset()
    assert aec.board.fen() == Board().fen() and aec.board.move_stack == []
    assert _mask(aec) == {move_actions(move, Color.BLACK)[0] for move in Board().legal_moves}
