"""Perft with clatsop (pure Python, 32-bit masks), run inside its own virtualenv.

clatsop's rules are already those of English draughts: captures are compulsory,
multi-jumps are expanded into complete moves, and ``Turn.initial()`` has Black
(bits 0-11, squares 1-12) to move. The walk uses ``expand_packed_unchecked``,
the library's hot path for tablebase loops: a state is one packed integer and
the successors of a complete move come back as packed integers.
"""

from __future__ import annotations

import sys

from _worker import run_worker
from clatsop import PackedState, Ruleset, Turn

RULESET = Ruleset.american()
START: PackedState = Turn.initial().packed


def perft_from(state: PackedState, depth: int) -> int:
    """Leaves ``depth`` complete moves below ``state``, the last ply counted in bulk."""
    successors, _status = RULESET.expand_packed_unchecked(state)
    if depth == 1:
        return len(successors)
    return sum(perft_from(child, depth - 1) for child in successors)


def perft(depth: int) -> int:
    """Perft of the start position."""
    return perft_from(START, depth)


if __name__ == "__main__":
    sys.exit(run_worker("clatsop", "Ruleset.expand_packed_unchecked", perft))
