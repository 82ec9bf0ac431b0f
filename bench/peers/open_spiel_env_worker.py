"""Random play with OpenSpiel's checkers, timed for ``bench/envs.py``, in its own virtualenv.

Plays whole games of uniformly random legal actions (a multi-jump is one
action per jump, as in doublecorner's environments) for about ``--seconds``
per loop, and prints one JSON line: a list of records ``{"name", "loop",
"games", "actions", "seconds"}``, one per loop:

* ``bare``: ``legal_actions()`` and ``apply_action()``;
* ``observed``: also ``observation_tensor()`` and ``legal_actions_mask()`` for
  the player to move, what a learner reads at each step.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable

import pyspiel

GAME = pyspiel.load_game("checkers")


def bare_game(rng: random.Random) -> int:
    state = GAME.new_initial_state()
    actions = 0
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        actions += 1
    return actions


def observed_game(rng: random.Random) -> int:
    state = GAME.new_initial_state()
    actions = 0
    while not state.is_terminal():
        player = state.current_player()
        state.observation_tensor(player)
        state.legal_actions_mask(player)
        state.apply_action(rng.choice(state.legal_actions()))
        actions += 1
    return actions


def timed(play: Callable[[random.Random], int], seconds: float, seed: int) -> dict[str, float]:
    """Whole games until ``seconds`` have passed; the games, actions and time taken."""
    rng = random.Random(seed)
    play(rng)  # warm-up, not timed
    games = actions = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        actions += play(rng)
        games += 1
        elapsed = time.perf_counter() - start
    return {"games": games, "actions": actions, "seconds": elapsed}


def main() -> int:
    parser = argparse.ArgumentParser(description="random play with OpenSpiel's checkers")
    parser.add_argument("--seconds", type=float, required=True, help="time per loop")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    records = [
        {"name": "open-spiel", "loop": loop, **timed(play, arguments.seconds, arguments.seed)}
        for loop, play in (("bare", bare_game), ("observed", observed_game))
    ]
    print(json.dumps(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
