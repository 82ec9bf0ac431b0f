"""What both environments share: their spaces, their reset options and their infos."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.envs.actions import ACTION_COUNT
from doublecorner.envs.game import ActionGame, start_board
from doublecorner.envs.observation import SHAPE, observation
from doublecorner.outcome import Outcome

RENDER_MODES = ("ansi", "rgb_array")
Observation = dict[str, np.ndarray]


def observation_space() -> spaces.Dict:
    """The planes (see :mod:`doublecorner.envs.observation`) and the action mask."""
    return spaces.Dict({
        "observation": spaces.Box(low=0.0, high=1.0, shape=SHAPE, dtype=np.float32),
        "action_mask": spaces.Box(low=0, high=1, shape=(ACTION_COUNT,), dtype=np.int8),
    })


def action_space() -> spaces.Discrete:
    """One action per hop: see :mod:`doublecorner.envs.actions`."""
    return spaces.Discrete(ACTION_COUNT)


def observe(game: ActionGame, observer: Color, *, to_act: bool) -> Observation:
    """The observation of ``observer``; its action mask is all zeros unless ``to_act``."""
    mask = game.action_mask() if to_act else np.zeros(ACTION_COUNT, dtype=np.int8)
    return {"observation": observation(game, observer), "action_mask": mask}


def check_render_mode(render_mode: str | None) -> str | None:
    """``render_mode`` if it is ``None``, ``"ansi"`` or ``"rgb_array"``.

    :raises ValueError: any other value.
    """
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"invalid render_mode {render_mode!r}: expected None, "
                         + " or ".join(repr(mode) for mode in RENDER_MODES))
    return render_mode


def check_max_steps(max_steps: int | None) -> int | None:
    """``max_steps`` if it is ``None`` or a positive int.

    :raises ValueError: anything else.
    """
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int)
                                  or max_steps < 1):
        raise ValueError(f"invalid max_steps {max_steps!r}: expected None or an int of at least 1")
    return max_steps


def board_from_options(options: Mapping[str, Any] | None) -> Board:
    """The board an episode starts from: ``options["board"]`` (copied, history and all),
    ``options["fen"]``, or the start position. Other keys are ignored.

    :raises TypeError: ``board`` is not a Board or ``fen`` not a string.
    :raises InvalidFenError: ``fen`` is not a valid FEN.
    """
    options = options or {}
    if options.get("board") is not None:
        board = options["board"]
        if not isinstance(board, Board):
            raise TypeError(f"invalid options['board'] {board!r}: expected a doublecorner.Board")
        return board.copy()
    fen = options.get("fen")
    if fen is None:
        return start_board()
    if not isinstance(fen, str):
        raise TypeError(f"invalid options['fen'] {fen!r}: expected a FEN string")
    return Board(fen)


def outcome_info(outcome: Outcome) -> dict[str, Any]:
    """What an info dict says about the end of a game."""
    return {"result": outcome.result(), "termination": outcome.termination.value,
            "winner": None if outcome.winner is None else str(outcome.winner)}
