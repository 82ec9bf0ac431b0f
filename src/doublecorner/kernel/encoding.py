"""The integer key that names a move inside the kernel.

A key packs the origin and the route of a move into one int64, so the kernel
can hand moves to Python without building objects:

- bits 0-4: index of the origin square (square - 1)
- bits 5-8: number of jumps (0 for a step)
- a step: bits 9-13 hold the index of the destination square;
- a jump: from bit 9 on, two bits per jump give its direction (0 = SW,
  1 = SE, 2 = NW, 3 = NE), so every route of a multi-jump has its own key.
"""

from __future__ import annotations

from itertools import pairwise

from doublecorner.kernel.bits import LANDING

JUMP_COUNT_SHIFT = 5
ROUTE_SHIFT = 9


def decode_path(key: int) -> tuple[int, ...]:
    """The squares (1..32) visited by the move with this key, origin first.

    >>> decode_path(10 | (14 << 9))    # a step from square 11 to 15
    (11, 15)
    >>> decode_path(8 | (2 << 5) | (1 << 9) | (0 << 11))   # 9, SE to 18, SW to 25
    (9, 18, 25)
    """
    index = key & 31
    jumps = (key >> JUMP_COUNT_SHIFT) & 15
    if jumps == 0:
        return (index + 1, ((key >> ROUTE_SHIFT) & 31) + 1)
    path = [index + 1]
    for jump in range(jumps):
        direction = (key >> (ROUTE_SHIFT + 2 * jump)) & 3
        index = int(LANDING[direction * 32 + index])
        path.append(index + 1)
    return tuple(path)


def _build_direction_table() -> dict[tuple[int, int], int]:
    directions = {}
    for direction in range(4):
        for index in range(32):
            landing = int(LANDING[direction * 32 + index])
            if landing >= 0:
                directions[(index + 1, landing + 1)] = direction
    return directions


# The direction of the jump from one square (1..32) to another.
_JUMP_DIRECTION = _build_direction_table()


def encode_path(path: tuple[int, ...]) -> int:
    """The key of the move along ``path``; the inverse of :func:`decode_path`.

    ``path`` must be a step between adjacent squares or a chain of jumps.

    >>> encode_path((9, 18, 25)) == 8 | (2 << 5) | (1 << 9) | (0 << 11)
    True
    >>> decode_path(encode_path((11, 15)))
    (11, 15)
    """
    origin = path[0] - 1
    if len(path) == 2 and (path[0], path[1]) not in _JUMP_DIRECTION:
        return origin | ((path[1] - 1) << ROUTE_SHIFT)
    key = origin | ((len(path) - 1) << JUMP_COUNT_SHIFT)
    for jump, hop in enumerate(pairwise(path)):
        key |= _JUMP_DIRECTION[hop] << (ROUTE_SHIFT + 2 * jump)
    return key
