"""From the positions of self-play records to the network's inputs and targets.

Only quiet positions are kept (the side to move has no capture): the search
calls the evaluation only there. Each position is seen from the side to move,
as the kernel's accumulator of that side sees it (:mod:`doublecorner.kernel.network`).

The target is the expected result for the side to move, 0 to 1: where the
endgame tables hold the position, their value (exact); elsewhere
``result_weight`` times the game's result plus the rest times the search's
score turned into an expectation by the evaluation's own scale
(``sigmoid(score / SCORE_SCALE)``).

With a ``distance_step``, a won table position's target is lowered by the
step for each ply of its distance to conversion (DTC, at most
:data:`DISTANCE_CAP`), and a lost one's raised alike: the tables' bare value
scores every won ending the same, which leaves the search nothing to steer a
long win by.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from doublecorner.color import Color
from doublecorner.kernel.movegen import has_captures
from doublecorner.kernel.network import (
    ACTIVATION_ONE,
    INPUTS,
    SCORE_SCALE,
    bucket_of,
    features_of_positions,
)
from doublecorner.kernel.scores import TABLE_BOUND
from doublecorner.position import Position
from doublecorner.train.positions import UNKNOWN

if TYPE_CHECKING:
    from doublecorner.egtb import Tables

DISTANCE_CAP = 50  # plies to conversion counted in a table target, at most

_BITS = np.arange(32, dtype=np.uint32)


@dataclass(frozen=True, slots=True)
class Dataset:
    """Positions (bitboards seen from the mover) with their targets, ready to batch.

    ``own``/``theirs``/``kings`` are bitboards turned so that the side to move
    is Black; ``features`` are the kernel's position features as activations,
    0 to 1 (:func:`~doublecorner.kernel.network.position_features`); ``bucket``
    picks the layer set; ``game`` says which game a position came from (the
    validation split keeps games whole); ``deep`` marks the positions whose
    target took a deep search's score (:mod:`.deep`).
    """

    own: np.ndarray
    theirs: np.ndarray
    kings: np.ndarray
    features: np.ndarray
    bucket: np.ndarray
    target: np.ndarray
    game: np.ndarray
    deep: np.ndarray

    def __len__(self) -> int:
        return len(self.target)

    def subset(self, rows: np.ndarray) -> Dataset:
        return Dataset(self.own[rows], self.theirs[rows], self.kings[rows], self.features[rows],
                       self.bucket[rows],
                       self.target[rows], self.game[rows], self.deep[rows])

    def inputs(self, rows: np.ndarray | slice) -> np.ndarray:
        """The 0/1 input matrix (float32, ``len(rows)`` x :data:`INPUTS`) of some rows."""
        return input_matrix(self.own[rows], self.theirs[rows], self.kings[rows])


def reverse_bits(boards: np.ndarray) -> np.ndarray:
    """Each 32-bit board turned round: bit ``i`` to bit ``31 - i`` (the board rotated)."""
    values = boards.astype(np.uint32)
    result = np.zeros_like(values)
    for bit in range(32):
        result |= ((values >> np.uint32(bit)) & np.uint32(1)) << np.uint32(31 - bit)
    return result


def from_mover(black: np.ndarray, white: np.ndarray, kings: np.ndarray,
               turn: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mover's pieces, the opponent's and the kings, with the mover as Black."""
    black = black.astype(np.uint32)
    white = white.astype(np.uint32)
    kings = kings.astype(np.uint32)
    white_moves = turn.astype(bool)
    own = np.where(white_moves, reverse_bits(white), black)
    theirs = np.where(white_moves, reverse_bits(black), white)
    turned_kings = np.where(white_moves, reverse_bits(kings), kings)
    return own, theirs, turned_kings


def input_matrix(own: np.ndarray, theirs: np.ndarray, kings: np.ndarray) -> np.ndarray:
    """The network's inputs for positions seen from the mover (see the kernel's FEATURE)."""
    def unpack(board: np.ndarray) -> np.ndarray:
        return ((board[:, None] >> _BITS[None, :]) & 1).astype(np.float32)

    own_men, own_kings = unpack(own & ~kings), unpack(own & kings)
    their_men, their_kings = unpack(theirs & ~kings), unpack(theirs & kings)
    matrix = np.empty((len(own), INPUTS), np.float32)
    matrix[:, 0:28] = own_men[:, 0:28]
    matrix[:, 28:60] = own_kings
    matrix[:, 60:88] = their_men[:, 4:32]
    matrix[:, 88:120] = their_kings
    return matrix


@cache
def _bucket_of_count() -> np.ndarray:
    """The kernel's bucket for every piece count 0-32 (built on first use: it compiles)."""
    return np.array([bucket_of(count) for count in range(33)], np.int64)


def piece_buckets(own: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """The layer set of each position, by its number of pieces."""
    buckets: np.ndarray = _bucket_of_count()[_popcount(own | theirs)]
    return buckets


def _popcount(boards: np.ndarray) -> np.ndarray:
    values = boards.astype(np.uint32)
    counts = np.zeros(len(values), np.int64)
    for bit in range(32):
        counts += (values >> np.uint32(bit)) & np.uint32(1)
    return counts


def quiet_rows(black: np.ndarray, white: np.ndarray, kings: np.ndarray,
               turn: np.ndarray) -> np.ndarray:
    """The rows whose side to move has no capture (the positions the evaluation sees)."""
    quiet = np.fromiter((not has_captures(int(b), int(w), int(k), int(t))
                         for b, w, k, t in zip(black, white, kings, turn, strict=True)),
                        dtype=bool, count=len(black))
    return np.flatnonzero(quiet)


def targets(columns: dict[str, np.ndarray], *, result_weight: float,
            distances: np.ndarray | None = None, distance_step: float = 0.0) -> np.ndarray:
    """The expected result for the side to move of each row (see the module's text).

    ``distances`` holds each row's DTC (any value where the tables do not decide it).
    """
    mover_result = np.where(columns["turn"] == 0, columns["result"], -columns["result"])
    result = (mover_result.astype(np.float32) + 1) / 2
    score = columns["score"].astype(np.float64)
    expectation = np.where(np.abs(score) > TABLE_BOUND, (np.sign(score) + 1) / 2,
                           1 / (1 + np.exp(-np.clip(score, -5000, 5000) / SCORE_SCALE)))
    blended = result_weight * result + (1 - result_weight) * expectation
    table = columns["table"]
    exact = (table.astype(np.float64) + 1) / 2
    if distances is not None and distance_step > 0:
        exact -= table * distance_step * np.minimum(distances, DISTANCE_CAP)
    return np.where(table != UNKNOWN, exact, blended).astype(np.float32)


def table_distances(columns: dict[str, np.ndarray], tables: Tables) -> np.ndarray:
    """Each row's DTC where the tables call it won or lost (0 elsewhere).

    :raises TableError: a decided row the tables do not hold (other tables labelled it).
    """
    distances = np.zeros(len(columns["table"]), np.int64)
    for row in np.flatnonzero((columns["table"] == 1) | (columns["table"] == -1)):
        distances[row] = tables.dtc(Position(int(columns["black"][row]),
                                             int(columns["white"][row]),
                                             int(columns["kings"][row]),
                                             Color(int(columns["turn"][row]))))
    return distances


def build_dataset(columns: dict[str, np.ndarray], *, result_weight: float = 0.5,
                  tables: Tables | None = None, distance_step: float = 0.0) -> Dataset:
    """The quiet positions of the rebuilt columns (:mod:`.positions`), with their targets.

    :raises ValueError: a ``distance_step`` above 0 without the ``tables``
        that give the distances.
    """
    if distance_step > 0 and tables is None:
        raise ValueError("a distance step needs the endgame tables that give the distances")
    rows = quiet_rows(columns["black"], columns["white"], columns["kings"], columns["turn"])
    picked = {name: values[rows] for name, values in columns.items()}
    own, theirs, kings = from_mover(picked["black"], picked["white"], picked["kings"],
                                    picked["turn"])
    distances = (table_distances(picked, tables)
                 if tables is not None and distance_step > 0 else None)
    features = features_of_positions(
        picked["black"].astype(np.int64), picked["white"].astype(np.int64),
        picked["kings"].astype(np.int64), picked["turn"].astype(np.int64)) / ACTIVATION_ONE
    return Dataset(own, theirs, kings, features.astype(np.float32), piece_buckets(own, theirs),
                   targets(picked, result_weight=result_weight, distances=distances,
                           distance_step=distance_step),
                   picked["game"].astype(np.int64), picked["deep"].astype(bool))


def repeat_deep(dataset: Dataset, repeats: int) -> Dataset:
    """``dataset`` with each position that has a deep score ``repeats`` times (in place of
    once): the fit then weighs those labels, from searches that saw further, that much more."""
    if repeats <= 1:
        return dataset
    deep = np.flatnonzero(dataset.deep)
    return dataset.subset(np.concatenate([np.arange(len(dataset)),
                                          np.repeat(deep, repeats - 1)]))


def split_by_game(dataset: Dataset, *, validation_share: float,
                  seed: int) -> tuple[Dataset, Dataset]:
    """Training and validation sets, every game wholly in one (no position leaks across)."""
    games = np.unique(dataset.game)
    chance = np.random.default_rng(seed)
    held = chance.random(len(games)) < validation_share
    if len(games) > 1 and not held.any():
        held[chance.integers(len(games))] = True
    if held.all() and len(games) > 1:
        held[chance.integers(len(games))] = False
    is_held = np.isin(dataset.game, games[held])
    return dataset.subset(np.flatnonzero(~is_held)), dataset.subset(np.flatnonzero(is_held))

