"""The Gymnasium vector environment: make_vec, and the single environment's episodes."""

from __future__ import annotations

import doctest
from collections import deque
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublecorner import Board, Color, Move
from doublecorner.envs import GYMNASIUM_ID, DoubleCornerEnv, DoubleCornerVectorEnv
from doublecorner.kernel import decode_path


class ScriptedOpponent:
    """Plays the moves it is given: the vector environment's opponent, replayed."""

    name = "scripted"

    def __init__(self) -> None:
        self.moves: deque[Move] = deque()

    def new_game(self) -> None:
        pass

    def choose(self, board: Board, rng: np.random.Generator) -> Move:
        return self.moves.popleft()


def test_make_vec_with_the_vector_entry_point_returns_the_batch() -> None:
    envs = gymnasium.make_vec(GYMNASIUM_ID, num_envs=5, vectorization_mode="vector_entry_point",
                              play_as="white", max_steps=50)
    assert isinstance(envs.unwrapped, DoubleCornerVectorEnv)
    observations, infos = envs.reset(seed=1)
    assert observations["observation"].shape == (5, 8, 8, 8)
    assert infos["color"].tolist() == [1] * 5 and (infos["opponent_move"] >= 0).all()
    assert envs.action_space.shape == (5,)
    envs.close()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["black", "white", "random"]),
       st.sampled_from([None, 9]))
def test_episodes_are_the_single_environments_episodes(seed: int, play_as: str,
                                                       max_steps: int | None) -> None:
    games = 3
    vector = DoubleCornerVectorEnv(games, play_as=play_as,  # type: ignore[arg-type]
                                   max_steps=max_steps)
    singles = [DoubleCornerEnv(max_steps=max_steps) for _ in range(games)]
    scripts = [ScriptedOpponent() for _ in range(games)]
    for env, script in zip(singles, scripts, strict=True):
        env.opponent = script

    def reset(game: int, infos: dict[str, np.ndarray]) -> None:
        singles[game].play_as = Color(int(infos["color"][game]))
        key = int(infos["opponent_move"][game])
        if key >= 0:
            scripts[game].moves.append(Move(*decode_path(key)))
        observation, _ = singles[game].reset()
        assert np.array_equal(observation["observation"], observations["observation"][game])

    observations, infos = vector.reset(seed=seed)
    for game in range(games):
        reset(game, infos)
    done = [False] * games
    for _ in range(150):
        for game, env in enumerate(singles):
            if not done[game]:
                assert np.array_equal(env.action_masks(),
                                      observations["action_mask"][game].astype(bool))
        actions = vector.random_actions().copy()
        observations, rewards, terminated, truncated, infos = vector.step(actions)
        for game, env in enumerate(singles):
            if done[game]:  # next step: this slot started a new episode
                assert not terminated[game] and not truncated[game] and rewards[game] == 0
                reset(game, infos)
                done[game] = False
                continue
            key = int(infos["opponent_move"][game])
            if key >= 0:
                scripts[game].moves.append(Move(*decode_path(key)))
            observation, reward, ended, capped, _ = env.step(int(actions[game]))
            assert np.array_equal(observation["observation"], observations["observation"][game])
            assert np.array_equal(observation["action_mask"], observations["action_mask"][game])
            assert (reward, ended, capped) == (rewards[game], terminated[game], truncated[game])
            done[game] = ended or capped


def test_the_engine_replies_in_every_game() -> None:
    envs = DoubleCornerVectorEnv(2, opponent="engine", level=1, play_as="random", max_steps=30)
    observations, infos = envs.reset(seed=4)
    replies = 0
    for _ in range(30):
        observations, _, terminated, truncated, infos = envs.step(envs.random_actions())
        replies += int((infos["opponent_move"] >= 0).sum())
        for game in range(2):
            assert observations["action_mask"][game].any() or terminated[game] or truncated[game]
    assert replies > 10
    envs.close()


def test_an_illegal_action_loses_the_episode() -> None:
    envs = DoubleCornerVectorEnv(2)
    envs.reset(seed=0)
    _, rewards, terminated, _, _ = envs.step(np.array([0, 40]))
    assert rewards.tolist()[0] == -1.0 and terminated.tolist() == [True, False]
    with pytest.raises(ValueError):
        DoubleCornerVectorEnv(1, opponent="nobody")  # type: ignore[arg-type]


def test_render_draws_every_game() -> None:
    envs = DoubleCornerVectorEnv(2, render_mode="ansi")
    envs.reset(seed=0)
    pictures = envs.render()
    assert pictures is not None and len(pictures) == 2 and "Black to move" in pictures[0]


def test_the_examples_of_docs_envs_md_run() -> None:
    path = Path(__file__).resolve().parents[1] / "docs" / "envs.md"
    failures, tried = doctest.testfile(str(path), module_relative=False,
                                       optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
