"""The search's move ordering: the history that cut-offs raise and failures lower."""

from __future__ import annotations

import numpy as np

from doublecorner.kernel.encoding import encode_path
from doublecorner.kernel.ordering import (
    HISTORY_CEILING,
    HISTORY_SIZE,
    history_index,
    penalise_tried,
    record_cutoff,
    score_moves,
)

BLACK = 0
STEPS = [(9, 13), (10, 15), (11, 16)]  # three quiet moves of Black's, in the order tried


def _moves() -> np.ndarray:
    moves = np.zeros((len(STEPS), 4), np.int64)
    for row, step in enumerate(STEPS):
        moves[row, 3] = encode_path(step)
    return moves


def _history_of(history: np.ndarray, step: tuple[int, int]) -> int:
    return int(history[history_index(BLACK, encode_path(step))])


def test_a_cut_off_raises_its_move_and_lowers_the_moves_tried_before_it() -> None:
    moves, history = _moves(), np.zeros(HISTORY_SIZE, np.int64)
    killers = np.zeros((4, 2), np.int64)
    # The third move cut off at depth 3, after the first two were searched.
    record_cutoff(killers, history, 1, BLACK, moves[2, 3], 3)
    penalise_tried(moves, history, 0, 2, BLACK, 3)
    assert [_history_of(history, step) for step in STEPS] == [-9, -9, 9]
    assert killers[1, 0] == moves[2, 3]
    # White's history of the same squares is its own.
    assert not history[HISTORY_SIZE // 2:].any()


def test_a_penalised_move_is_ordered_after_one_never_tried() -> None:
    moves, history = _moves(), np.zeros(HISTORY_SIZE, np.int64)
    penalise_tried(moves, history, 0, 1, BLACK, 4)  # the first move failed once
    order = np.zeros(len(STEPS), np.int64)
    killers = np.zeros((4, 2), np.int64)
    score_moves(moves, order, 0, len(STEPS), BLACK, 1, -1, False, killers, history)
    assert order[0] < order[1] == order[2] == 0


def test_every_entry_is_halved_once_one_sinks_past_the_bound() -> None:
    moves, history = _moves(), np.zeros(HISTORY_SIZE, np.int64)
    history[history_index(BLACK, moves[0, 3])] = -HISTORY_CEILING
    history[history_index(BLACK, moves[2, 3])] = 1000
    penalise_tried(moves, history, 0, 1, BLACK, 2)
    assert _history_of(history, STEPS[0]) == (-HISTORY_CEILING - 4) // 2
    assert _history_of(history, STEPS[2]) == 500
