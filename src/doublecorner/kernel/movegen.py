"""Legal move generation over bitboards: steps, jumps and multi-jumps.

Moves come out as rows of an int64 array: ``(black, white, kings, key)`` after
the move, where ``key`` names the route (see :mod:`doublecorner.kernel.encoding`).
Multi-jumps are walked with an explicit stack rather than recursion: numba's
cached recursive functions have crashed on reload (numba issue #6061) and are
slower when they pass arrays.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_function, kernel_inline
from doublecorner.kernel.bitops import bit_index, popcount
from doublecorner.kernel.bits import (
    BLACK_CROWN_ROW,
    EVEN_NOT_H,
    EVEN_ROWS,
    FULL,
    LANDING,
    MAX_JUMPS,
    NEIGHBOUR,
    ODD_NOT_A,
    ODD_ROWS,
    WHITE_CROWN_ROW,
)
from doublecorner.kernel.encoding import JUMP_COUNT_SHIFT, ROUTE_SHIFT

MOVE_FIELDS = 4  # black, white, kings, key
FIRST_CAPACITY = 64

COL_A = 0x11111111  # odd-row squares on the a file
COL_H = 0x88888888  # even-row squares on the h file


@kernel_inline
def south_west(bits: int) -> int:
    return (((bits & EVEN_ROWS) << 4) | ((bits & ODD_ROWS & ~COL_A) << 3)) & FULL


@kernel_inline
def south_east(bits: int) -> int:
    return (((bits & EVEN_ROWS & ~COL_H) << 5) | ((bits & ODD_ROWS) << 4)) & FULL


@kernel_inline
def north_west(bits: int) -> int:
    return ((bits & EVEN_ROWS) >> 4) | ((bits & ODD_ROWS & ~COL_A) >> 5)


@kernel_inline
def north_east(bits: int) -> int:
    return ((bits & EVEN_ROWS & ~COL_H) >> 3) | ((bits & ODD_ROWS) >> 4)


@kernel_inline
def _side_sets(black: int, white: int, kings: int, turn: int) -> tuple[int, int, int, int]:
    """(own, opponent, own pieces that move south, own pieces that move north)."""
    if turn == 0:
        return black, white, black, black & kings
    return white, black, white & kings, white


@kernel_inline
def jumpers(black: int, white: int, kings: int, turn: int) -> int:
    """The pieces of the side to move that have a first jump.

    A piece can jump south-west when the square south-west of it holds an
    opponent and the one beyond is empty: walk back north-east from the empty
    squares over the opponents.
    """
    own, opponent, southward, northward = _side_sets(black, white, kings, turn)
    empty = ~(black | white) & FULL
    found = southward & north_east(north_east(empty) & opponent)
    found |= southward & north_west(north_west(empty) & opponent)
    found |= northward & south_west(south_west(empty) & opponent)
    found |= northward & south_east(south_east(empty) & opponent)
    return found


@kernel_inline
def has_captures(black: int, white: int, kings: int, turn: int) -> bool:
    """Whether the side to move has a jump (and so must jump)."""
    return jumpers(black, white, kings, turn) != 0


@kernel_inline
def _count_steps(black: int, white: int, kings: int, turn: int) -> int:
    own, opponent, southward, northward = _side_sets(black, white, kings, turn)
    empty = ~(black | white) & FULL
    return (
        popcount(south_west(southward) & empty)
        + popcount(south_east(southward) & empty)
        + popcount(north_west(northward) & empty)
        + popcount(north_east(northward) & empty)
    )


@kernel_inline
def _store(out: np.ndarray, n: int, turn: int, own: int, opponent: int, kings: int,
           key: int) -> None:
    if turn == 0:
        out[n, 0] = own
        out[n, 1] = opponent
    else:
        out[n, 0] = opponent
        out[n, 1] = own
    out[n, 2] = kings
    out[n, 3] = key


@kernel_function
def _steps_into(black: int, white: int, kings: int, turn: int, out: np.ndarray) -> int:
    """Write every step of the side to move into ``out``; -1 if it does not fit."""
    own, opponent, southward, northward = _side_sets(black, white, kings, turn)
    empty = ~(black | white) & FULL
    crown_row = BLACK_CROWN_ROW if turn == 0 else WHITE_CROWN_ROW
    capacity = out.shape[0]
    n = 0
    # Each shift group moves pieces by a fixed amount: +4, +5, +3 south; -4, -3, -5 north.
    for group in range(6):
        if group == 0:
            targets = (southward << 4) & empty
            shift = 4
        elif group == 1:
            targets = ((southward & EVEN_NOT_H) << 5) & empty
            shift = 5
        elif group == 2:
            targets = ((southward & ODD_NOT_A) << 3) & empty
            shift = 3
        elif group == 3:
            targets = (northward >> 4) & empty
            shift = -4
        elif group == 4:
            targets = ((northward & EVEN_NOT_H) >> 3) & empty
            shift = -3
        else:
            targets = ((northward & ODD_NOT_A) >> 5) & empty
            shift = -5
        targets &= FULL
        while targets:
            target_bit = targets & -targets
            targets ^= target_bit
            to_index = bit_index(target_bit)
            from_index = to_index - shift
            from_bit = 1 << from_index
            new_kings = kings
            if kings & from_bit:
                new_kings = (kings ^ from_bit) | target_bit
            elif target_bit & crown_row:
                new_kings = kings | target_bit
            if n >= capacity:
                return -1
            _store(out, n, turn, own ^ from_bit ^ target_bit, opponent, new_kings,
                   from_index | (to_index << ROUTE_SHIFT))
            n += 1
    return n


@kernel_function
def _jumps_into(black: int, white: int, kings: int, turn: int, pieces: int, out: np.ndarray,
                store: bool) -> int:
    """Walk every complete jump route of the given ``pieces`` of the side to move.

    With ``store`` the routes are written into ``out`` (-1 if they do not fit);
    without, they are only counted. The walk keeps its whole state in scalars:
    the route key records the direction taken at each depth, which is enough to
    step back (no arrays to allocate on this hot path).
    """
    own, opponent, southward, northward = _side_sets(black, white, kings, turn)
    occupied = black | white
    crown_row = BLACK_CROWN_ROW if turn == 0 else WHITE_CROWN_ROW
    capacity = out.shape[0]
    n = 0
    while pieces:
        origin_bit = pieces & -pieces
        pieces ^= origin_bit
        origin = bit_index(origin_bit)
        is_king = (kings & origin_bit) != 0
        if is_king:
            first_direction, last_direction = 0, 3
        elif turn == 0:
            first_direction, last_direction = 0, 1
        else:
            first_direction, last_direction = 2, 3
        # The mover leaves its square, so a king may pass over or end on it.
        blocked = occupied ^ origin_bit
        depth = 0
        here = origin
        captured = 0
        route = origin
        direction = first_direction
        continued = 0  # bit d: some jump went on from depth d
        while True:
            if direction > last_direction:
                if depth > 0 and (continued >> depth) & 1 == 0:
                    if store:
                        if n >= capacity:
                            return -1
                        end_bit = 1 << here
                        new_kings = kings & ~captured & ~origin_bit
                        if is_king:
                            new_kings |= end_bit
                        _store(out, n, turn, (own ^ origin_bit) | end_bit,
                               opponent & ~captured, new_kings,
                               route | (depth << JUMP_COUNT_SHIFT))
                    n += 1
                if depth == 0:
                    break
                # Step back over the last jump; opposite directions sum to 3.
                depth -= 1
                route_bits = ROUTE_SHIFT + 2 * depth
                taken_direction = (route >> route_bits) & 3
                route ^= taken_direction << route_bits
                back = (3 - taken_direction) * 32 + here
                captured ^= 1 << NEIGHBOUR[back]
                here = LANDING[back]
                direction = taken_direction + 1
                continue
            landing = LANDING[direction * 32 + here]
            if landing >= 0:
                middle_bit = 1 << NEIGHBOUR[direction * 32 + here]
                landing_bit = 1 << landing
                if ((middle_bit & opponent) != 0 and (middle_bit & captured) == 0
                        and (landing_bit & blocked) == 0):
                    continued |= 1 << depth
                    route_bits = ROUTE_SHIFT + 2 * depth
                    if not is_king and (landing_bit & crown_row):
                        # A man that reaches the far row is crowned and the move ends.
                        if store:
                            if n >= capacity:
                                return -1
                            taken = captured | middle_bit
                            _store(out, n, turn, (own ^ origin_bit) | landing_bit,
                                   opponent & ~taken, (kings & ~taken) | landing_bit,
                                   route | (direction << route_bits)
                                   | ((depth + 1) << JUMP_COUNT_SHIFT))
                        n += 1
                    else:
                        route |= direction << route_bits
                        captured |= middle_bit
                        here = landing
                        depth += 1
                        continued &= ~(1 << depth)
                        direction = first_direction
                        continue
            direction += 1
    return n


@kernel_function
def generate_into(black: int, white: int, kings: int, turn: int, out: np.ndarray) -> int:
    """Write the legal moves into ``out``; their number, or -1 if ``out`` is too small."""
    pieces = jumpers(black, white, kings, turn)
    if pieces:
        return _jumps_into(black, white, kings, turn, pieces, out, True)
    return _steps_into(black, white, kings, turn, out)


@kernel_function
def generate_moves(black: int, white: int, kings: int, turn: int) -> np.ndarray:
    """The legal moves as an array of rows ``(black, white, kings, key)`` after each move."""
    capacity = FIRST_CAPACITY
    while True:
        out = np.empty((capacity, MOVE_FIELDS), np.int64)
        n = generate_into(black, white, kings, turn, out)
        if n >= 0:
            return out[:n]
        capacity *= 4


@kernel_function
def _count_jumps(black: int, white: int, kings: int, turn: int, scratch: np.ndarray) -> int:
    """The number of jump routes, counted in bulk where it can be.

    A man's single jump that cannot go on (or that crowns) is one route, and
    such jumps are counted with bitboards alone. Men whose jump can continue,
    and kings, are walked. A man never looks back, so whether it can jump on from
    its landing square depends only on the board ahead of it.
    """
    own, opponent, southward, northward = _side_sets(black, white, kings, turn)
    empty = ~(black | white) & FULL
    men = own & ~kings
    if turn == 0:
        crown_row = BLACK_CROWN_ROW
        # Squares from which a Black man could jump on.
        sources = (north_east(north_east(empty) & opponent)
                   | north_west(north_west(empty) & opponent)) & ~crown_row
        go_on = north_east(north_east(south_west(south_west(men) & opponent) & empty & sources))
        go_on |= north_west(north_west(south_east(south_east(men) & opponent) & empty & sources))
        simple = men & ~go_on
        n = (popcount(south_west(south_west(simple) & opponent) & empty)
             + popcount(south_east(south_east(simple) & opponent) & empty))
    else:
        crown_row = WHITE_CROWN_ROW
        sources = (south_east(south_east(empty) & opponent)
                   | south_west(south_west(empty) & opponent)) & ~crown_row
        go_on = south_east(south_east(north_west(north_west(men) & opponent) & empty & sources))
        go_on |= south_west(south_west(north_east(north_east(men) & opponent) & empty & sources))
        simple = men & ~go_on
        n = (popcount(north_west(north_west(simple) & opponent) & empty)
             + popcount(north_east(north_east(simple) & opponent) & empty))
    walked = (go_on | (own & kings)) & jumpers(black, white, kings, turn)
    if walked:
        n += _jumps_into(black, white, kings, turn, walked, scratch, False)
    return n


@kernel_function
def count_moves_into(black: int, white: int, kings: int, turn: int, scratch: np.ndarray) -> int:
    """The number of legal moves, without building them; ``scratch`` is never written.

    Callers on a hot path pass any int64 array of width 4 they already hold, so
    counting allocates nothing.
    """
    if has_captures(black, white, kings, turn):
        return _count_jumps(black, white, kings, turn, scratch)
    return _count_steps(black, white, kings, turn)


@kernel_function
def count_moves(black: int, white: int, kings: int, turn: int) -> int:
    """The number of legal moves, without building them."""
    if has_captures(black, white, kings, turn):
        return _count_jumps(black, white, kings, turn, np.empty((0, MOVE_FIELDS), np.int64))
    return _count_steps(black, white, kings, turn)
