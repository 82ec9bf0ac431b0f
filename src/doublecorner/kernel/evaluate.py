"""Static evaluation: a weighted sum of positional features.

The evaluation is linear in its weights: :func:`evaluation_features` measures
each feature of a position (Black's count minus White's, phase-scaled where
noted) and :func:`evaluate` takes their dot product with a weight vector. That
keeps every weight tunable by fitting game results (``bench/tune.py``): the
features of a position do not depend on the weights.

Features, in the order of :data:`FEATURE_NAMES` (``e`` is the endgame fraction,
0 with all 24 pieces on the board, rising to 1 as they come off):

- ``man``, ``king``: material.
- ``king_endgame``: kings again, times ``e`` (kings gain worth as the board empties).
- ``back_rank``: men still on their own king row, times ``1 - e`` (they stop crowning).
- ``bridge``: the classic back-rank guard (Black men on 1 and 3, White on 30 and 32).
- ``centre_men``, ``centre_kings``: pieces on the eight central squares.
- ``edge_kings``: kings on the board's edge, where they control little.
- ``advance_opening``, ``advance_endgame``: rows the men have advanced, times
  ``1 - e`` and ``e`` (the tempo count matters differently by phase).
- ``mobility``: legal moves of each side.
- ``runaway``, ``runaway_near``: men that no opposing piece can stop (nothing
  of the opponent's in the cone ahead of them), and how close they are to crowning.
- ``trade``: the sign of the material balance times ``e`` (the side ahead likes trades).
- ``double_corner``: kings of the weaker side in a double corner, their refuge.
- ``king_chase``: for the side ahead, its kings' closeness to the enemy pieces.
- ``side_to_move``: +1 with Black to move, -1 with White.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_inline, kernel_no_alloc
from doublecorner.kernel.bitops import bit_index, popcount
from doublecorner.kernel.bits import FULL, square_row_file
from doublecorner.kernel.movegen import _count_moves_for
from doublecorner.kernel.scores import MATE

FEATURE_NAMES = (
    "man",
    "king",
    "king_endgame",
    "back_rank",
    "bridge",
    "centre_men",
    "centre_kings",
    "edge_kings",
    "advance_opening",
    "advance_endgame",
    "mobility",
    "runaway",
    "runaway_near",
    "trade",
    "double_corner",
    "king_chase",
    "side_to_move",
)
FEATURE_COUNT = len(FEATURE_NAMES)
(MAN, KING, KING_ENDGAME, BACK_RANK, BRIDGE, CENTRE_MEN, CENTRE_KINGS, EDGE_KINGS,
 ADVANCE_OPENING, ADVANCE_ENDGAME, MOBILITY, RUNAWAY, RUNAWAY_NEAR, TRADE, DOUBLE_CORNER,
 KING_CHASE, SIDE_TO_MOVE) = range(FEATURE_COUNT)

ALL_PIECES = 24
BLACK_KING_ROW = 0x0000000F  # squares 1-4: Black's own back rank
WHITE_KING_ROW = 0xF0000000  # squares 29-32
BLACK_BRIDGE = (1 << 0) | (1 << 2)  # squares 1 and 3
WHITE_BRIDGE = (1 << 29) | (1 << 31)  # squares 30 and 32
CENTRE = sum(1 << (square - 1) for square in (10, 11, 14, 15, 18, 19, 22, 23))
DOUBLE_CORNERS = sum(1 << (square - 1) for square in (1, 5, 28, 32))


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    rows = np.empty(32, np.int64)
    files = np.empty(32, np.int64)
    for index in range(32):
        rows[index], files[index] = square_row_file(index)
    # A man's cone: every square it could reach going forward, widening by one
    # file per row. No enemy piece in it means none can get in front of it in time.
    cones = np.zeros(2 * 32, np.int64)
    for colour, step in ((0, 1), (1, -1)):
        for index in range(32):
            cone = 0
            for other in range(32):
                ahead = (rows[other] - rows[index]) * step
                if ahead > 0 and abs(files[other] - files[index]) <= ahead:
                    cone |= 1 << other
            cones[colour * 32 + index] = cone
    distance = np.empty(32 * 32, np.int64)
    for a in range(32):
        for b in range(32):
            distance[a * 32 + b] = max(abs(rows[a] - rows[b]), abs(files[a] - files[b]))
    edge = 0
    for index in range(32):
        if rows[index] in (0, 7) or files[index] in (0, 7):
            edge |= 1 << index
    return rows, cones, distance, edge


# ROWS[i]: row of bit i from the top (Black's side); CONES[c * 32 + i]: the forward
# cone of a man of colour c on bit i; DISTANCE[a * 32 + b]: king steps from a to b.
ROWS, CONES, DISTANCE, EDGE = _build_tables()


@kernel_inline
def _men_terms(men: int, enemies: int, colour: int) -> tuple[int, int, int, int]:
    """Advancement, runaways and their nearness, and central men of one side's men."""
    advance = 0
    runaways = 0
    near = 0
    centre = popcount(men & CENTRE)
    while men:
        bit = men & -men
        men ^= bit
        index = bit_index(bit)
        rows_advanced = ROWS[index] if colour == 0 else 7 - ROWS[index]
        advance += rows_advanced
        if CONES[colour * 32 + index] & enemies == 0:
            runaways += 1
            near += rows_advanced
    return advance, runaways, near, centre


@kernel_inline
def _closeness(kings: int, enemies: int) -> int:
    """The sum over ``kings`` of how near each is to its nearest enemy (7 = adjacent-ish)."""
    total = 0
    while kings:
        bit = kings & -kings
        kings ^= bit
        index = bit_index(bit)
        nearest = 7
        rest = enemies
        while rest:
            other = rest & -rest
            rest ^= other
            nearest = min(nearest, DISTANCE[index * 32 + bit_index(other)])
        total += 7 - nearest
    return total


@kernel_no_alloc
def evaluation_features(black: int, white: int, kings: int, turn: int,
                        out: np.ndarray) -> int:
    """Write the features of the position into ``out``; return the mover's legal move count.

    A count of 0 means the side to move has lost; the features are then meaningless.
    """
    black &= FULL
    white &= FULL
    black_kings = black & kings
    white_kings = white & kings
    black_men = black ^ black_kings
    white_men = white ^ white_kings
    black_count = popcount(black)
    white_count = popcount(white)
    endgame = (ALL_PIECES - min(ALL_PIECES, black_count + white_count)) / ALL_PIECES
    opening = 1.0 - endgame

    black_advance, black_runaways, black_near, black_centre = _men_terms(black_men, white, 0)
    white_advance, white_runaways, white_near, white_centre = _men_terms(white_men, black, 1)
    king_balance = popcount(black_kings) - popcount(white_kings)

    black_moves = _count_moves_for(black, white, kings, 0)
    white_moves = _count_moves_for(black, white, kings, 1)

    out[MAN] = popcount(black_men) - popcount(white_men)
    out[KING] = king_balance
    out[KING_ENDGAME] = king_balance * endgame
    out[BACK_RANK] = (popcount(black_men & BLACK_KING_ROW)
                      - popcount(white_men & WHITE_KING_ROW)) * opening
    black_bridge = 1.0 if black_men & BLACK_BRIDGE == BLACK_BRIDGE else 0.0
    white_bridge = 1.0 if white_men & WHITE_BRIDGE == WHITE_BRIDGE else 0.0
    out[BRIDGE] = (black_bridge - white_bridge) * opening
    out[CENTRE_MEN] = black_centre - white_centre
    out[CENTRE_KINGS] = popcount(black_kings & CENTRE) - popcount(white_kings & CENTRE)
    out[EDGE_KINGS] = popcount(black_kings & EDGE) - popcount(white_kings & EDGE)
    out[ADVANCE_OPENING] = (black_advance - white_advance) * opening
    out[ADVANCE_ENDGAME] = (black_advance - white_advance) * endgame
    out[MOBILITY] = black_moves - white_moves
    out[RUNAWAY] = black_runaways - white_runaways
    out[RUNAWAY_NEAR] = black_near - white_near
    # Material in men, a king counting as one and a half.
    balance = 2 * (black_count - white_count) + king_balance
    out[TRADE] = (1.0 if balance > 0 else -1.0 if balance < 0 else 0.0) * endgame
    double_corner = 0
    chase = 0
    if black_count < white_count:
        double_corner += popcount(black_kings & DOUBLE_CORNERS)
        chase -= _closeness(white_kings, black)
    elif white_count < black_count:
        double_corner -= popcount(white_kings & DOUBLE_CORNERS)
        chase += _closeness(black_kings, white)
    out[DOUBLE_CORNER] = double_corner
    out[KING_CHASE] = chase
    out[SIDE_TO_MOVE] = 1.0 if turn == 0 else -1.0
    return black_moves if turn == 0 else white_moves


@kernel_no_alloc
def evaluate(black: int, white: int, kings: int, turn: int, weights: np.ndarray,
             scratch: np.ndarray) -> int:
    """The score for the side to move, in hundredths of a man; ``-MATE`` if it has no move.

    ``scratch`` is a float array of at least :data:`FEATURE_COUNT` entries.
    """
    if evaluation_features(black, white, kings, turn, scratch) == 0:
        return -MATE
    total = 0.0
    for feature in range(FEATURE_COUNT):
        total += weights[feature] * scratch[feature]
    score = round(total)
    return score if turn == 0 else -score
