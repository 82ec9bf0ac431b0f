"""Perft with OpenSpiel's checkers (C++ core, Python bindings), in its own virtualenv.

OpenSpiel applies a multi-jump one jump (one action) at a time, leaving the
same player to move until the chain ends. Perft counts complete moves, so after
each action the walk stays at the same depth while the mover is unchanged and
only goes one move deeper once the turn has passed. At the last ply, a position
whose actions are all single steps (no capture pending: captures are compulsory,
so then none is legal) is counted in bulk as ``len(legal_actions())``; an action
string names the from and to squares (``c3d4``), a jump spanning two files.

The start position is symmetric, so OpenSpiel's choice of colour for the first
player (player 0, at the bottom) does not change the count.
"""

from __future__ import annotations

import sys

import pyspiel
from _worker import run_worker

GAME = pyspiel.load_game("checkers")


def is_jump(state: pyspiel.State, action: int) -> bool:
    """Whether ``action`` jumps (its from and to files are two apart, e.g. ``c3e5``)."""
    text = state.action_to_string(action)
    return abs(ord(text[0]) - ord(text[2])) == 2


def perft_state(state: pyspiel.State, depth: int) -> int:
    """Complete-move leaves ``depth`` moves below ``state``; applies and undoes in place."""
    player = state.current_player()
    actions = state.legal_actions()
    if depth == 1 and not is_jump(state, actions[0]):
        return len(actions)
    leaves = 0
    for action in actions:
        state.apply_action(action)
        if state.is_terminal():
            leaves += depth == 1
        elif state.current_player() == player:  # mid-jump: the same move goes on
            leaves += perft_state(state, depth)
        elif depth == 1:
            leaves += 1
        else:
            leaves += perft_state(state, depth - 1)
        state.undo_action(player, action)
    return leaves


def perft(depth: int) -> int:
    """Perft of the start position."""
    return perft_state(GAME.new_initial_state(), depth)


if __name__ == "__main__":
    sys.exit(run_worker("open-spiel", "State.apply_action/undo_action", perft))
