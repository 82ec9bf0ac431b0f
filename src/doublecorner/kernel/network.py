"""The neural evaluation: a small network whose first layer is updated move by move.

Inputs are the pieces seen from one side (the *perspective*): its men on the
28 squares a man of its colour can stand on, its kings on 32, the opponent's
men on 28 and kings on 32 -- :data:`INPUTS` = 120 ones and zeros, with the
board turned round for White so that both sides see themselves moving "down"
the numbers. The first layer's sums for both perspectives (the
*accumulators*, :data:`HIDDEN` wide) are kept for every ply of the search
line: a move changes a few pieces, so a child's accumulator is its parent's
plus and minus a few weight rows (:func:`update_accumulators`), not a full
product. A position is scored from the accumulator of the side to move:

    clipped ReLU (HIDDEN) and EXTRA position features -> L2 units, clipped ReLU -> 1

The position features (:func:`position_features`) are what sums of single
pieces cannot give: the steps and the pieces with a jump of each side, the
men of each side with no opponent ahead of them, and two parities (of the
pieces on every other row, and of all the pieces). They are computed at the
leaf, not kept incrementally; generation 9 took them (docs/training.md).
The last two layers are chosen by the number of pieces on the board
(:data:`BUCKETS`, since an ending is judged differently from an opening). The
output is a logit of the expected result for the side to move; times
:data:`SCORE_SCALE` it is hundredths of a man, the unit of the linear
evaluation (whose fitted scale was ``sigmoid(0.5 * score / 100)``).

Networks are trained and stored as float32 in the *float layout* (the
offsets ``FT_WEIGHTS`` ... ``OUT_BIAS``); the kernel runs a quantised copy
(:func:`quantise`): activations in steps of 1/:data:`ACTIVATION_ONE`, weights
of the hidden layers in steps of 1/:data:`WEIGHT_ONE`. The copy is float32
holding only whole numbers, every sum below 2**24, so every sum is exact:
the compiled kernel may add them in any order (and vectorise, which numba's
integers, widened to int64, would not) and plain Python
(``NUMBA_DISABLE_JIT=1``) still gets the very same scores.

A second hidden layer of 32 (a shape often used for checkers) was measured
and left out: its 32 sums of 32 did not vectorise (loops shorter than the
vector code LLVM makes for them) and took 490 ns of a 790 ns evaluation,
against 220 ns for the 32 sums of 128 before it (the first layer was 128
wide then). Generation 7 widened the first layer to 256: 14% fewer nodes a
second and still a little ahead in play (docs/training.md). A network's file
records its shape, so weights of another width are refused with a message.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_exact_sums, kernel_function, kernel_inline, kernel_no_alloc
from doublecorner.kernel.bitops import bit_index, popcount
from doublecorner.kernel.bits import FULL
from doublecorner.kernel.evaluate import CONES
from doublecorner.kernel.movegen import jumpers, step_count
from doublecorner.kernel.scores import TABLE_BOUND

INPUTS = 120
HIDDEN = 256
EXTRA = 8  # position features beside the accumulator in the second layer's inputs
L2_INPUTS = HIDDEN + EXTRA
L2 = 32
BUCKETS = 4
UNITS_PER_PASS = 4  # hidden units summed together: network_output is written out for four
SCORE_SCALE = 200.0  # hundredths of a man per unit of the output logit

# The float layout: offsets of each block in a stored (trained) network.
FT_WEIGHTS = 0  # [INPUTS, HIDDEN]
FT_BIAS = FT_WEIGHTS + INPUTS * HIDDEN  # [HIDDEN]
L2_WEIGHTS = FT_BIAS + HIDDEN  # [BUCKETS, L2_INPUTS, L2]
L2_BIAS = L2_WEIGHTS + BUCKETS * L2_INPUTS * L2  # [BUCKETS, L2]
OUT_WEIGHTS = L2_BIAS + BUCKETS * L2  # [BUCKETS, L2]
OUT_BIAS = OUT_WEIGHTS + BUCKETS * L2  # [BUCKETS]
PARAMETERS = OUT_BIAS + BUCKETS

# The quantised layout the kernel runs (whole numbers in float32); hidden weights
# are stored transposed, [unit, input], so that each unit's sum reads one row.
ACTIVATION_ONE = 127  # an activation of 1.0 (a clipped ReLU's top)
WEIGHT_ONE = 128  # a hidden-layer weight of 1.0
Q_FT_WEIGHTS = 0  # [INPUTS, HIDDEN], in activation steps
Q_FT_BIAS = Q_FT_WEIGHTS + INPUTS * HIDDEN  # [HIDDEN]
Q_L2_WEIGHTS = Q_FT_BIAS + HIDDEN  # [BUCKETS, L2, L2_INPUTS]
Q_L2_BIAS = Q_L2_WEIGHTS + BUCKETS * L2 * L2_INPUTS  # [BUCKETS, L2], activation x weight steps
Q_OUT_WEIGHTS = Q_L2_BIAS + BUCKETS * L2  # [BUCKETS, L2]
Q_OUT_BIAS = Q_OUT_WEIGHTS + BUCKETS * L2  # [BUCKETS]
Q_PARAMETERS = Q_OUT_BIAS + BUCKETS
SCRATCH = L2_INPUTS + L2  # float32 scratch entries an evaluation needs
# The largest hidden weight whose sums stay exact in float32 (below 2**24).
WEIGHT_LIMIT = 2.0 ** 24 / (ACTIVATION_ONE * WEIGHT_ONE * (L2_INPUTS + 1)) - 0.05
# First-layer weights: 24 pieces and the bias, each at most this, stay far below 2**24.
FIRST_LAYER_LIMIT = 64.0

OWN_MEN, OWN_KINGS, THEIR_MEN, THEIR_KINGS = 0, 28, 60, 88


def _build_feature_table() -> np.ndarray:
    """FEATURE[((perspective * 2 + colour) * 2 + is_king) * 32 + bit]: the input index.

    -1 where no such piece can stand (a man on its crowning row).
    """
    table = np.full(2 * 2 * 2 * 32, -1, np.int64)
    for perspective in range(2):
        for colour in range(2):
            for is_king in range(2):
                for bit in range(32):
                    seen = bit if perspective == 0 else 31 - bit
                    own = colour == perspective
                    if is_king:
                        index = (OWN_KINGS if own else THEIR_KINGS) + seen
                    elif own:  # own men never stand on the last row (bits 28-31 as seen)
                        index = OWN_MEN + seen if seen < 28 else -1
                    else:  # the opponent's men never stand on the first row
                        index = THEIR_MEN + seen - 4 if seen >= 4 else -1
                    table[((perspective * 2 + colour) * 2 + is_king) * 32 + bit] = index
    return table


FEATURE = _build_feature_table()


# Activation steps of one unit of each position feature (counts are capped so
# that the largest stays within ACTIVATION_ONE).
STEP_UNIT, STEP_CAP = 8, 15
JUMPER_UNIT, JUMPER_CAP = 42, 3
FREE_UNIT, FREE_CAP = 42, 3
EVEN_ROWS_SEEN_BY_BLACK = 0x0F0F0F0F  # rows 1, 3, 5, 7 from Black's side (squares 1-4, ...)


@kernel_inline
def _free_men(men: int, opponents: int, colour: int) -> int:
    """The men with no opponent anywhere in the cone of squares ahead of them (the
    linear evaluation's runaways, by its table of cones)."""
    free = 0
    while men:
        bit = men & -men
        men ^= bit
        if CONES[colour * 32 + bit_index(bit)] & opponents == 0:
            free += 1
    return free


@kernel_inline
def _capped(count: int, cap: int, unit: int) -> float:
    return float((cap if count > cap else count) * unit)


@kernel_inline
def position_features(black: int, white: int, kings: int, turn: int,
                      out: np.ndarray) -> None:
    """The :data:`EXTRA` position features, in activation steps, into ``out[0:EXTRA]``.

    What the first layer's sums of single pieces cannot see, each side to move
    first: the steps each side has (mobility, blocked men; at most
    :data:`STEP_CAP`), the pieces of each side that have a jump (a shot in
    the air), the men of each side with no opponent in the cone of squares
    ahead of them (runaways; each at most 3), whether the pieces on the
    mover's rows 1, 3, 5 and 7 are odd in number, and whether all of them are
    (the counts by which players reckon "the move").
    """
    empty = ~(black | white) & FULL
    black_kings, white_kings = black & kings, white & kings
    black_steps = step_count(black, black_kings, empty)
    white_steps = step_count(white_kings, white, empty)
    black_jumpers = popcount(jumpers(black, white, kings, 0))
    white_jumpers = popcount(jumpers(black, white, kings, 1))
    if turn == 0:
        own_steps, their_steps, own_jumpers, their_jumpers = (
            black_steps, white_steps, black_jumpers, white_jumpers)
    else:
        own_steps, their_steps, own_jumpers, their_jumpers = (
            white_steps, black_steps, white_jumpers, black_jumpers)
    out[0] = _capped(own_steps, STEP_CAP, STEP_UNIT)
    out[1] = _capped(their_steps, STEP_CAP, STEP_UNIT)
    out[2] = _capped(own_jumpers, JUMPER_CAP, JUMPER_UNIT)
    out[3] = _capped(their_jumpers, JUMPER_CAP, JUMPER_UNIT)
    black_free = _free_men(black & ~kings, white, 0)
    white_free = _free_men(white & ~kings, black, 1)
    own_free, their_free = (black_free, white_free) if turn == 0 else (white_free, black_free)
    out[4] = _capped(own_free, FREE_CAP, FREE_UNIT)
    out[5] = _capped(their_free, FREE_CAP, FREE_UNIT)
    rows = EVEN_ROWS_SEEN_BY_BLACK if turn == 0 else EVEN_ROWS_SEEN_BY_BLACK << 4
    occupied = (black | white) & FULL
    out[6] = float(ACTIVATION_ONE * (popcount(occupied & rows) & 1))
    out[7] = float(ACTIVATION_ONE * (popcount(occupied) & 1))


@kernel_function
def features_of_positions(black: np.ndarray, white: np.ndarray, kings: np.ndarray,
                          turn: np.ndarray) -> np.ndarray:
    """:func:`position_features` of many positions (rows), in activation steps, for training."""
    out = np.zeros((len(black), EXTRA), np.float32)
    for row in range(len(black)):
        position_features(int(black[row]), int(white[row]), int(kings[row]), int(turn[row]),
                          out[row])
    return out


@kernel_inline
def bucket_of(pieces: int) -> int:
    """The layer set for a board with ``pieces`` pieces: > 16, 9-16, 7-8, <= 6."""
    if pieces > 16:
        return 0
    if pieces > 8:
        return 1
    if pieces > 6:
        return 2
    return 3


def quantise(parameters: np.ndarray) -> np.ndarray:
    """The kernel layout of a float-layout network: whole numbers, as float32.

    First-layer weights and biases are rounded to activation steps; hidden
    and output weights to weight steps, their biases to activation x weight
    steps (the unit of the sums they join). Weights are first clipped to
    ``WEIGHT_LIMIT`` (``FIRST_LAYER_LIMIT`` for the first layer), which keeps
    every sum exact. Training keeps them well inside (see ``train.fit``).
    """
    flat = np.asarray(parameters, np.float64)
    quantised = np.empty(Q_PARAMETERS, np.float32)

    def put(offset: int, values: np.ndarray, scale: float) -> None:
        limit = FIRST_LAYER_LIMIT if offset < Q_L2_WEIGHTS else WEIGHT_LIMIT
        quantised[offset:offset + values.size] = np.round(
            np.clip(values, -limit, limit) * scale).ravel()

    put(Q_FT_WEIGHTS, flat[FT_WEIGHTS:FT_BIAS], ACTIVATION_ONE)
    put(Q_FT_BIAS, flat[FT_BIAS:L2_WEIGHTS], ACTIVATION_ONE)
    l2 = flat[L2_WEIGHTS:L2_BIAS].reshape(BUCKETS, L2_INPUTS, L2).transpose(0, 2, 1)
    put(Q_L2_WEIGHTS, l2, WEIGHT_ONE)
    put(Q_L2_BIAS, flat[L2_BIAS:OUT_WEIGHTS], ACTIVATION_ONE * WEIGHT_ONE)
    put(Q_OUT_WEIGHTS, flat[OUT_WEIGHTS:OUT_BIAS], WEIGHT_ONE)
    put(Q_OUT_BIAS, flat[OUT_BIAS:PARAMETERS], ACTIVATION_ONE * WEIGHT_ONE)
    return quantised


@kernel_inline
def _weight_row(network: np.ndarray, feature: int) -> np.ndarray:
    """The first layer's weights of input ``feature`` (a slice: loops over it vectorise)."""
    row: np.ndarray = network[Q_FT_WEIGHTS + feature * HIDDEN:
                              Q_FT_WEIGHTS + (feature + 1) * HIDDEN]
    return row


@kernel_inline
def _add_row(target: np.ndarray, network: np.ndarray, feature: int, sign: float) -> None:
    """``target += sign * row(feature)``."""
    row = _weight_row(network, feature)
    for unit in range(HIDDEN):
        target[unit] += sign * row[unit]


@kernel_no_alloc
def refresh_accumulators(black: int, white: int, kings: int, network: np.ndarray,
                         accumulators: np.ndarray, ply: int) -> None:
    """Compute both accumulators of ``accumulators[ply]`` from the position, in full."""
    for perspective in range(2):
        for unit in range(HIDDEN):
            accumulators[ply, perspective, unit] = network[Q_FT_BIAS + unit]
    for colour in range(2):
        pieces = (black if colour == 0 else white) & FULL
        while pieces:
            bit = pieces & -pieces
            pieces ^= bit
            index = bit_index(bit)
            is_king = 1 if kings & bit else 0
            for perspective in range(2):
                feature = FEATURE[((perspective * 2 + colour) * 2 + is_king) * 32 + index]
                _add_row(accumulators[ply, perspective], network, feature, 1.0)


@kernel_inline
def _feature_of(black: int, white: int, kings: int, bit: int, index: int,
                perspective: int) -> int:
    """The input index of the piece on ``bit`` as ``perspective`` sees it; -1 if empty."""
    if black & bit:
        colour = 0
    elif white & bit:
        colour = 1
    else:
        return -1
    is_king = 1 if kings & bit else 0
    feature: int = FEATURE[((perspective * 2 + colour) * 2 + is_king) * 32 + index]
    return feature


@kernel_inline
def _move_rows(source: np.ndarray, target: np.ndarray, network: np.ndarray, gone: int,
               arrived: int) -> None:
    """``target = source - row(gone) + row(arrived)``: a piece moved, as one perspective sees it.

    The rows are taken as slices: indexing the 3-d accumulator array and the
    weights by computed offsets inside the loop kept LLVM from vectorising it
    (180 ns an update against 47 ns so).
    """
    gone_row, arrived_row = _weight_row(network, gone), _weight_row(network, arrived)
    for unit in range(HIDDEN):
        target[unit] = source[unit] - gone_row[unit] + arrived_row[unit]


@kernel_inline
def update_accumulators(black: int, white: int, kings: int, child_black: int,
                        child_white: int, child_kings: int, network: np.ndarray,
                        accumulators: np.ndarray, ply: int) -> None:
    """``accumulators[ply + 1]`` for the child position, from ``accumulators[ply]``.

    Only the squares the move changed are visited: a piece gone (moved,
    jumped, or crowned) subtracts its row, a piece arrived adds one. A step
    (one piece gone, one arrived: most moves) is done in one pass.
    """
    child = ply + 1
    changed = ((black ^ child_black) | (white ^ child_white) | (kings ^ child_kings)) & FULL
    if popcount(changed) == 2:
        first = changed & -changed
        second = changed ^ first
        first_index, second_index = bit_index(first), bit_index(second)
        if not (black | white) & first:  # the piece moved from the second square to the first
            first, second = second, first
            first_index, second_index = second_index, first_index
        for perspective in range(2):
            gone = _feature_of(black, white, kings, first, first_index, perspective)
            arrived = _feature_of(child_black, child_white, child_kings, second, second_index,
                                  perspective)
            _move_rows(accumulators[ply, perspective], accumulators[child, perspective],
                       network, gone, arrived)
        return
    for perspective in range(2):
        source, target = accumulators[ply, perspective], accumulators[child, perspective]
        for unit in range(HIDDEN):
            target[unit] = source[unit]
        bits = changed
        while bits:
            bit = bits & -bits
            bits ^= bit
            index = bit_index(bit)
            gone = _feature_of(black, white, kings, bit, index, perspective)
            if gone >= 0:
                _add_row(target, network, gone, -1.0)
            arrived = _feature_of(child_black, child_white, child_kings, bit, index,
                                  perspective)
            if arrived >= 0:
                _add_row(target, network, arrived, 1.0)


@kernel_inline
def _clipped(value: float) -> float:
    return 0.0 if value <= 0.0 else ACTIVATION_ONE if value >= ACTIVATION_ONE else value


@kernel_exact_sums
def network_output(accumulators: np.ndarray, ply: int, turn: int, pieces: int,
                   network: np.ndarray, scratch: np.ndarray) -> float:
    """The network's output from ``accumulators[ply, turn]``, in activation x weight steps.

    ``scratch`` is a float32 array of at least :data:`SCRATCH` entries, the
    position's features already in ``scratch[HIDDEN:L2_INPUTS]``
    (:func:`position_features`). Divided
    by ``ACTIVATION_ONE * WEIGHT_ONE`` the output is the logit for the side to
    move. Every value here is a whole number (see the module's text).

    The hidden units are summed :data:`UNITS_PER_PASS` at a time: each
    activation read once serves four rows of weights: about 225 ns against
    250-320 ns one unit at a time (loads, not multiplications, bound the
    loop; eight at a time was slower again).
    """
    bucket = bucket_of(pieces)
    source_row = accumulators[ply, turn]
    activations = scratch[:L2_INPUTS]  # the features are in scratch[HIDDEN:L2_INPUTS] already
    for source in range(HIDDEN):
        activations[source] = _clipped(source_row[source])
    for unit in range(0, L2, UNITS_PER_PASS):
        row = Q_L2_WEIGHTS + (bucket * L2 + unit) * L2_INPUTS
        first = network[row:row + L2_INPUTS]
        second = network[row + L2_INPUTS:row + 2 * L2_INPUTS]
        third = network[row + 2 * L2_INPUTS:row + 3 * L2_INPUTS]
        fourth = network[row + 3 * L2_INPUTS:row + 4 * L2_INPUTS]
        bias = Q_L2_BIAS + bucket * L2 + unit
        total0, total1 = network[bias], network[bias + 1]
        total2, total3 = network[bias + 2], network[bias + 3]
        for source in range(L2_INPUTS):
            activation = activations[source]
            total0 += first[source] * activation
            total1 += second[source] * activation
            total2 += third[source] * activation
            total3 += fourth[source] * activation
        # Dividing by a power of two is exact; the floor keeps whole numbers.
        scratch[L2_INPUTS + unit] = _clipped(np.floor(total0 * (1.0 / WEIGHT_ONE)))
        scratch[L2_INPUTS + unit + 1] = _clipped(np.floor(total1 * (1.0 / WEIGHT_ONE)))
        scratch[L2_INPUTS + unit + 2] = _clipped(np.floor(total2 * (1.0 / WEIGHT_ONE)))
        scratch[L2_INPUTS + unit + 3] = _clipped(np.floor(total3 * (1.0 / WEIGHT_ONE)))
    output = network[Q_OUT_BIAS + bucket]
    row = Q_OUT_WEIGHTS + bucket * L2
    for source in range(L2):
        output += network[row + source] * scratch[L2_INPUTS + source]
    result: float = output
    return result


@kernel_inline
def score_from_output(output: float) -> int:
    """The output as hundredths of a man (rounded), kept below every known win."""
    limit = TABLE_BOUND - 1
    score = int(np.floor(output * SCORE_SCALE / (ACTIVATION_ONE * WEIGHT_ONE) + 0.5))
    if score > limit:
        return limit
    if score < -limit:
        return -limit
    return score


@kernel_no_alloc
def evaluate_network(black: int, white: int, kings: int, turn: int, network: np.ndarray,
                     accumulators: np.ndarray, ply: int, scratch: np.ndarray) -> int:
    """The score for the side to move from ``accumulators[ply]``; no check for a lost side."""
    position_features(black, white, kings, turn, scratch[HIDDEN:L2_INPUTS])
    output = network_output(accumulators, ply, turn, popcount((black | white) & FULL),
                            network, scratch)
    return score_from_output(output)


@kernel_no_alloc
def evaluate_position(black: int, white: int, kings: int, turn: int, network: np.ndarray,
                      accumulators: np.ndarray, scratch: np.ndarray) -> int:
    """The network's score for the side to move, its accumulators computed in full.

    ``accumulators`` needs one ply (row 0 is overwritten). Used outside the
    search (the engine's ``evaluate``, tests); a side with no move is not checked for.
    """
    refresh_accumulators(black, white, kings, network, accumulators, 0)
    return evaluate_network(black, white, kings, turn, network, accumulators, 0, scratch)
