"""A cache of the network's scores, keyed by position, for the search's leaves.

The transposition table holds no leaves (a node at depth 0 is scored before
the table is read), yet the same quiet position is scored many times in one
search: transpositions reach it by different move orders, and each iteration
of iterative deepening scores again the positions the last one reached. A
network's score depends on the position alone (the pieces and the side to
move), so it can be reused whenever the position comes back; a hit also saves
bringing the first layer's accumulators up to date along the line.

Each entry is one int64: the position's key with its low 16 bits (which the
slot's index already fixes) replaced by the score plus an offset, so a probe
checks the whole key. An empty slot (0) matches no key: every stored entry
has its score bits above 0.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_inline

EVAL_CACHE_BITS = 20  # 2**20 entries of 8 bytes: 8 MB an engine
EVAL_CACHE_ENTRIES = 1 << EVAL_CACHE_BITS
SCORE_OFFSET = 32768  # scores are kept as score + offset, 1 .. 65535
SCORE_MASK = 0xFFFF
MISSING = -(1 << 20)  # returned when the cache does not hold the key: below any score


@kernel_inline
def eval_cache_probe(cache: np.ndarray, key: int) -> int:
    """The score stored for ``key``, or :data:`MISSING`."""
    entry = cache[key & (cache.shape[0] - 1)]
    if entry != 0 and (entry ^ key) & ~SCORE_MASK == 0:
        score: int = (entry & SCORE_MASK) - SCORE_OFFSET
        return score
    return MISSING


@kernel_inline
def eval_cache_store(cache: np.ndarray, key: int, score: int) -> None:
    """Keep ``score`` (within +-32767) for ``key``, replacing whatever held its slot."""
    cache[key & (cache.shape[0] - 1)] = (key & ~SCORE_MASK) | (score + SCORE_OFFSET)
