"""The search's cache of static scores: what is stored comes back, for that key only."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from doublecorner.kernel.evalcache import (
    EVAL_CACHE_SLOTS,
    MISSING,
    eval_cache_probe,
    eval_cache_store,
)
from doublecorner.kernel.scores import MATE

KEYS = st.integers(-(2**63), 2**63 - 1)
SCORES = st.integers(-MATE, MATE)


@settings(deadline=None)
@given(KEYS, SCORES)
def test_a_stored_score_comes_back(key: int, score: int) -> None:
    cache = np.zeros(EVAL_CACHE_SLOTS, np.int64)
    assert eval_cache_probe(cache, key) == MISSING
    eval_cache_store(cache, key, score)
    assert eval_cache_probe(cache, key) == score


@settings(deadline=None)
@given(KEYS, KEYS, SCORES)
def test_another_key_in_the_same_slot_misses(key: int, other: int, score: int) -> None:
    cache = np.zeros(EVAL_CACHE_SLOTS, np.int64)
    # The same slot (low bits) and a different position (high bits).
    clash = (other & ~(EVAL_CACHE_SLOTS - 1)) | (key & (EVAL_CACHE_SLOTS - 1))
    clash = (clash + 2**63) % 2**64 - 2**63
    eval_cache_store(cache, key, score)
    expected = score if clash == key else MISSING
    assert eval_cache_probe(cache, clash) == expected
    eval_cache_store(cache, clash, -score)
    assert eval_cache_probe(cache, clash) == -score
    assert eval_cache_probe(cache, key) == (-score if clash == key else MISSING)


def test_a_score_too_big_for_its_bits_is_not_kept() -> None:
    cache = np.zeros(EVAL_CACHE_SLOTS, np.int64)
    eval_cache_store(cache, 12345, 2**15)
    eval_cache_store(cache, 54321, -(2**15))
    assert eval_cache_probe(cache, 12345) == MISSING
    assert eval_cache_probe(cache, 54321) == MISSING
    assert not cache.any()
