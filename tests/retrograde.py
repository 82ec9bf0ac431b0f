"""The breadth-first retrograde the tests' independent table solvers share.

Plain dicts and the rules' definitions only: it shares no code with
:mod:`doublecorner.kernel.egtb_build`, which it is there to check.
"""

from __future__ import annotations

import collections
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

from doublecorner.egtb import Value

S = TypeVar("S", bound=Hashable)


def settle(frontier: Iterable[S], parents: Mapping[S, Sequence[S]], value: dict[S, Value],
           open_moves: dict[S, int], *, distance: dict[S, int] | None = None,
           never_lost: frozenset[S] | set[S] = frozenset()) -> None:
    """Settle what follows from the settled ``frontier`` (in order of ``distance``, if kept).

    A parent of a lost position wins; a parent whose last open move leads to
    a win loses, unless it is in ``never_lost`` (it has a drawing way out). A
    parent settled first is settled at its shortest win and, for a loss, its
    longest: so ``distance`` counts plies to the end of the retrograde's game.
    """
    queue = collections.deque(frontier)
    while queue:
        settled = queue.popleft()
        for parent in parents.get(settled, ()):
            if parent in value:
                continue
            if value[settled] == Value.LOSS:
                value[parent] = Value.WIN
            else:
                open_moves[parent] -= 1
                if open_moves[parent] or parent in never_lost:
                    continue
                value[parent] = Value.LOSS
            if distance is not None:
                distance[parent] = distance[settled] + 1
            queue.append(parent)
