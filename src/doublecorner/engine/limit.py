"""How long a search may run: depth, nodes, time per move, or a game clock."""

from __future__ import annotations

import math
from dataclasses import dataclass

from doublecorner.errors import EngineError

MAX_DEPTH = 100  # iterations; the search line itself is capped at kernel.search.MAX_PLY


@dataclass(frozen=True, slots=True, kw_only=True)
class Limit:
    """Limits on one search; the search stops at the first one reached.

    With none given the search runs until it is stopped (or reaches
    :data:`MAX_DEPTH`). ``time`` is seconds for this move. ``clock`` is the
    time left on the mover's game clock, ``increment`` what each move adds,
    and ``moves_to_go`` the moves until the next time control, if any: the
    search then budgets its own time (see :mod:`doublecorner.engine.timeman`).

    >>> Limit(depth=8)
    Limit(depth=8, nodes=None, time=None, clock=None, increment=0.0, moves_to_go=None)
    >>> Limit(time=-1)
    Traceback (most recent call last):
    ...
    doublecorner.errors.EngineError: time limit must be a positive number of seconds, not -1
    """

    depth: int | None = None
    nodes: int | None = None
    time: float | None = None
    clock: float | None = None
    increment: float = 0.0
    moves_to_go: int | None = None

    def __post_init__(self) -> None:
        if self.depth is not None and not 1 <= self.depth <= MAX_DEPTH:
            raise EngineError(f"depth limit must be between 1 and {MAX_DEPTH}, not {self.depth}")
        if self.nodes is not None and self.nodes < 1:
            raise EngineError(f"node limit must be at least 1, not {self.nodes}")
        for name in ("time", "clock"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise EngineError(f"{name} limit must be a positive number of seconds, not {value}")
        if not (math.isfinite(self.increment) and self.increment >= 0):
            raise EngineError(f"increment must be zero or more seconds, not {self.increment}")
        if self.moves_to_go is not None and self.moves_to_go < 1:
            raise EngineError(f"moves to go must be at least 1, not {self.moves_to_go}")
