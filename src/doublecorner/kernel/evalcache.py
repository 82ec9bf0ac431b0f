"""A cache of static scores by position key, so a leaf met again is not scored again.

The search meets the same quiet position many times: re-searches of a zero
window or a reduction, aspiration re-searches, transpositions (men's moves
commute). A leaf is not stored in the transposition table, and the network's
score costs hundreds of nanoseconds, so scores are kept here: one int64 per
slot, the slot chosen by the key's low bits, holding the key's high bits and
the score (:data:`SCORE_BITS` bits, offset). The score of a position depends
only on its pieces and the side to move (both in the key), never on the
search, so a hit returns exactly what scoring again would. A side with no
move is stored as ``-MATE`` and read back as a loss at the node's ply.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_inline

SCORE_BITS = 16
SCORE_OFFSET = 1 << (SCORE_BITS - 1)  # every static score is within +-MATE < 2**15
SCORE_MASK = (1 << SCORE_BITS) - 1
EVAL_CACHE_SLOTS = 1 << 16  # 512 KiB: about the second-level cache of a core
MISSING = -(1 << 40)  # what a probe returns without a stored score


@kernel_inline
def eval_cache_probe(cache: np.ndarray, key: int) -> int:
    """The stored score of the position with ``key``, or :data:`MISSING`."""
    entry = cache[key & (cache.shape[0] - 1)]
    if entry != 0 and (entry ^ key) & ~SCORE_MASK == 0:
        score: int = (entry & SCORE_MASK) - SCORE_OFFSET
        return score
    return MISSING


@kernel_inline
def eval_cache_store(cache: np.ndarray, key: int, score: int) -> None:
    """Keep ``score`` for the position with ``key``, replacing the slot's.

    A score beyond +-2**15 (only a linear evaluation with outlandish weights
    makes one) is not kept: it would not fit its bits.
    """
    if -SCORE_OFFSET < score < SCORE_OFFSET:
        cache[key & (cache.shape[0] - 1)] = (key & ~SCORE_MASK) | (score + SCORE_OFFSET)
