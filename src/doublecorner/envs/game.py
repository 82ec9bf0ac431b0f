"""A game played one action (a step or one jump) at a time, on top of :class:`Board`.

The board's legal moves are the only rules: the legal actions in the middle of
a multi-jump are the next hops of the legal moves whose paths begin with the
squares visited so far. When the squares visited are a whole legal move, it is
pushed on the board and the turn passes; a capture that crowns a man ends
there because the board lists no longer path.

>>> game = ActionGame(Board("B:W14,23:B9"))
>>> game.play(33), game.path, game.turn
(None, (9, 18), <Color.BLACK: 0>)
>>> game.play(69), game.turn
(Move(9, 18, 27), <Color.WHITE: 1>)
"""

from __future__ import annotations

import numpy as np

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.envs.actions import (
    ACTION_COUNT,
    FLAT_HOP_ACTIONS,
    IllegalActionError,
    check_action,
    describe_action,
)
from doublecorner.move import Move
from doublecorner.outcome import Outcome
from doublecorner.position import Position
from doublecorner.squares import JUMPED_SQUARE, Square

Hop = tuple[Square, Square]  # the squares one step or one jump goes from and to
# Board() parses the starting FEN each time, which costs more than a reset should.
_START = Position.start()


def game_outcome(board: Board) -> Outcome | None:
    """How the game on ``board`` has ended, as the environments judge it.

    The environments are the referee: they claim a draw by repetition or the
    40-move rule for the players as soon as one is on the board (see
    :meth:`Board.outcome`), so an episode never runs past it.
    """
    return board.outcome(claim_draw=True)


def start_board() -> Board:
    """A new :class:`Board` at the starting position: ``Board()``, only faster."""
    return Board.from_position(_START)


class ActionGame:
    """A :class:`Board` and the move in progress on it, driven by actions.

    ``board`` holds the completed moves; ``path`` the squares visited by the
    move in progress, origin first (empty between moves).
    """

    __slots__ = ("_candidates", "_following", "board", "path")

    def __init__(self, board: Board | None = None) -> None:
        self.board = board if board is not None else start_board()
        self.path: tuple[Square, ...] = ()
        # Caches for the move in progress, rebuilt whenever path or board changes
        # (this class assumes that it alone changes its board); never changed in place.
        self._candidates: list[Move] | None = None  # legal moves that begin with path
        # Each legal action and a candidate that makes its hop next (the only one,
        # unless capture routes share the hop).
        self._following: dict[int, Move] | None = None

    def copy(self) -> ActionGame:
        """A copy: its own board (with the history) and the same move in progress."""
        game = ActionGame(self.board.copy())
        game.path, game._candidates, game._following = (self.path, self._candidates,
                                                         self._following)
        return game

    @property
    def turn(self) -> Color:
        """The side to act (it keeps acting until its move is complete)."""
        return self.board.turn

    @property
    def is_jumping(self) -> bool:
        """Whether a multi-jump is in progress: the same side must act again."""
        return bool(self.path)

    def captured(self) -> tuple[Square, ...]:
        """The squares jumped over so far by the move in progress."""
        path = self.path
        return tuple(JUMPED_SQUARE[path[index], path[index + 1]]
                     for index in range(len(path) - 1))

    def push(self, move: Move) -> None:
        """Make a whole ``move`` at once (how an opponent that is not an agent plays).

        :raises IllegalActionError: a move is in progress.
        :raises IllegalMoveError: ``move`` is not legal; nothing changes.
        """
        if self.path:
            raise IllegalActionError(
                f"cannot push {move} in {self.board.fen()}: {self.turn} is in the middle of "
                f"the jump {'x'.join(map(str, self.path))}")
        self.board.push(move)
        self._candidates = self._following = None

    def bitboards(self) -> tuple[int, int, int]:
        """Black's, White's and the kings' bitboards, the move in progress made so far.

        The moving piece stands on the square it has reached and the pieces it
        has jumped are gone (see :meth:`captured`).
        """
        # Board.bitboards(), not position(): building and checking a Position cost
        # more than all the rest of an observation.
        black, white, kings = self.board.bitboards()
        if not self.path:
            return black, white, kings
        # ^, not |: a king whose jump has come back round to its start has not moved.
        moved = 1 << (self.path[0] - 1) ^ 1 << (self.path[-1] - 1)
        if kings >> (self.path[0] - 1) & 1:
            kings ^= moved
        if self.turn is Color.BLACK:
            black ^= moved
        else:
            white ^= moved
        jumped = sum(1 << (square - 1) for square in self.captured())
        return black & ~jumped, white & ~jumped, kings & ~jumped

    def legal_actions(self) -> dict[int, Hop]:
        """Each legal action and its hop: the squares the piece goes from and to."""
        start = len(self.path) - 1 if self.path else 0  # where the next hop starts
        return {action: (move.path[start], move.path[start + 1])
                for action, move in self._next_moves().items()}

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` (an int 0-127, see :func:`check_action`) is legal now."""
        return action in self._next_moves()

    def _next_moves(self) -> dict[int, Move]:
        following = self._following
        if following is None:
            candidates = self._candidates
            if candidates is None:
                candidates = self._candidates = list(self.board.legal_moves)
            actions = FLAT_HOP_ACTIONS[self.board.turn]
            start = len(self.path) - 1 if self.path else 0
            # One pass: no scan of the candidates is left for play() to do.
            following = self._following = {
                actions[33 * move.path[start] + move.path[start + 1]]: move
                for move in candidates}
        return following

    def action_mask(self) -> np.ndarray:
        """A 0/1 ``int8`` vector of length 128: which actions are legal now."""
        mask = bytearray(ACTION_COUNT)  # set in Python, then one copy: cheaper than numpy's
        for action in self._next_moves():  # fancy indexing for a handful of actions
            mask[action] = 1
        return np.frombuffer(mask, np.int8).copy()

    def play(self, action: object) -> Move | None:
        """Make the hop ``action`` names; return the move if it completes one, else ``None``.

        :raises InvalidActionError: ``action`` is not an integer 0-127.
        :raises IllegalActionError: ``action`` is not legal now; nothing changes.
        """
        value = check_action(action)
        following = self._next_moves()
        move = following.get(value)
        if move is None:
            raise self._illegal_action_error(value)
        depth = len(self.path) + 1 if self.path else 2  # squares visited after the hop
        self._following = None
        if len(move.path) == depth:  # paths are prefix-free: no other move goes on from here
            self.board.push(move)
            self.path = ()
            self._candidates = None
            return move
        path = self.path = move.path[:depth]
        candidates = self._candidates or []  # set with following
        if len(following) < len(candidates):  # capture routes share hops: keep them all
            self._candidates = [other for other in candidates if other.path[:depth] == path]
        else:
            self._candidates = [move]
        return None

    def occurrences(self) -> int:
        """How often the board's position has occurred with the same side to move (1-3).

        Three is a draw by repetition, which the environments claim (see :func:`game_outcome`).
        """
        board = self.board
        # With no reversible ply since the last man move or capture there is nothing
        # to repeat: the common case, answered without looking at the history.
        if not board.halfmove_clock or not board.is_repetition(2):
            return 1
        return 3 if board.is_repetition(3) else 2

    def outcome(self) -> Outcome | None:
        """The board's outcome (see :func:`game_outcome`); ``None`` while a move is in
        progress or the game goes on."""
        return None if self.path else game_outcome(self.board)

    def _illegal_action_error(self, action: int) -> IllegalActionError:
        turn = self.board.turn
        what = f"illegal action {describe_action(action, turn)} for {turn} in {self.board.fen()}"
        if self.path:
            what += f", in the middle of the jump {'x'.join(map(str, self.path))}"
        legal = self.legal_actions()
        if not legal:
            return IllegalActionError(f"{what}: the game is over, {turn} has no legal moves")
        listed = ", ".join(f"{value} ({start}-{end})"
                           for value, (start, end) in sorted(legal.items()))
        return IllegalActionError(f"{what}; legal actions: {listed}")
