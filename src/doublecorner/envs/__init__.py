"""Reinforcement-learning environments: PettingZoo (two agents) and Gymnasium (one).

:class:`BatchedGame` holds N games as arrays and steps them all with one
compiled call; ``gymnasium.make_vec`` gives it as a vector environment
(:class:`DoubleCornerVectorEnv`). Install the ``envs`` extra
(``pip install '.[envs]'`` in doublecorner's folder); the core library never imports this
package. Importing it registers the Gymnasium id ``doublecorner/DoubleCorner-v0``
(with a vector entry point).

>>> from doublecorner.envs import DoubleCornerAEC, DoubleCornerEnv
>>> env = DoubleCornerEnv(opponent="random", play_as="black", max_steps=200)
>>> observation, info = env.reset(seed=0)
>>> observation["observation"].shape, observation["action_mask"].shape
((8, 8, 8), (128,))

See ``docs/envs.md`` for the action encoding, the observation and the rewards.
"""

try:
    import gymnasium
    import pettingzoo  # noqa: F401  # checked here so that the message names the extra
except ImportError as error:
    raise ImportError(
        f"doublecorner.envs needs {error.name or 'pettingzoo and gymnasium'}: install the "
        "'envs' extra, pip install '.[envs]' in doublecorner's folder", name=error.name) from error

from doublecorner.envs.actions import (
    ACTION_COUNT,
    IllegalActionError,
    InvalidActionError,
    action_hop,
    hop_action,
    move_actions,
)
from doublecorner.envs.aec import DoubleCornerAEC, env
from doublecorner.envs.batch import BatchedGame
from doublecorner.envs.game import ActionGame
from doublecorner.envs.gym import DoubleCornerEnv
from doublecorner.envs.observation import PLANES
from doublecorner.envs.vector import DoubleCornerVectorEnv

GYMNASIUM_ID = "doublecorner/DoubleCorner-v0"
if GYMNASIUM_ID not in gymnasium.registry:  # a reload must not register it twice
    gymnasium.register(id=GYMNASIUM_ID, entry_point="doublecorner.envs.gym:DoubleCornerEnv",
                       vector_entry_point="doublecorner.envs.vector:DoubleCornerVectorEnv")

__all__ = [
    "ACTION_COUNT",
    "GYMNASIUM_ID",
    "PLANES",
    "ActionGame",
    "BatchedGame",
    "DoubleCornerAEC",
    "DoubleCornerEnv",
    "DoubleCornerVectorEnv",
    "IllegalActionError",
    "InvalidActionError",
    "action_hop",
    "env",
    "hop_action",
    "move_actions",
]
