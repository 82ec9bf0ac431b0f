"""The cache of network scores the search keeps for its leaves (kernel/evalcache.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublecorner import Board, Position
from doublecorner.engine import Engine, Limit
from doublecorner.kernel.evalcache import MISSING, eval_cache_probe, eval_cache_store
from doublecorner.kernel.scores import TABLE_BOUND
from tests.test_engine_network import SHOT

KEYS = st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1)
SCORES = st.integers(min_value=-TABLE_BOUND, max_value=TABLE_BOUND)


@settings(deadline=None)  # the first example compiles the kernel's helpers
@given(KEYS, SCORES)
def test_a_stored_score_comes_back_for_its_key(key: int, score: int) -> None:
    cache = np.zeros(64, np.int64)
    assert eval_cache_probe(cache, key) == MISSING
    eval_cache_store(cache, key, score)
    assert eval_cache_probe(cache, key) == score


@settings(deadline=None)
@given(KEYS, SCORES, st.integers(min_value=1, max_value=(1 << 47) - 1))
def test_another_key_of_the_same_slot_misses_and_replaces(key: int, score: int,
                                                           high: int) -> None:
    cache = np.zeros(64, np.int64)
    other = key ^ (high << 16)  # the same slot and low bits, other high bits
    eval_cache_store(cache, key, score)
    assert eval_cache_probe(cache, other) == MISSING
    eval_cache_store(cache, other, -score)
    assert eval_cache_probe(cache, other) == -score
    assert eval_cache_probe(cache, key) == MISSING


def test_an_empty_cache_holds_no_key_not_even_zero() -> None:
    assert eval_cache_probe(np.zeros(64, np.int64), 0) == MISSING


@pytest.mark.parametrize("fen", [Board().fen(), SHOT, "B:W18,22,23,25,29:B6,9,11,14,15"])
def test_a_warm_cache_searches_the_very_same_tree(fen: str) -> None:
    """The cache saves work and changes nothing: nodes, score and line are a fresh engine's.

    The warm engine has first searched other positions and this one, so most
    of its leaves come from the cache; a wrong cached score (another
    position's, or the other side's) would change the tree.
    """
    position = Position.from_fen(fen)
    warm = Engine(hash_mb=8, tables=None)
    for other in (Board().fen(), SHOT, fen):
        warm.search(Position.from_fen(other), Limit(depth=9))
    warm.new_game()  # clears the transposition table, not the cache
    found = warm.search(position, Limit(depth=9))
    fresh = Engine(hash_mb=8, tables=None).search(position, Limit(depth=9))
    assert (found.nodes, found.score, found.pv) == (fresh.nodes, fresh.score, fresh.pv)
    assert warm._eval_cache.any()
