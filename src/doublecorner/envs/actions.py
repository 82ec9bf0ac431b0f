"""The discrete action encoding: one action per hop, 32 squares x 4 directions.

A move is played one hop at a time: a step, or one jump of a capture. Action
``4 * (q - 1) + d`` moves the piece on square ``q`` in direction ``d``, both
seen from the side to move: Black's squares are the standard numbers, White's
are the board turned half a turn (``q = 33 - s``), so each side starts on 1-12
and its men always go "forward", directions 0 and 1:

=========  ==========================================================
direction  in the mover's frame (Black's view of the standard diagram)
=========  ==========================================================
0          forward, towards the a-file side (to higher square numbers)
1          forward, towards the h-file side
2          backward, towards the a-file side (kings only)
3          backward, towards the h-file side (kings only)
=========  ==========================================================

Whether the hop is a step or a jump follows from the position (a capture is
compulsory), so the same action names either.

>>> from doublecorner import Color, Move
>>> move_actions(Move(11, 15), Color.BLACK), move_actions(Move(22, 18), Color.WHITE)
((40,), (40,))
>>> move_actions(Move(9, 18, 27), Color.BLACK)
(33, 69)
>>> action_hop(40, Color.WHITE, jump=False)
(22, 18)
"""

from __future__ import annotations

import operator
from collections.abc import Mapping

from doublecorner.color import Color
from doublecorner.errors import IllegalMoveError, InvalidMoveError
from doublecorner.move import Move
from doublecorner.squares import Square, square_file, square_row

ACTION_COUNT = 128
DIRECTION_NAMES = ("forward a-side", "forward h-side", "backward a-side", "backward h-side")
# (row, file) deltas of directions 0-3 in Black's frame: rows count from Black's side.
_DELTAS = ((1, -1), (1, 1), (-1, -1), (-1, 1))


class InvalidActionError(InvalidMoveError):
    """A value that is not an action at all: not an integer in 0-127."""


class IllegalActionError(IllegalMoveError):
    """An action that names no legal step or jump in the position (or jump in progress)."""


def check_action(action: object) -> int:
    """``action`` as a Python int, if it is an integer (numpy ones too) in 0-127.

    :raises InvalidActionError: anything else (a float, a bool, ``None``, 128).
    """
    if type(action) is int and 0 <= action < ACTION_COUNT:  # the common case, at once
        return action
    if isinstance(action, bool):
        raise InvalidActionError(f"invalid action {action!r}: expected an integer 0-127")
    try:
        value = operator.index(action)  # type: ignore[arg-type]  # checked by the except
    except TypeError:
        raise InvalidActionError(
            f"invalid action {action!r}: expected an integer 0-127") from None
    if not 0 <= value < ACTION_COUNT:
        raise InvalidActionError(f"invalid action {action!r}: actions are 0-127")
    return value


def frame_square(square: Square, color: Color) -> Square:
    """``square`` as ``color`` sees it: unchanged for Black, turned half a turn for White."""
    return square if color is Color.BLACK else 33 - square


def _square_at(row: int, file: int) -> Square | None:
    if not (0 <= row < 8 and 0 <= file < 8) or (row + file) % 2 == 0:
        return None
    return row * 4 + file // 2 + 1


def _build_hops() -> dict[tuple[int, int], tuple[Square, Square]]:
    """(frame square, direction) -> (square one step away, square one jump away), 0 if none."""
    hops = {}
    for square in range(1, 33):
        row, file = square_row(square), square_file(square)
        for direction, (d_row, d_file) in enumerate(_DELTAS):
            hops[square, direction] = (_square_at(row + d_row, file + d_file) or 0,
                                       _square_at(row + 2 * d_row, file + 2 * d_file) or 0)
    return hops


_HOPS = _build_hops()
# (from, to) in Black's frame -> direction, for steps and jumps alike.
_DIRECTIONS = {(square, target): direction
               for (square, direction), targets in _HOPS.items()
               for target in targets if target}


def _build_actions(color: Color) -> dict[tuple[Square, Square], int]:
    actions = {}
    for (origin, target), direction in _DIRECTIONS.items():
        hop = frame_square(origin, color), frame_square(target, color)
        actions[hop] = 4 * (origin - 1) + direction
    return actions


# color -> (from, to) on the board -> action: the one table every hop is looked up in.
# A tuple indexed by the colour's value: an enum member hashes in Python, slowly.
HOP_ACTIONS: tuple[Mapping[tuple[Square, Square], int], ...] = tuple(
    _build_actions(color) for color in Color)
# The same as lists indexed by 33 * from + to (-1 where no hop), for ActionGame's hot
# path: a lookup by arithmetic, with no (from, to) tuple built and hashed each time.
FLAT_HOP_ACTIONS: tuple[list[int], ...] = tuple(
    [actions.get(divmod(index, 33), -1) for index in range(33 * 33)] for actions in HOP_ACTIONS)


def hop_action(from_square: Square, to_square: Square, color: Color) -> int:
    """The action of ``color`` that moves a piece from ``from_square`` to ``to_square``.

    :raises InvalidMoveError: the squares are not a step or a jump apart.
    """
    action = HOP_ACTIONS[color].get((from_square, to_square))
    if action is None:
        raise InvalidMoveError(
            f"invalid hop {from_square}-{to_square}: the squares are not a step or a jump apart")
    return action


def action_hop(action: int, color: Color, *, jump: bool) -> tuple[Square, Square] | None:
    """The squares (from, to) that ``action`` of ``color`` names, as a jump or as a step.

    ``None`` when the hop would leave the board.

    :raises InvalidActionError: ``action`` is not in 0-127.
    """
    origin, direction = divmod(check_action(action), 4)
    target = _HOPS[origin + 1, direction][1 if jump else 0]
    if not target:
        return None
    return frame_square(origin + 1, color), frame_square(target, color)


def move_actions(move: Move, color: Color) -> tuple[int, ...]:
    """The actions, one per hop, that play ``move`` for ``color``."""
    path = move.path
    return tuple(hop_action(path[index], path[index + 1], color)
                 for index in range(len(path) - 1))


def describe_action(action: int, color: Color) -> str:
    """``action`` in words, for messages: its square and direction as ``color`` sees them."""
    origin, direction = divmod(check_action(action), 4)
    square = frame_square(origin + 1, color)
    return f"{action} (the piece on {square}, {DIRECTION_NAMES[direction]})"
