"""The PettingZoo environment: two agents take turns, one hop per step.

``player_0`` plays Black and moves first, ``player_1`` plays White. An agent
in the middle of a multi-jump is selected again until its move is complete.
Rewards come at the end: +1 to the winner, -1 to the loser, 0 to both for a
draw.

>>> env = DoubleCornerAEC()
>>> env.reset(seed=1)
>>> observation, reward, terminated, truncated, info = env.last()
>>> env.agent_selection, int(observation["action_mask"].sum())
('player_0', 7)
>>> env.step(40)  # 11-15
>>> env.agent_selection, env.board.fen()[:2]
('player_1', 'W:')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.envs import render
from doublecorner.envs.game import ActionGame, game_outcome
from doublecorner.envs.spaces import (
    RENDER_MODES,
    Observation,
    action_space,
    board_from_options,
    check_max_steps,
    check_render_mode,
    observation_space,
    observe,
    outcome_info,
)

AGENTS = ("player_0", "player_1")
AGENT_COLORS = {"player_0": Color.BLACK, "player_1": Color.WHITE}
_AGENT_OF = AGENTS  # indexed by the colour's value: faster than a dict keyed by Color


class DoubleCornerAEC(AECEnv):  # type: ignore[misc]  # pettingzoo ships no type information
    """English draughts for two agents, PettingZoo's agent-environment-cycle API.

    Observations and actions are described in :mod:`doublecorner.envs.observation`
    and :mod:`doublecorner.envs.actions`. A won game ends (``terminations``)
    by the rules: a side with no legal move loses. A draw by threefold
    repetition or the forty-move rule sets ``truncations`` (reward 0), and so
    does ``max_steps``, a cap on the actions of an episode (both agents' hops
    together); ``infos`` says which.

    ``reset(options={"fen": ...})`` starts from a FEN, ``options={"board": board}``
    from a copy of a :class:`Board` with its history (so the draw rules see it).

    :raises ValueError: ``render_mode`` or ``max_steps`` is not valid.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "doublecorner_v0", "render_modes": list(RENDER_MODES),
        "is_parallelizable": False, "render_fps": 2}

    def __init__(self, *, render_mode: str | None = None, max_steps: int | None = None) -> None:
        super().__init__()
        self.render_mode = check_render_mode(render_mode)
        self.max_steps = check_max_steps(max_steps)
        self.possible_agents = list(AGENTS)
        # One space object per agent, always the same: seeding a space must stick.
        self._observation_spaces = {agent: observation_space() for agent in AGENTS}
        self._action_spaces = {agent: action_space() for agent in AGENTS}
        self.reset()

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_spaces[agent]

    @property
    def board(self) -> Board:
        """The game's board: the completed moves (do not change it; use ``step``)."""
        return self.game.board

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """Start a new game; a ``seed`` also seeds each agent's action space (``seed + i``).

        :raises ValueError: the position in ``options`` has no legal move or is drawn.
        """
        if seed is not None:
            for index, agent in enumerate(AGENTS):
                self._action_spaces[agent].seed(seed + index)
        board = board_from_options(options)
        outcome = game_outcome(board)
        if outcome is not None:
            raise ValueError(f"cannot start from {board.fen()}: the game is over "
                             f"({outcome.termination.value})")
        self.game = ActionGame(board)
        self.steps = 0
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self.agent_selection = _AGENT_OF[board.turn]
        self._skip_agent_selection = None

    def observe(self, agent: str) -> Observation:
        """``agent``'s view of the board; its action mask is all zeros unless it is to act."""
        to_act = (agent == self.agent_selection and agent in self.agents
                  and not self.terminations[agent] and not self.truncations[agent])
        return observe(self.game, AGENT_COLORS[agent], to_act=to_act)

    def step(self, action: Any) -> None:
        """Play one hop for the selected agent (``None`` for an agent whose game is over).

        :raises InvalidActionError: ``action`` is not an integer 0-127.
        :raises IllegalActionError: ``action`` is not legal now; nothing changes.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = self.game.play(action)  # raises before anything changes
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.steps += 1
        outcome = None if move is None else self.game.outcome()
        if outcome is not None:
            # A win ends the game by the rules (termination); a draw by repetition or
            # the forty-move rule is a limit on its length (truncation), as the issue asks.
            ended = self.terminations if outcome.winner is not None else self.truncations
            for each in AGENTS:
                ended[each] = True
                self.infos[each] = outcome_info(outcome)
                if outcome.winner is not None:
                    self.rewards[each] = 1.0 if AGENT_COLORS[each] is outcome.winner else -1.0
        elif self.max_steps is not None and self.steps >= self.max_steps:
            for each in AGENTS:
                self.truncations[each] = True
                self.infos[each] = {"truncated": f"step cap of {self.max_steps} reached"}
        self.agent_selection = _AGENT_OF[self.game.turn]
        if outcome is not None and outcome.winner is not None:
            self._accumulate_rewards()  # only a win rewards: adding the zeros changes nothing

    def render(self) -> str | np.ndarray | None:
        """The board as text (``ansi``) or a picture (``rgb_array``), per ``render_mode``."""
        if self.render_mode is None:
            logger.warn("render() called without a render_mode: pass render_mode= to the "
                        "environment")
            return None
        if self.render_mode == "ansi":
            return render.ansi(self.game)
        return render.rgb_array(self.game)

    def close(self) -> None:
        """Nothing to release: the environment holds no window nor process."""


def env(**kwargs: Any) -> OrderEnforcingWrapper:
    """A :class:`DoubleCornerAEC` in PettingZoo's order-enforcing wrapper (``reset`` first)."""
    return OrderEnforcingWrapper(DoubleCornerAEC(**kwargs))
