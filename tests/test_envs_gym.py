"""The Gymnasium environment, through its real interface."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from doublecorner import Board, Color, EngineError, Termination
from doublecorner.envs import (
    GYMNASIUM_ID,
    DoubleCornerEnv,
    IllegalActionError,
    InvalidActionError,
    move_actions,
)
from tests.test_envs_aec import quiet_king_walk


def _random_episode(env: DoubleCornerEnv, seed: int) -> tuple[list[str], float, dict[str, Any]]:
    """Play masked random actions to the end; the moves, the last reward and info."""
    observation, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    reward: Any = 0.0
    while True:
        action = env.action_space.sample(observation["action_mask"])
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return [str(move) for move in env.board.move_stack], float(reward), info


def test_passes_gymnasium_check_env_with_every_render_mode() -> None:
    check_env(gymnasium.make(GYMNASIUM_ID).unwrapped)
    with pytest.warns(UserWarning, match="spec"):  # made directly: only its own render mode
        check_env(DoubleCornerEnv(play_as="random", max_steps=50, render_mode="rgb_array"))


def test_passes_check_env_against_the_engine() -> None:
    check_env(DoubleCornerEnv(opponent="engine", level=1, play_as="white"),
              skip_render_check=True)


def test_an_episode_against_the_random_player_ends_by_the_rules() -> None:
    env = DoubleCornerEnv()
    moves, reward, info = _random_episode(env, seed=3)
    assert info["termination"] in {termination.value for termination in Termination}
    assert reward == {"1-0": 1.0, "0-1": -1.0, "1/2-1/2": 0.0}[info["result"]]
    assert moves == [str(move) for move in env.board.move_stack] and len(moves) > 10


def test_a_seed_makes_the_episode_repeat() -> None:
    env = DoubleCornerEnv(play_as="random")
    first = _random_episode(env, seed=11)
    assert _random_episode(env, seed=11) == first
    assert _random_episode(DoubleCornerEnv(play_as="random"), seed=11) == first
    assert _random_episode(env, seed=12)[0] != first[0]


def test_play_as_random_draws_both_sides() -> None:
    env = DoubleCornerEnv(play_as="random")
    colors = {env.reset(seed=seed)[1]["color"] for seed in range(20)}
    assert colors == {"Black", "White"}


def test_as_white_the_opponent_opens_and_the_agent_sees_its_own_side_first() -> None:
    env = DoubleCornerEnv(play_as="white")
    observation, info = env.reset(seed=0)
    assert env.board.turn is Color.WHITE and len(env.board.move_stack) == 1
    assert info["opponent_move"] == str(env.board.peek())
    assert observation["observation"][:3, :, 0].sum() == 12  # White's men, on its rows 0-2
    assert observation["action_mask"].sum() == len(env.board.legal_moves)


def test_a_multi_jump_takes_one_step_per_jump_before_the_opponent_replies() -> None:
    env = DoubleCornerEnv()
    env.reset(options={"fen": "B:W14,23,30:B9"})
    observation, reward, terminated, truncated, info = env.step(33)
    assert (reward, terminated, truncated, info) == (0.0, False, False, {})
    assert np.flatnonzero(observation["action_mask"]).tolist() == [69]
    observation, reward, terminated, truncated, info = env.step(69)
    assert info["move"] == "9x18x27" and info["opponent_move"] in {"30-25", "30-26"}
    assert env.board.turn is Color.BLACK


def test_the_engine_takes_what_it_is_offered() -> None:
    env = DoubleCornerEnv(opponent="engine", level=1)
    env.reset(options={"fen": "B:W22,18:B9"})
    _, reward, terminated, _, info = env.step(move_actions(env.board.parse_move("9-14"),
                                                           Color.BLACK)[0])
    assert info["opponent_move"] == "18x9" and terminated and reward == -1.0
    assert info["termination"] == Termination.NO_MOVES.value


def test_an_illegal_action_loses_by_default_and_plays_nothing() -> None:
    env = DoubleCornerEnv()
    env.reset(seed=0)
    fen = env.board.fen()
    observation, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] == 0 and "illegal action 0 " in info["error"]
    assert env.board.fen() == fen and not observation["action_mask"].any()
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(40)


def test_an_illegal_action_raises_when_asked_and_changes_nothing() -> None:
    env = DoubleCornerEnv(illegal_action="raise")
    env.reset(seed=0)
    fen = env.board.fen()
    with pytest.raises(IllegalActionError, match=r"illegal action 0 .*legal actions: "):
        env.step(0)
    assert env.board.fen() == fen and env.steps == 0
    env.step(40)  # the episode goes on
    assert len(env.board.move_stack) == 2


def test_an_action_outside_the_space_always_raises() -> None:
    env = DoubleCornerEnv()
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match="128"):
        env.step(128)
    assert env.board.move_stack == []


def test_the_forty_move_rule_truncates_the_episode_in_a_draw() -> None:
    board = quiet_king_walk(79)  # White to move: its next quiet move is ply 80
    env = DoubleCornerEnv(play_as="white")
    observation, info = env.reset(seed=0, options={"board": board})
    assert "opponent_move" not in info
    assert observation["observation"][0, 0, 6] == pytest.approx(79 / 80)
    quiet = next(move for move in env.board.legal_moves if not move.is_capture)
    _, reward, terminated, truncated, info = env.step(move_actions(quiet, Color.WHITE)[0])
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert info["termination"] == Termination.FORTY_MOVE_RULE.value
    assert "opponent_move" not in info


def test_the_step_cap_truncates() -> None:
    env = DoubleCornerEnv(max_steps=2)
    observation, _ = env.reset(seed=4)
    results = []
    for _ in range(2):
        action = env.action_space.sample(observation["action_mask"])
        observation, reward, terminated, truncated, info = env.step(action)
        results.append((terminated, truncated))
    assert results == [(False, False), (False, True)]
    assert "step cap" in info["truncated"] and reward == 0.0


def test_render_modes() -> None:
    env = DoubleCornerEnv(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and str(env.board) in text
    env = DoubleCornerEnv(render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render()
    assert isinstance(image, np.ndarray) and image.shape == (256, 256, 3)
    assert image.dtype == np.uint8 and len(np.unique(image.reshape(-1, 3), axis=0)) >= 5


def test_kings_and_sides_are_drawn_differently() -> None:
    def colours_on_14(fen: str) -> set[tuple[int, ...]]:
        env = DoubleCornerEnv(render_mode="rgb_array")
        env.reset(options={"fen": fen})
        image = env.render()
        assert isinstance(image, np.ndarray)
        cell = image[96:128, 64:96]  # square 14 is c5: row 3, file 2
        return {tuple(pixel) for pixel in cell.reshape(-1, 3).tolist()}

    man, king = colours_on_14("B:W32:B14"), colours_on_14("B:W32:BK14")
    white_man, white_king = colours_on_14("B:W14:B1"), colours_on_14("B:WK14:B1")
    assert len({frozenset(each) for each in (man, king, white_man, white_king)}) == 4
    assert king - man and white_king - white_man  # the crown


def test_options_are_checked() -> None:
    for keywords, message in [({"opponent": "minimax"}, "opponent"),
                              ({"play_as": "red"}, "play_as"),
                              ({"illegal_action": "ignore"}, "illegal_action"),
                              ({"max_steps": 0}, "max_steps"),
                              ({"render_mode": "human"}, "render_mode")]:
        with pytest.raises(ValueError, match=message):
            DoubleCornerEnv(**keywords)
    with pytest.raises(EngineError, match="level"):
        DoubleCornerEnv(opponent="engine", level=11)
    with pytest.raises(TypeError, match="Board"):
        DoubleCornerEnv().reset(options={"board": "B:W32:B1"})


def test_action_masks_agrees_with_the_observation() -> None:
    env = DoubleCornerEnv()
    observation, _ = env.reset(seed=0)
    assert np.array_equal(env.action_masks(), observation["action_mask"].astype(bool))
    assert Board().legal_moves and env.action_masks().sum() == 7


def test_action_masks_follows_the_episode_to_its_end() -> None:
    env = DoubleCornerEnv(opponent="random")
    observation, _ = env.reset(seed=1, options={"fen": "B:W14,23,30:B9,1"})
    observation, *_ = env.step(33)  # 9x18: the jump goes on, the agent acts again
    assert env.game.path == (9, 18)
    assert np.array_equal(env.action_masks(), observation["action_mask"].astype(bool))
    assert np.flatnonzero(env.action_masks()).tolist() == [69]
    observation, reward, terminated, _, _ = env.step(0)  # illegal: the episode is lost
    assert terminated and reward == -1.0
    assert not env.action_masks().any() and env.action_masks().dtype == bool
    assert not observation["action_mask"].any()


def test_step_before_reset_is_refused_as_through_gymnasium_make() -> None:
    """Made directly or through gymnasium.make, a step needs an episode; nothing is played."""
    for env in (DoubleCornerEnv(), gymnasium.make(GYMNASIUM_ID)):
        with pytest.raises(gymnasium.error.ResetNeeded, match="before"):
            env.step(40)
        env.reset(seed=0)
        assert env.unwrapped.board.move_stack == []
        env.step(40)
