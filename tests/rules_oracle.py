"""The rules of movement read straight off the rulebook, for tests only.

Deliberately naive (coordinates, dictionaries, recursion) and written apart
from the kernel, so that tests can compare the two on arbitrary positions.
The library itself has one move generator: the kernel.
"""

from __future__ import annotations

from itertools import pairwise

Board = dict[int, tuple[str, bool]]  # square -> (colour 'B'/'W', is_king)


def coordinates(square: int) -> tuple[int, int]:
    row = (square - 1) // 4
    column = 2 * ((square - 1) % 4) + (1 if row % 2 == 0 else 0)
    return row, column


SQUARE_AT = {coordinates(square): square for square in range(1, 33)}


def directions(colour: str, king: bool) -> list[tuple[int, int]]:
    if king:
        return [(1, -1), (1, 1), (-1, -1), (-1, 1)]
    return [(1, -1), (1, 1)] if colour == "B" else [(-1, -1), (-1, 1)]


def crowning(colour: str, square: int) -> bool:
    return square >= 29 if colour == "B" else square <= 4


def legal_paths(board: Board, turn: str) -> list[tuple[int, ...]]:
    """Every legal move as its path of squares: jumps if any exist, else steps."""
    jumps: list[tuple[int, ...]] = []
    steps: list[tuple[int, ...]] = []
    for origin, (colour, king) in board.items():
        if colour != turn:
            continue
        _extend_jumps(board, origin, (origin,), frozenset(), jumps)
        row, column = coordinates(origin)
        for d_row, d_column in directions(colour, king):
            to = SQUARE_AT.get((row + d_row, column + d_column))
            if to is not None and to not in board:
                steps.append((origin, to))
    return jumps if jumps else steps


def _extend_jumps(board: Board, origin: int, path: tuple[int, ...], taken: frozenset[int],
                  jumps: list[tuple[int, ...]]) -> None:
    """Add to ``jumps`` every complete jump route that continues ``path``."""
    colour, king = board[origin]
    row, column = coordinates(path[-1])
    went_on = False
    for d_row, d_column in directions(colour, king):
        over = SQUARE_AT.get((row + d_row, column + d_column))
        to = SQUARE_AT.get((row + 2 * d_row, column + 2 * d_column))
        if over is None or to is None or over in taken:
            continue
        if over not in board or board[over][0] == colour:
            continue
        if to in board and to != origin:  # the mover has left its square
            continue
        went_on = True
        if not king and crowning(colour, to):
            jumps.append((*path, to))  # crowned: the move ends here
        else:
            _extend_jumps(board, origin, (*path, to), taken | {over}, jumps)
    if not went_on and len(path) > 1:
        jumps.append(path)


def play(board: Board, path: tuple[int, ...]) -> Board:
    """The board after the move along ``path``."""
    after = dict(board)
    colour, king = after.pop(path[0])
    for here, there in pairwise(path):
        (row_a, column_a), (row_b, column_b) = coordinates(here), coordinates(there)
        if abs(row_a - row_b) == 2:
            del after[SQUARE_AT[((row_a + row_b) // 2, (column_a + column_b) // 2)]]
    after[path[-1]] = (colour, king or crowning(colour, path[-1]))
    return after


def from_bitboards(black: int, white: int, kings: int) -> Board:
    board: Board = {}
    for index in range(32):
        bit = 1 << index
        if black & bit:
            board[index + 1] = ("B", bool(kings & bit))
        elif white & bit:
            board[index + 1] = ("W", bool(kings & bit))
    return board
