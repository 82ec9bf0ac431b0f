"""Perft: count the leaves of the legal-move tree, to check move generation.

The published counts from the start position (OEIS A133046) are the ground
truth: every route of a capture counts, including two routes that take the
same pieces to the same square.
"""

from __future__ import annotations

from collections.abc import Callable

from doublecorner.board import Board
from doublecorner.kernel import perft as kernel_perft
from doublecorner.move import Move
from doublecorner.position import Position
from doublecorner.warmup import ensure_compiled

# The kernel counts in 64 bits: perft(28) of the start, 16,377,718,018,836,900,735
# leaves, is past 2**63; and no machine finishes perft(27) anyway.
MAX_DEPTH = 27


def perft(position: Position, depth: int) -> int:
    """Leaf count ``depth`` plies below ``position``, with the compiled kernel.

    >>> perft(Position.start(), 4)
    1469

    :raises ValueError: ``depth`` is negative or above :data:`MAX_DEPTH`.
    """
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"perft depth must be 0 to {MAX_DEPTH}, got {depth}")
    ensure_compiled()
    return int(kernel_perft(position.black, position.white, position.kings,
                            int(position.turn), depth))


def divide(position: Position, depth: int, *,
           on_move_done: Callable[[int, int], None] | None = None) -> list[tuple[Move, int]]:
    """The perft count below each legal move, in move order (``depth`` >= 1).

    ``on_move_done(done, total)`` is called once with ``done`` 0 before the
    first root move and after each one is counted, for progress reports on
    long counts (the first call says the count has begun).

    >>> [(str(move), count) for move, count in divide(Position.start(), 2)][:2]
    [('9-13', 7), ('9-14', 7)]

    :raises ValueError: ``depth`` is below 1 or above :data:`MAX_DEPTH`.
    """
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"divide needs a depth of 1 to {MAX_DEPTH}, got {depth}")
    board = Board.from_position(position)
    moves = sorted(board.legal_moves, key=lambda legal_move: legal_move.path)
    result = []
    if on_move_done is not None:
        on_move_done(0, len(moves))
    for done, move in enumerate(moves, start=1):
        board.push(move)
        result.append((move, perft(board.position(), depth - 1)))
        board.pop()
        if on_move_done is not None:
            on_move_done(done, len(moves))
    return result


def board_perft(board: Board, depth: int) -> int:
    """Leaf count through the public Board API (push, pop, ``len(legal_moves)``).

    Slower than :func:`perft`; it checks that the Board agrees with the kernel
    and measures the cost of the Python layer.

    >>> board_perft(Board(), 3)
    302
    """
    if depth <= 0:
        return 1
    legal_moves = board.legal_moves
    if depth == 1:
        return len(legal_moves)
    push, pop = board.push, board.pop
    leaves = 0
    if depth == 2:  # the last two plies inline: most of the calls are here
        for move in legal_moves:
            push(move)
            leaves += len(legal_moves)
            pop()
        return leaves
    for move in legal_moves:
        push(move)
        leaves += board_perft(board, depth - 1)
        pop()
    return leaves
