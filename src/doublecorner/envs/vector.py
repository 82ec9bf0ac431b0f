"""The Gymnasium vector environment: N agents, each against its own opponent, in one batch.

``gymnasium.make_vec("doublecorner/DoubleCorner-v0", num_envs=N,
vectorization_mode="vector_entry_point")`` returns a :class:`DoubleCornerVectorEnv`:
N games of :class:`~doublecorner.envs.DoubleCornerEnv` held in a
:class:`~doublecorner.envs.BatchedGame` and stepped by one compiled call.

>>> import gymnasium
>>> import doublecorner.envs
>>> envs = gymnasium.make_vec("doublecorner/DoubleCorner-v0", num_envs=3,
...                           vectorization_mode="vector_entry_point")
>>> observations, infos = envs.reset(seed=0)
>>> observations["observation"].shape, observations["action_mask"].shape
((3, 8, 8, 8), (3, 128))
>>> actions = envs.unwrapped.random_actions()
>>> observations, rewards, terminations, truncations, infos = envs.step(actions)
>>> rewards.tolist(), terminations.tolist()
([0.0, 0.0, 0.0], [False, False, False])

Autoreset follows Gymnasium's default, ``AutoresetMode.NEXT_STEP``: the step
that ends an episode returns its final observation (its action mask all
zeros), reward and flags; the next step starts a new episode in that slot,
ignores its action and returns the new first observation with reward 0 and
both flags false.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from doublecorner.envs import render
from doublecorner.envs.batch import BatchedGame, Start
from doublecorner.envs.game import ActionGame
from doublecorner.envs.spaces import RENDER_MODES, action_space, observation_space


class DoubleCornerVectorEnv(VectorEnv):
    """``num_envs`` games of English draughts against ``opponent``, as one vector environment.

    The options are those of :class:`~doublecorner.envs.DoubleCornerEnv`
    (``opponent`` ``"random"`` or ``"engine"`` at ``level``, ``play_as``,
    ``max_steps`` on the agent's steps, ``illegal_action``), plus ``start``
    (``"start"``, ``"deck"`` or FENs, see :class:`BatchedGame`) and
    ``threads`` to step parts of the batch in parallel. Rewards are the
    agent's: +1 a win, -1 a loss (or an illegal action with
    ``illegal_action="lose"``), 0 otherwise. ``infos`` holds arrays:
    ``"color"`` (the agent's side, 0 Black, 1 White), ``"end"`` (why an
    episode ended, a code of ``doublecorner.kernel.batch``, 0 if it did not),
    ``"move"`` and ``"opponent_move"`` (route keys of this step's moves, -1 for
    none; ``doublecorner.kernel.decode_path`` gives their squares).

    :raises ValueError: an option is not one of its values.
    :raises EngineError: ``level`` is not 1-10.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2,  # noqa: RUF012
                "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, *, opponent: Literal["random", "engine"] = "random",
                 level: int = 1, play_as: Literal["black", "white", "random"] = "black",
                 max_steps: int | None = None,
                 illegal_action: Literal["lose", "raise"] = "lose",
                 start: Start = "start", threads: int = 1,
                 render_mode: str | None = None) -> None:
        if opponent not in ("random", "engine"):
            raise ValueError(f"invalid opponent {opponent!r}: expected 'random' or 'engine'")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"invalid render_mode {render_mode!r}: expected None, "
                             + " or ".join(repr(mode) for mode in RENDER_MODES))
        self.render_mode = render_mode
        self.num_envs = num_envs
        self.batch = BatchedGame(num_envs, start=start, max_steps=max_steps,
                                 autoreset="next-step", illegal_action=illegal_action,
                                 opponent=opponent, level=level, play_as=play_as,
                                 threads=threads)
        """The games (read only: step through the environment)."""
        self.single_observation_space = observation_space()
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._rows = np.arange(num_envs)

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray],
                                                              dict[str, Any]]:
        """Start every episode; ``seed`` (an int) seeds the games and the spaces.

        :raises TypeError: ``seed`` is a list (the batch takes one seed).
        """
        if isinstance(seed, list):
            raise TypeError("DoubleCornerVectorEnv.reset takes one int seed for the batch, "
                            "not a list")
        if seed is not None:
            self.action_space.seed(seed)
            self.observation_space.seed(seed)
        observations, masks = self.batch.reset(seed=seed)
        return {"observation": observations, "action_mask": masks}, self._infos()

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                          np.ndarray, dict[str, Any]]:
        """One hop for every agent (the opponents reply within the step where a move ends).

        :raises InvalidActionError: ``actions`` are not ``num_envs`` integers 0-127.
        :raises IllegalActionError: an action is not legal and ``illegal_action``
            is ``"raise"``; nothing has changed.
        """
        observations, masks, rewards, terminated, truncated = self.batch.step(actions)
        agent_rewards = rewards[self._rows, self.batch.agent_color]
        return ({"observation": observations, "action_mask": masks}, agent_rewards,
                terminated, truncated, self._infos())

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action of every game (the batch's own array)."""
        return self.batch.random_actions()

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans, one row per game (for maskable agents)."""
        return self.batch.action_masks.astype(bool)

    def _infos(self) -> dict[str, Any]:
        return {"color": self.batch.agent_color, "end": self.batch.ends,
                "move": self.batch.last_moves, "opponent_move": self.batch.opponent_moves}

    def render(self) -> tuple[Any, ...] | None:
        """Each game drawn as text (``ansi``) or a picture (``rgb_array``), per ``render_mode``."""
        if self.render_mode is None:
            return None
        games = [ActionGame(self.batch.board(game)) for game in range(self.num_envs)]
        if self.render_mode == "ansi":
            return tuple(render.ansi(game) for game in games)
        return tuple(render.rgb_array(game) for game in games)

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the batch's threads."""
        self.batch.close()

