"""The engine protocol (DCP, see docs/engine-protocol.md): our engine as a program, and a client.

:class:`EngineServer` runs doublecorner's engine behind the protocol
(``doublecorner engine``); :class:`EngineClient` (asyncio) and
:class:`SimpleEngineClient` (its blocking facade) drive any program that
speaks it.
"""

from doublecorner.protocol.client import EngineClient, PlayResult, SimpleEngineClient
from doublecorner.protocol.messages import GoCommand, Info, PositionCommand
from doublecorner.protocol.server import EngineServer

__all__ = [
    "EngineClient",
    "EngineServer",
    "GoCommand",
    "Info",
    "PlayResult",
    "PositionCommand",
    "SimpleEngineClient",
]
