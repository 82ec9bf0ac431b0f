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
from doublecorner.kernel.bits import square_row_file
from doublecorner.kernel.movegen import generate_moves
from doublecorner.kernel.network import (
    ACTIVATION_ONE,
    EXTRA,
    FREE_CAP,
    FREE_UNIT,
    HIDDEN,
    JUMPER_CAP,
    JUMPER_UNIT,
    L2_INPUTS,
    SCORE_SCALE,
    SCRATCH,
    STEP_CAP,
    STEP_UNIT,
    WEIGHT_ONE,
    evaluate_position,
    features_of_positions,
    quantise,
    refresh_accumulators,
    update_accumulators,
)
from doublecorner.train.dataset import from_mover, input_matrix, piece_buckets
from doublecorner.train.fit import forward, initial_parameters

PARAMETERS = initial_parameters(7)


def _reference_features(position: Position) -> list[int]:
    """The position features, square by square on the board's rows and files."""
    pieces: dict[tuple[int, int], tuple[int, bool]] = {}
    for index in range(32):
        bit = 1 << index
        if (position.black | position.white) & bit:
            pieces[square_row_file(index)] = (0 if position.black & bit else 1,
                                              bool(position.kings & bit))
    steps, jumpers = [0, 0], [0, 0]
    for (row, file), (colour, is_king) in pieces.items():
        forward = 1 if colour == 0 else -1  # Black's men go down the rows
        rows = (1, -1) if is_king else (forward,)
        jumps = False
        for row_step in rows:
            for file_step in (-1, 1):
                near = (row + row_step, file + file_step)
                far = (row + 2 * row_step, file + 2 * file_step)
                if not (0 <= near[0] < 8 and 0 <= near[1] < 8):
                    continue
                if near not in pieces:
                    steps[colour] += 1
                elif (pieces[near][0] != colour and 0 <= far[0] < 8 and 0 <= far[1] < 8
                      and far not in pieces):
                    jumps = True
        jumpers[colour] += jumps
    free = [0, 0]  # men with no opponent in the cone of squares ahead of them
    for (row, file), (colour, is_king) in pieces.items():
        forward = 1 if colour == 0 else -1
        free[colour] += not is_king and not any(
            other_colour != colour and (other_row - row) * forward > 0
            and abs(other_file - file) <= abs(other_row - row)
            for (other_row, other_file), (other_colour, _) in pieces.items())
    mover = int(position.turn)
    own_rows = sum(row % 2 == mover for row, _ in pieces)  # rows 1, 3, 5, 7 from its side
    return [min(steps[mover], STEP_CAP) * STEP_UNIT,
            min(steps[1 - mover], STEP_CAP) * STEP_UNIT,
            min(jumpers[mover], JUMPER_CAP) * JUMPER_UNIT,
            min(jumpers[1 - mover], JUMPER_CAP) * JUMPER_UNIT,
            min(free[mover], FREE_CAP) * FREE_UNIT,
            min(free[1 - mover], FREE_CAP) * FREE_UNIT,
            ACTIVATION_ONE * (own_rows % 2), ACTIVATION_ONE * (len(pieces) % 2)]


def _features(positions: list[Position]) -> np.ndarray:
    """The kernel's features of some positions, as the fit takes them (activations)."""
    columns = [np.array(values, np.int64) for values in zip(
        *[(p.black, p.white, p.kings, int(p.turn)) for p in positions], strict=True)]
    features: np.ndarray = features_of_positions(*columns) / ACTIVATION_ONE
    return features.astype(np.float32)


def _reference_score(position: Position, parameters: np.ndarray) -> int:
    """The quantised network computed independently, in int64 numpy, from the input matrix."""
    own, theirs, kings = from_mover(*(np.array([value], np.uint32) for value in (
        position.black, position.white, position.kings)), np.array([int(position.turn)]))
    inputs = input_matrix(own, theirs, kings)[0].astype(np.int64)
    bucket = int(piece_buckets(own, theirs)[0])
    q = quantise(parameters).astype(np.int64)
    first = q[layout.Q_FT_BIAS:layout.Q_L2_WEIGHTS] + inputs @ q[
        layout.Q_FT_WEIGHTS:layout.Q_FT_BIAS].reshape(-1, HIDDEN)
    hidden = np.concatenate([np.clip(first, 0, ACTIVATION_ONE),
                             np.array(_reference_features(position), np.int64)])
    l2 = q[layout.Q_L2_WEIGHTS:layout.Q_L2_BIAS].reshape(4, layout.L2, L2_INPUTS)[bucket]
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


def test_the_features_count_steps_and_jumpers_of_each_side() -> None:
    # White to move, no jump for either side. White's king on 9 steps to 5, 6, 13 and 14,
    # its men on 22 and 23 to 17, 18 and 18, 19: 8 steps; Black's men on 10 and 26 to
    # 14, 15 and 30, 31: 4.
    position = Position.from_fen("W:W22,23,K9:B10,26")
    assert _reference_features(position) == features_of_positions(
        *(np.array([value], np.int64) for value in (
            position.black, position.white, position.kings, int(position.turn))))[0].tolist()
    mover_steps, their_steps, mover_jumpers, their_jumpers = _reference_features(position)[:4]
    assert (mover_steps // STEP_UNIT, their_steps // STEP_UNIT) == (8, 4)
    assert mover_jumpers == their_jumpers == 0
    # Black's man on 26 has no White piece ahead of it; every other man has one.
    assert _reference_features(position)[4:6] == [0, FREE_UNIT]


def test_the_features_match_an_independent_count() -> None:
    kernel = features_of_positions(*(np.array(values, np.int64) for values in zip(
        *[(p.black, p.white, p.kings, int(p.turn)) for p in POSITIONS], strict=True)))
    assert kernel.shape == (len(POSITIONS), EXTRA)
    for position, row in zip(POSITIONS, kernel, strict=True):
        assert row.tolist() == _reference_features(position)
    assert kernel[:, 2:].any()  # some positions have jumps in the air


def test_kernel_matches_an_independent_integer_reference() -> None:
    for position in POSITIONS:
        assert _kernel_score(position, PARAMETERS) == _reference_score(position, PARAMETERS)


def test_quantised_scores_follow_the_float_network() -> None:
    own, theirs, kings = from_mover(*(np.array(values, np.uint32) for values in zip(
        *[(p.black, p.white, p.kings) for p in POSITIONS], strict=True)),
        np.array([int(p.turn) for p in POSITIONS]))
    floats = forward(PARAMETERS, input_matrix(own, theirs, kings), _features(POSITIONS),
                     piece_buckets(own, theirs)) * SCORE_SCALE
    kernel = np.array([_kernel_score(p, PARAMETERS) for p in POSITIONS])
    # The kernel floors each second-layer sum (a whole number of activation steps), so
    # its scores sit a little below the float network's, more so the more inputs that
    # layer has: a few points on average, about one tenth of a man at most.
    assert np.mean(np.abs(floats - kernel)) < 0.02 * SCORE_SCALE
    assert np.max(np.abs(floats - kernel)) < 0.06 * SCORE_SCALE


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
    assert biggest * ACTIVATION_ONE * (L2_INPUTS + 1) < 2 ** 24
    first = np.abs(quantised[layout.Q_FT_WEIGHTS:layout.Q_FT_BIAS]).max()
    assert first * 25 < 2 ** 24
