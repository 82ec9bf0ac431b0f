"""The neural evaluation in the kernel: inputs, quantisation, incremental accumulators."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from doublecorner import Board, Position
from doublecorner.kernel import network as layout
from doublecorner.kernel.movegen import generate_moves
from doublecorner.kernel.network import (
    ACTIVATION_ONE,
    HIDDEN,
    SCORE_SCALE,
    SCRATCH,
    WEIGHT_ONE,
    evaluate_position,
    quantise,
    refresh_accumulators,
    update_accumulators,
)
from doublecorner.train.dataset import from_mover, input_matrix, piece_buckets
from doublecorner.train.fit import forward, initial_parameters

PARAMETERS = initial_parameters(7)


def _reference_score(position: Position, parameters: np.ndarray) -> int:
    """The quantised network computed independently, in int64 numpy, from the input matrix."""
    own, theirs, kings = from_mover(*(np.array([value], np.uint32) for value in (
        position.black, position.white, position.kings)), np.array([int(position.turn)]))
    inputs = input_matrix(own, theirs, kings)[0].astype(np.int64)
    bucket = int(piece_buckets(own, theirs)[0])
    q = quantise(parameters).astype(np.int64)
    first = q[layout.Q_FT_BIAS:layout.Q_L2_WEIGHTS] + inputs @ q[
        layout.Q_FT_WEIGHTS:layout.Q_FT_BIAS].reshape(-1, HIDDEN)
    hidden = np.clip(first, 0, ACTIVATION_ONE)
    l2 = q[layout.Q_L2_WEIGHTS:layout.Q_L2_BIAS].reshape(4, layout.L2, HIDDEN)[bucket]
    l2_bias = q[layout.Q_L2_BIAS:layout.Q_OUT_WEIGHTS].reshape(4, layout.L2)[bucket]
    hidden = np.clip((l2 @ hidden + l2_bias) // WEIGHT_ONE, 0, ACTIVATION_ONE)
    out = q[layout.Q_OUT_WEIGHTS:layout.Q_OUT_BIAS].reshape(4, layout.L2)[bucket] @ hidden
    output = int(out + q[layout.Q_OUT_BIAS + bucket])
    return int(np.floor(output * SCORE_SCALE / (ACTIVATION_ONE * WEIGHT_ONE) + 0.5))


def _kernel_score(position: Position, parameters: np.ndarray) -> int:
    accumulators = np.zeros((1, 2, HIDDEN), np.float32)
    return int(evaluate_position(position.black, position.white, position.kings,
                                 int(position.turn), quantise(parameters), accumulators,
                                 np.zeros(SCRATCH, np.float32)))


def random_positions(count: int, seed: int) -> list[Position]:
    """Every position of random games, one after another, from a seeded generator."""
    chance = np.random.default_rng(seed)
    positions = []
    board = Board()
    while len(positions) < count:
        moves = list(board.legal_moves)
        if not moves or board.outcome() is not None:
            board = Board()
            continue
        board.push(moves[chance.integers(len(moves))])
        positions.append(board.position())
    return positions


POSITIONS = random_positions(300, seed=3)


def test_feature_table_names_each_input_once_per_perspective() -> None:
    for perspective in range(2):
        table = layout.FEATURE[perspective * 128:(perspective + 1) * 128]
        used = table[table >= 0]
        assert sorted(used.tolist()) == list(range(layout.INPUTS))


def test_kernel_matches_an_independent_integer_reference() -> None:
    for position in POSITIONS:
        assert _kernel_score(position, PARAMETERS) == _reference_score(position, PARAMETERS)


def test_quantised_scores_follow_the_float_network() -> None:
    own, theirs, kings = from_mover(*(np.array(values, np.uint32) for values in zip(
        *[(p.black, p.white, p.kings) for p in POSITIONS], strict=True)),
        np.array([int(p.turn) for p in POSITIONS]))
    floats = forward(PARAMETERS, input_matrix(own, theirs, kings),
                     piece_buckets(own, theirs)) * SCORE_SCALE
    kernel = np.array([_kernel_score(p, PARAMETERS) for p in POSITIONS])
    assert np.max(np.abs(floats - kernel)) < 0.05 * SCORE_SCALE


def test_colour_swap_gives_the_same_score() -> None:
    from doublecorner.train.dataset import reverse_bits

    for position in POSITIONS[:100]:
        black, white, kings = (int(reverse_bits(np.array([value], np.uint32))[0]) for value in
                               (position.white, position.black, position.kings))
        mirrored = Position(black, white, kings, position.turn.opponent)
        assert _kernel_score(mirrored, PARAMETERS) == _kernel_score(position, PARAMETERS)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, len(POSITIONS) - 1))
def test_incremental_accumulators_equal_a_fresh_computation(index: int) -> None:
    position = POSITIONS[index]
    network = quantise(PARAMETERS)
    accumulators = np.zeros((2, 2, HIDDEN), np.float32)
    fresh = np.zeros((1, 2, HIDDEN), np.float32)
    for row in generate_moves(position.black, position.white, position.kings,
                              int(position.turn)):
        refresh_accumulators(position.black, position.white, position.kings, network,
                             accumulators, 0)
        update_accumulators(position.black, position.white, position.kings, int(row[0]),
                            int(row[1]), int(row[2]), network, accumulators, 0)
        refresh_accumulators(int(row[0]), int(row[1]), int(row[2]), network, fresh, 0)
        assert np.array_equal(accumulators[1], fresh[0])


def test_plain_python_gives_the_same_scores() -> None:
    """NUMBA_DISABLE_JIT=1 runs the same kernel as Python: the scores must agree exactly."""
    fens = [position.fen() for position in POSITIONS[:25]]
    expected = [_kernel_score(Position.from_fen(fen), PARAMETERS) for fen in fens]
    script = (
        "import sys, numpy as np\n"
        "from doublecorner import Position\n"
        "from doublecorner.kernel.network import HIDDEN, SCRATCH, evaluate_position, quantise\n"
        "from doublecorner.train.fit import initial_parameters\n"
        "network = quantise(initial_parameters(7))\n"
        "for fen in sys.stdin.read().split('\\n'):\n"
        "    p = Position.from_fen(fen)\n"
        "    print(evaluate_position(p.black, p.white, p.kings, int(p.turn), network,\n"
        "          np.zeros((1, 2, HIDDEN), np.float32), np.zeros(SCRATCH, np.float32)))\n")
    result = subprocess.run([sys.executable, "-c", script], input="\n".join(fens),
                            capture_output=True, text=True, check=True,
                            env={**os.environ, "NUMBA_DISABLE_JIT": "1"})
    assert [int(line) for line in result.stdout.split()] == expected


def test_quantisation_clips_weights_so_sums_stay_exact() -> None:
    huge = PARAMETERS.copy()
    huge[layout.L2_WEIGHTS:layout.L2_BIAS] = 1e6
    huge[layout.FT_WEIGHTS:layout.FT_BIAS] = -1e6
    quantised = quantise(huge)
    biggest = np.abs(quantised[layout.Q_L2_WEIGHTS:layout.Q_L2_BIAS]).max()
    assert biggest * ACTIVATION_ONE * (HIDDEN + 1) < 2 ** 24
    first = np.abs(quantised[layout.Q_FT_WEIGHTS:layout.Q_FT_BIAS]).max()
    assert first * 25 < 2 ** 24
