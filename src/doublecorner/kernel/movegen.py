"""Legal move generation over bitboards: steps, jumps and multi-jumps.

Moves come out as rows of an int64 array: ``(black, white, kings, key)`` after
the move, where ``key`` names the route (see :mod:`doublecorner.kernel.encoding`).
They come out in square order: steps grouped by the shift that makes them,
jumps by origin square, the routes of one origin depth first.

How the code is shaped for speed (perft, and later the search, spend their
time here):

- One compiled version per colour. numba compiles a separate version of a
  function for each literal argument, and LLVM then folds the tests on it
  away. The entry points turn ``turn`` into a literal
  (``if turn == 0: f(..., 0) else: f(..., 1)``) and pass it down, so every
  inner function runs straight-line code for its colour. For the same reason no
  other argument is ever a literal (``int(0)``, not ``0``, which numba types
  as a plain int64): each would compile yet another copy.
- Positions in which the side to move has no king take a path written for
  men alone; positions with kings take one call more.
- A man only moves forward, so within a move it never meets a square twice,
  and whether it can jump on from a square depends on the board alone. So its
  routes are counted in bulk with bitboards, and generated without tracking
  what it has taken.
- Kings are walked square by square, the walk keeping its state in scalars.
  Nothing recurses: numba's cached recursive functions have crashed on reload
  (numba issue #6061) and are slower when they pass arrays.
- Functions that take arrays are compiled without numba's reference counting
  (:func:`doublecorner._jit.kernel_no_alloc`), and counting needs no array.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_function, kernel_inline, kernel_no_alloc
from doublecorner.kernel.bitops import bit_index, popcount
from doublecorner.kernel.bits import (
    BLACK_CROWN_ROW,
    EVEN_NOT_H,
    EVEN_ROWS,
    FULL,
    LANDING,
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

# Index change of each group of steps, in the order they are generated (see _steps_at).
STEP_SHIFTS = (4, 5, 3, -4, -3, -5)
ONE_JUMP = 1 << JUMP_COUNT_SHIFT  # adds one to the jump count of a key

# -- one diagonal step of every piece of a set -------------------------------------------


@kernel_function
def south_west(bits: int) -> int:
    return (((bits & EVEN_ROWS) << 4) | ((bits & ODD_ROWS & ~COL_A) << 3)) & FULL


@kernel_function
def south_east(bits: int) -> int:
    return (((bits & EVEN_ROWS & ~COL_H) << 5) | ((bits & ODD_ROWS) << 4)) & FULL


@kernel_function
def north_west(bits: int) -> int:
    return ((bits & EVEN_ROWS) >> 4) | ((bits & ODD_ROWS & ~COL_A) >> 5)


@kernel_function
def north_east(bits: int) -> int:
    return ((bits & EVEN_ROWS & ~COL_H) >> 3) | ((bits & ODD_ROWS) >> 4)


# -- the side to move -----------------------------------------------------------------------


@kernel_function
def _side_sets(black: int, white: int, kings: int, turn: int) -> tuple[int, int, int, int]:
    """(own, opponent, own pieces that move south, own pieces that move north)."""
    if turn == 0:
        return black, white, black, black & kings
    return white, black, white & kings, white


@kernel_function
def _men_directions(own: int, turn: int) -> tuple[int, int]:
    """(pieces that move south, pieces that move north) of a side that has men only."""
    if turn == 0:
        return own, 0
    return 0, own


@kernel_function
def _crown_row(turn: int) -> int:
    return BLACK_CROWN_ROW if turn == 0 else WHITE_CROWN_ROW


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


@kernel_inline
def jumpers(black: int, white: int, kings: int, turn: int) -> int:
    """The pieces of the side to move that have a first jump.

    A piece can jump south-west when the square south-west of it holds an
    opponent and the one beyond is empty: walk back north-east from the empty
    squares over the opponents.
    """
    _, opponent, southward, northward = _side_sets(black, white, kings, turn)
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


# -- jumps of men ---------------------------------------------------------------------------
#
# A man of side ``turn`` jumps along its two forward diagonals, called west (SW
# for Black, NW for White) and east (SE, NE). A jump moves a bit by the same
# amount whatever its row: +7 SW, +9 SE, -9 NW, -7 NE.


@kernel_function
def _man_jump_sources(empty: int, opponent: int, turn: int) -> tuple[int, int]:
    """(west, east): the squares from which a man of ``turn`` has a jump that way.

    With the other colour, the same sets tell where a king can jump backwards.
    """
    if turn == 0:
        return north_east(north_east(empty) & opponent), north_west(north_west(empty) & opponent)
    return south_east(south_east(empty) & opponent), south_west(south_west(empty) & opponent)


@kernel_function
def _jump_west(bits: int, turn: int) -> int:
    """Where the pieces on ``bits`` land jumping west (each must have that jump)."""
    return bits << 7 if turn == 0 else bits >> 9


@kernel_function
def _jump_east(bits: int, turn: int) -> int:
    return bits << 9 if turn == 0 else bits >> 7


@kernel_function
def _man_jump(square_bit: int, east: int, turn: int) -> tuple[int, int]:
    """(square jumped over, landing square) of a man's jump west (``east`` = 0) or east."""
    if turn == 0:
        if east == 0:
            return south_west(square_bit), square_bit << 7
        return south_east(square_bit), square_bit << 9
    if east == 0:
        return north_west(square_bit), square_bit >> 9
    return north_east(square_bit), square_bit >> 7


@kernel_function
def _man_jump_count(men: int, west: int, east: int, turn: int) -> int:
    """The number of jump routes of ``men``, counted with bitboards.

    Each frontier below holds one bit per route so far: a jump shifts every bit
    by the same amount, so routes never merge and popcounts count them. A route
    ends where it has no further jump, which takes in the far row, where a man
    is crowned: no forward jump starts there.
    """
    onward = west | east
    to_west = _jump_west(men & west, turn)
    to_east = _jump_east(men & east, turn)
    count = popcount(to_west & ~onward) + popcount(to_east & ~onward)
    to_west &= onward
    to_east &= onward
    if to_west | to_east:  # rare: a route goes on
        count += (_man_jump_count_on(to_west, west, east, turn)
                  + _man_jump_count_on(to_east, west, east, turn))
    return count


@kernel_function
def _man_jump_count_on(going_on: int, west: int, east: int, turn: int) -> int:
    """Routes of men that have jumped once and jump on from the squares ``going_on``.

    Three jumps are the most a man can make: each takes it two rows on, and no
    forward jump starts on the last two rows. So after a second jump, each
    direction still open is one whole route.
    """
    onward = west | east
    to_west = _jump_west(going_on & west, turn)
    to_east = _jump_east(going_on & east, turn)
    count = popcount(to_west & ~onward) + popcount(to_east & ~onward)
    return (count + popcount(to_west & west) + popcount(to_west & east)
            + popcount(to_east & west) + popcount(to_east & east))


@kernel_inline
def _store_man_jump(out: np.ndarray, n: int, turn: int, own: int, opponent: int, kings: int,
                    origin_bit: int, end_bit: int, taken: int, key: int) -> None:
    crowned = end_bit & _crown_row(turn)
    _store(out, n, turn, own ^ origin_bit ^ end_bit, opponent ^ taken, (kings & ~taken) | crowned,
           key)


@kernel_no_alloc
def _man_jumps_at(own: int, opponent: int, kings: int, men: int, west: int, east: int,
                  turn: int, out: np.ndarray, n: int) -> int:
    """Store every jump route of ``men`` from row ``n`` of ``out``; the new ``n``, or -1.

    Three nested levels cover every route (see :func:`_man_jump_count_on`). A
    route must go on while it can, and it can exactly where it lands in
    ``west | east``; a man that lands on the far row is crowned and stops,
    which needs no test: no forward jump starts there.
    """
    capacity = out.shape[0]
    onward = west | east
    # Direction codes of the key: SW 0, SE 1 for Black; NW 2, NE 3 for White.
    first_direction = 2 * turn
    while men:
        origin_bit = men & -men
        men ^= origin_bit
        for east_1 in range(2):
            if origin_bit & (east if east_1 else west) == 0:
                continue
            over_1, land_1 = _man_jump(origin_bit, east_1, turn)
            key_1 = (bit_index(origin_bit) | ONE_JUMP
                     | ((first_direction + east_1) << ROUTE_SHIFT))
            if land_1 & onward == 0:
                if n >= capacity:
                    return -1
                _store_man_jump(out, n, turn, own, opponent, kings, origin_bit, land_1,
                                over_1, key_1)
                n += 1
                continue
            for east_2 in range(2):
                if land_1 & (east if east_2 else west) == 0:
                    continue
                over_2, land_2 = _man_jump(land_1, east_2, turn)
                key_2 = (key_1 + ONE_JUMP) | ((first_direction + east_2) << (ROUTE_SHIFT + 2))
                if land_2 & onward == 0:
                    if n >= capacity:
                        return -1
                    _store_man_jump(out, n, turn, own, opponent, kings, origin_bit, land_2,
                                    over_1 | over_2, key_2)
                    n += 1
                    continue
                for east_3 in range(2):
                    if land_2 & (east if east_3 else west) == 0:
                        continue
                    over_3, land_3 = _man_jump(land_2, east_3, turn)
                    if n >= capacity:
                        return -1
                    _store_man_jump(out, n, turn, own, opponent, kings, origin_bit, land_3,
                                    over_1 | over_2 | over_3,
                                    (key_2 + ONE_JUMP)
                                    | ((first_direction + east_3) << (ROUTE_SHIFT + 4)))
                    n += 1
    return n


# -- jumps of kings -------------------------------------------------------------------------


@kernel_no_alloc
def _king_jumps_at(black: int, white: int, kings: int, turn: int, pieces: int,
                   out: np.ndarray | None, n: int) -> int:
    """Walk every complete jump route of the kings ``pieces`` of the side to move.

    The routes are written into ``out`` from row ``n`` on and the new ``n`` is
    returned (-1 if they do not fit); with ``out`` None they are only counted,
    ``n`` plus their number is returned (numba compiles that case apart, without
    the stores). A king may come back to a square, so unlike a man's, its walk
    tracks what it has taken: each opponent is taken once and stays on the board
    (blocking landings) until the move ends. The route key records the direction
    taken at each depth, which is all the walk needs to step back.
    """
    own, opponent, _, _ = _side_sets(black, white, kings, turn)
    occupied = black | white
    while pieces:
        origin_bit = pieces & -pieces
        pieces ^= origin_bit
        origin = bit_index(origin_bit)
        # The king leaves its square, so it may pass over or end on it.
        blocked = occupied ^ origin_bit
        depth = 0
        here = origin
        captured = 0
        route = origin
        direction = 0
        continued = 0  # bit d: some jump went on from depth d
        while True:
            if direction > 3:
                if depth > 0 and (continued >> depth) & 1 == 0:
                    if out is not None:
                        if n >= out.shape[0]:
                            return -1
                        end_bit = 1 << here
                        _store(out, n, turn, (own ^ origin_bit) | end_bit,
                               opponent & ~captured,
                               (kings & ~captured & ~origin_bit) | end_bit,
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
                if (middle_bit & opponent & ~captured) != 0 and (blocked >> landing) & 1 == 0:
                    continued |= 1 << depth
                    route |= direction << (ROUTE_SHIFT + 2 * depth)
                    captured |= middle_bit
                    here = landing
                    depth += 1
                    continued &= ~(1 << depth)
                    direction = 0
                    continue
            direction += 1
    return n


# -- steps ------------------------------------------------------------------------------------


@kernel_function
def _step_count(southward: int, northward: int, empty: int) -> int:
    """Steps of the pieces ``southward`` and ``northward``, grouped by shift as in _steps_at."""
    return (popcount((southward << 4) & empty)
            + popcount(((southward & EVEN_NOT_H) << 5) & empty)
            + popcount(((southward & ODD_NOT_A) << 3) & empty)
            + popcount((northward >> 4) & empty)
            + popcount(((northward & EVEN_NOT_H) >> 3) & empty)
            + popcount(((northward & ODD_NOT_A) >> 5) & empty))


@kernel_inline
def _store_steps(targets: int, shift: int, own: int, opponent: int, kings: int, turn: int,
                 out: np.ndarray, n: int) -> int:
    """Store the steps onto ``targets``, each from the square ``shift`` indices back."""
    crown_row = _crown_row(turn)
    while targets:
        to_bit = targets & -targets
        targets ^= to_bit
        to_index = bit_index(to_bit)
        from_index = to_index - shift
        from_bit = 1 << from_index
        # A king keeps its crown; a man gets one on the far row.
        crowned = (((kings >> from_index) & 1) << to_index) | (to_bit & crown_row)
        _store(out, n, turn, own ^ from_bit ^ to_bit, opponent, (kings & ~from_bit) | crowned,
               from_index | (to_index << ROUTE_SHIFT))
        n += 1
    return n


@kernel_no_alloc
def _steps_at(own: int, opponent: int, kings: int, southward: int, northward: int, empty: int,
              turn: int, out: np.ndarray, n: int) -> int:
    """Store every step from row ``n`` of ``out``; the new ``n``, or -1 if they do not fit.

    Each group of steps moves pieces by a fixed index change: +4, +5, +3 south;
    -4, -3, -5 north.
    """
    south_4 = (southward << 4) & empty
    south_5 = ((southward & EVEN_NOT_H) << 5) & empty
    south_3 = ((southward & ODD_NOT_A) << 3) & empty
    north_4 = (northward >> 4) & empty
    north_3 = ((northward & EVEN_NOT_H) >> 3) & empty
    north_5 = ((northward & ODD_NOT_A) >> 5) & empty
    total = (popcount(south_4) + popcount(south_5) + popcount(south_3)
             + popcount(north_4) + popcount(north_3) + popcount(north_5))
    if n + total > out.shape[0]:
        return -1
    groups = (south_4, south_5, south_3, north_4, north_3, north_5)
    for group in range(6):
        n = _store_steps(groups[group], STEP_SHIFTS[group], own, opponent, kings, turn, out, n)
    return n


# -- whole positions --------------------------------------------------------------------------


@kernel_no_alloc
def _generate_at(black: int, white: int, kings: int, turn: int, out: np.ndarray,
                 n: int) -> int:
    """Store the legal moves from row ``n`` of ``out``; the new ``n``, or -1 if they do not fit.

    ``turn`` must be a literal (see the module notes).
    """
    own, opponent = (black, white) if turn == 0 else (white, black)
    if own & kings:
        return _generate_with_kings(black, white, kings, turn, out, n)
    empty = ~(black | white) & FULL
    west, east = _man_jump_sources(empty, opponent, turn)
    jumping = own & (west | east)
    if jumping:
        return _man_jumps_at(own, opponent, kings, jumping, west, east, turn, out, n)
    southward, northward = _men_directions(own, turn)
    return _steps_at(own, opponent, kings, southward, northward, empty, turn, out, n)


@kernel_no_alloc
def _generate_with_kings(black: int, white: int, kings: int, turn: int, out: np.ndarray,
                         n: int) -> int:
    """:func:`_generate_at` for a side to move that has kings."""
    own, opponent, southward, northward = _side_sets(black, white, kings, turn)
    empty = ~(black | white) & FULL
    west, east = _man_jump_sources(empty, opponent, turn)
    back_west, back_east = _man_jump_sources(empty, opponent, 1 - turn)
    own_kings = own & kings
    jumping = ((own ^ own_kings) & (west | east)
               | own_kings & (west | east | back_west | back_east))
    if jumping == 0:
        return _steps_at(own, opponent, kings, southward, northward, empty, turn, out, n)
    while jumping:  # piece by piece, so that the moves come out in square order
        piece = jumping & -jumping
        jumping ^= piece
        if piece & kings:
            n = _king_jumps_at(black, white, kings, turn, piece, out, n)
        else:
            n = _man_jumps_at(own, opponent, kings, piece, west, east, turn, out, n)
        if n < 0:
            return n
    return n


@kernel_inline
def _count_moves_for(black: int, white: int, kings: int, turn: int) -> int:
    """The number of legal moves; ``turn`` must be a literal (see the module notes)."""
    own, opponent = (black, white) if turn == 0 else (white, black)
    if own & kings:
        return _count_with_kings(black, white, kings, turn)
    empty = ~(black | white) & FULL
    west, east = _man_jump_sources(empty, opponent, turn)
    if own & (west | east):
        return _man_jump_count(own, west, east, turn)
    southward, northward = _men_directions(own, turn)
    return _step_count(southward, northward, empty)


@kernel_function
def _count_with_kings(black: int, white: int, kings: int, turn: int) -> int:
    """:func:`_count_moves_for` for a side to move that has kings: men in bulk, kings walked."""
    own, opponent, southward, northward = _side_sets(black, white, kings, turn)
    empty = ~(black | white) & FULL
    west, east = _man_jump_sources(empty, opponent, turn)
    back_west, back_east = _man_jump_sources(empty, opponent, 1 - turn)
    own_kings = own & kings
    men = own ^ own_kings
    jumping_kings = own_kings & (west | east | back_west | back_east)
    if jumping_kings == 0 and men & (west | east) == 0:
        return _step_count(southward, northward, empty)
    count = _man_jump_count(men, west, east, turn)
    if jumping_kings:
        count = _king_jumps_at(black, white, kings, turn, jumping_kings, None, count)
    return count


# -- the kernel's entry points ----------------------------------------------------------------


@kernel_no_alloc
def generate_into(black: int, white: int, kings: int, turn: int, out: np.ndarray) -> int:
    """Write the legal moves into ``out``; their number, or -1 if ``out`` is too small."""
    # int(0), not 0: a literal row would compile one more copy of the generator.
    if turn == 0:
        return _generate_at(black, white, kings, 0, out, int(0))  # noqa: UP018, RUF046
    return _generate_at(black, white, kings, 1, out, int(0))  # noqa: UP018, RUF046


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
def count_moves(black: int, white: int, kings: int, turn: int) -> int:
    """The number of legal moves, without building them."""
    if turn == 0:
        return _count_moves_for(black, white, kings, 0)
    return _count_moves_for(black, white, kings, 1)


@kernel_inline
def step_count(southward: int, northward: int, empty: int) -> int:
    """The steps of the pieces ``southward`` and ``northward`` onto ``empty`` squares."""
    return _step_count(southward, northward, empty)
