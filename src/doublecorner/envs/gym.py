"""The Gymnasium environment: one agent against a built-in opponent.

The agent plays one hop per step (see :mod:`doublecorner.envs.actions`); once
its move is complete the opponent answers with a whole move inside the same
step, so each observation is the agent's, with the agent to act. The reward
is +1 for a win, -1 for a loss, 0 for a draw, at the end; 0 on every other step.

>>> env = DoubleCornerEnv(play_as="white")
>>> observation, info = env.reset(seed=7)
>>> info["opponent_move"], env.board.turn
('12-16', <Color.WHITE: 1>)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, SupportsFloat, cast

import gymnasium
import numpy as np

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.envs import render
from doublecorner.envs.actions import ACTION_COUNT, IllegalActionError, check_action
from doublecorner.envs.game import ActionGame, game_outcome
from doublecorner.envs.opponents import EngineOpponent, Opponent, RandomOpponent
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

Action = int | np.integer[Any]
_SIDES = {"black": Color.BLACK, "white": Color.WHITE}


class DoubleCornerEnv(gymnasium.Env[Observation, Action]):
    """English draughts against ``opponent``: ``"random"`` moves or the ``"engine"`` at ``level``.

    ``play_as`` is ``"black"`` (moves first), ``"white"`` or ``"random"`` (drawn
    at each reset from the environment's seeded generator, as are the random
    opponent's moves: the same seed gives the same episode). ``level`` is 1-10,
    as in ``doublecorner play``; each is a fixed search depth.

    A won or lost episode ends (``terminated``) by the rules: a side with no
    legal move loses. A draw by threefold repetition or the forty-move rule
    sets ``truncated`` (reward 0), and so does ``max_steps``, a cap on the
    agent's steps (hops) in an episode; ``info`` says which.

    An action outside 0-127 always raises :class:`InvalidActionError`. An
    action in the space that is not legal (``action_mask`` is 0) is handled
    by ``illegal_action``: ``"lose"`` (the default) plays nothing and ends
    the episode with reward -1 and ``info["illegal_action"]``, so that any
    sample of the action space is a valid input, as Gymnasium expects;
    ``"raise"`` raises :class:`IllegalActionError` and changes nothing.

    ``reset(options={"fen": ...})`` starts from a FEN, ``options={"board": board}``
    from a copy of a :class:`Board` with its history.

    :raises ValueError: an option is not one of its values.
    :raises EngineError: ``level`` is not 1-10.
    """

    # Gymnasium declares metadata an instance attribute, so it cannot be a ClassVar here.
    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}  # noqa: RUF012

    def __init__(self, *, opponent: Literal["random", "engine"] = "random", level: int = 1,
                 play_as: Literal["black", "white", "random"] | Color = "black",
                 max_steps: int | None = None,
                 illegal_action: Literal["lose", "raise"] = "lose",
                 render_mode: str | None = None) -> None:
        self.render_mode = check_render_mode(render_mode)
        self.max_steps = check_max_steps(max_steps)
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"invalid illegal_action {illegal_action!r}: expected 'lose' "
                             "or 'raise'")
        self.illegal_action = illegal_action
        if not isinstance(play_as, Color) and play_as not in ("black", "white", "random"):
            raise ValueError(f"invalid play_as {play_as!r}: expected 'black', 'white' or "
                             "'random'")
        self.play_as = play_as
        self.opponent: Opponent
        if opponent == "random":
            self.opponent = RandomOpponent()
        elif opponent == "engine":
            self.opponent = EngineOpponent(level)
        else:
            raise ValueError(f"invalid opponent {opponent!r}: expected 'random' or 'engine'")
        # Gymnasium types a Dict space as holding spaces, not the dicts it samples.
        self.observation_space = cast("gymnasium.spaces.Space[Observation]", observation_space())
        self.action_space = action_space()
        self.color = Color.BLACK
        """The agent's side in the current episode."""
        self.game = ActionGame()
        self.steps = 0
        self._done = False
        self._started = False  # step() needs reset() first, as gymnasium.make's wrapper says

    @property
    def board(self) -> Board:
        """The game's board: the completed moves (do not change it; use ``step``)."""
        return self.game.board

    def reset(self, *, seed: int | None = None,
              options: Mapping[str, Any] | None = None) -> tuple[Observation, dict[str, Any]]:
        """Start an episode; when the opponent has the first move, it is made here.

        :raises ValueError: the position in ``options`` is over, or the
            opponent's first move ends it.
        """
        super().reset(seed=seed)
        board = board_from_options(options)
        _check_goes_on(board)
        if isinstance(self.play_as, Color):
            self.color = self.play_as
        elif self.play_as == "random":
            self.color = Color(int(self.np_random.integers(2)))
        else:
            self.color = _SIDES[self.play_as]
        self.game = ActionGame(board)
        self.steps = 0
        self._done = False
        self._started = True
        self.opponent.new_game()
        info: dict[str, Any] = {"color": str(self.color)}
        if board.turn is not self.color:
            info["opponent_move"] = self._opponent_moves()
            _check_goes_on(board)
        return self._observe(), info

    def step(self, action: Action) -> tuple[Observation, SupportsFloat, bool, bool,
                                            dict[str, Any]]:
        """Play one hop; when it completes the agent's move, the opponent replies.

        :raises gymnasium.error.ResetNeeded: no episode was started with ``reset()``
            (the agent's side and the opponent's first move are set there).
        :raises InvalidActionError: ``action`` is not an integer 0-127.
        :raises IllegalActionError: the episode is over, or the action is not
            legal and ``illegal_action`` is ``"raise"``.
        """
        if not self._started:
            raise gymnasium.error.ResetNeeded(
                f"step({action!r}) before reset(): call reset() first to start an episode")
        if self._done:
            raise IllegalActionError(f"step({action!r}) after the end of the episode: "
                                     "call reset() first")
        value = check_action(action)
        info: dict[str, Any] = {}
        if not self.game.is_legal(value) and self.illegal_action == "lose":
            self._done = True
            try:
                self.game.play(value)
            except IllegalActionError as error:  # the message says why; nothing was played
                info = {"illegal_action": value, "error": str(error)}
            return self._observe(), -1.0, True, False, info
        move = self.game.play(value)
        self.steps += 1
        outcome = None
        if move is not None:
            info["move"] = str(move)
            outcome = self.game.outcome()
            if outcome is None:
                info["opponent_move"] = self._opponent_moves()
                outcome = self.game.outcome()
        reward = 0.0
        if outcome is not None:
            info.update(outcome_info(outcome))
            if outcome.winner is not None:
                reward = 1.0 if outcome.winner is self.color else -1.0
        # A win ends the episode by the rules; a draw by repetition or the forty-move
        # rule is a limit on its length, like the step cap (truncation, as the issue asks).
        terminated = outcome is not None and outcome.winner is not None
        truncated = outcome is not None and not terminated
        if outcome is None and self.max_steps is not None and self.steps >= self.max_steps:
            truncated = True
            info["truncated"] = f"step cap of {self.max_steps} reached"
        self._done = terminated or truncated
        return self._observe(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans (the method sb3-contrib's maskable agents call)."""
        if self._done:  # as in the observation: nothing is legal once the episode is over
            return np.zeros(ACTION_COUNT, dtype=bool)
        return self.game.action_mask().astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The board as text (``ansi``) or a picture (``rgb_array``), per ``render_mode``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode: pass render_mode= "
                                  "to the environment")
            return None
        if self.render_mode == "ansi":
            return render.ansi(self.game)
        return render.rgb_array(self.game)

    def _opponent_moves(self) -> str:
        move = self.opponent.choose(self.game.board, self.np_random)
        self.game.push(move)
        return str(move)

    def _observe(self) -> Observation:
        return observe(self.game, self.color, to_act=not self._done)


def _check_goes_on(board: Board) -> None:
    outcome = game_outcome(board)
    if outcome is not None:
        raise ValueError(f"cannot start an episode at {board.fen()}: the game is over "
                         f"({outcome.termination.value})")
