"""The endgame tables against an independent exhaustive solver on random small positions.

The solver shares nothing with the table builder but the move generator: it collects
every position reachable from the sample, then labels them by plain fixed-point passes
(no moves loses; a move to a loss wins; only moves to wins loses) until nothing changes.
Whatever is still unlabelled can never be forced either way, so it is a draw.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from doublecorner.color import Color
from doublecorner.egtb import Tables, Value
from doublecorner.kernel import generate_moves
from doublecorner.position import Position

numba = pytest.importorskip("numba")
if numba.config.DISABLE_JIT:
    # Millions of positions: as plain Python the solver would run for hours.
    pytest.skip("the exhaustive solver needs compiled code", allow_module_level=True)

SEED = 20240606
SAMPLE_SIZES = {3: 1000, 4: 1000}
BLACK_CROWN_ROW = 0xF0000000  # squares 29-32
WHITE_CROWN_ROW = 0x0000000F  # squares 1-4

State = tuple[int, int, int, int]  # black, white, kings, turn (0 = Black to move)


@pytest.fixture(scope="module")
def tables(egtb4: Tables) -> Tables:
    return egtb4


def random_position(rng: random.Random, pieces: int) -> State:
    """A legal position of ``pieces`` pieces, both sides present, chosen uniformly-ish."""
    while True:
        black = white = kings = 0
        for square in rng.sample(range(32), pieces):
            bit = 1 << square
            if rng.random() < 0.5:
                black |= bit
            else:
                white |= bit
            if rng.random() < 0.5:
                kings |= bit
        men = ~kings
        if (black and white and not black & men & BLACK_CROWN_ROW
                and not white & men & WHITE_CROWN_ROW):
            return black, white, kings, rng.randrange(2)


def sample_positions() -> list[State]:
    rng = random.Random(SEED)
    return [random_position(rng, pieces)
            for pieces, count in SAMPLE_SIZES.items() for _ in range(count)]


KEY_TYPE = numba.types.UniTuple(numba.int64, 2)


@numba.njit
def _key(black: int, white: int, kings: int, turn: int) -> tuple[int, int]:
    return black | (white << 32), kings | (turn << 32)


@numba.njit
def _grow(array: np.ndarray, size: int) -> np.ndarray:
    if size < len(array):
        return array
    bigger = np.empty((2 * len(array), *array.shape[1:]), array.dtype)
    bigger[:size] = array[:size]
    return bigger


@numba.njit
def _reachable(roots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every position reachable from ``roots``, with the edges as child numbers."""
    index = numba.typed.Dict.empty(key_type=KEY_TYPE, value_type=numba.int64)
    states = np.empty((1 << 16, 4), np.int64)
    children = np.empty(1 << 18, np.int64)
    starts = np.empty(1 << 16, np.int64)
    root_numbers = np.empty(len(roots), np.int64)
    size = 0
    for i in range(len(roots)):
        key = _key(roots[i, 0], roots[i, 1], roots[i, 2], roots[i, 3])
        if key not in index:
            index[key] = size
            states = _grow(states, size)
            states[size] = roots[i]
            size += 1
        root_numbers[i] = index[key]
    edges = 0
    cursor = 0
    while cursor < size:
        black, white, kings, turn = states[cursor]
        starts = _grow(starts, cursor)
        starts[cursor] = edges
        cursor += 1
        for row in generate_moves(black, white, kings, turn):
            key = _key(row[0], row[1], row[2], 1 - turn)
            number = index.get(key, -1)
            if number < 0:
                number = size
                index[key] = number
                states = _grow(states, size)
                states[size, 0] = row[0]
                states[size, 1] = row[1]
                states[size, 2] = row[2]
                states[size, 3] = 1 - turn
                size += 1
            children = _grow(children, edges)
            children[edges] = number
            edges += 1
    starts = _grow(starts, size)
    starts[size] = edges
    return states[:size], starts[:size + 1], children[:edges], root_numbers


@numba.njit
def _label(starts: np.ndarray, children: np.ndarray) -> np.ndarray:
    """1 = win, -1 = loss, 0 = draw for the side to move, by passes until nothing changes."""
    count = len(starts) - 1
    value = np.zeros(count, np.int8)
    undecided = np.empty(count, np.int64)
    pending = 0
    for node in range(count):
        if starts[node] == starts[node + 1]:
            value[node] = -1  # no moves: the side to move has lost
        else:
            undecided[pending] = node
            pending += 1
    changed = True
    while changed:
        changed = False
        kept = 0
        for i in range(pending):
            node = undecided[i]
            reaches_loss = False
            only_wins = True
            for edge in range(starts[node], starts[node + 1]):
                child = value[children[edge]]
                if child == -1:
                    reaches_loss = True
                    break
                if child != 1:
                    only_wins = False
            if reaches_loss:
                value[node] = 1
                changed = True
            elif only_wins:
                value[node] = -1
                changed = True
            else:
                undecided[kept] = node
                kept += 1
        pending = kept
    return value


def solve(roots: list[State]) -> list[Value]:
    """The game value of every root, by fixed-point labelling of everything reachable."""
    _, starts, children, root_numbers = _reachable(np.array(roots, np.int64))
    value = _label(starts, children)
    return [Value(int(value[number])) for number in root_numbers]


def test_tables_agree_with_exhaustive_search(tables: Tables) -> None:
    roots = sample_positions()
    assert len(set(roots)) > 1900
    solved = solve(roots)
    assert set(solved) == set(Value)
    disagreements = []
    for (black, white, kings, turn), searched in zip(roots, solved, strict=True):
        position = Position(black, white, kings, Color(turn))
        assert tables.covers(position)
        found = tables.value(position)
        if found != searched:
            disagreements.append(f"{position.fen()}: tables {found.name}, search {searched.name}")
    assert not disagreements, "\n".join(disagreements[:20])
