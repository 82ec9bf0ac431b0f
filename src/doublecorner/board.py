"""Board: a position plus its history, the mutable type of the library."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from doublecorner.color import Color
from doublecorner.diagram import board_diagram
from doublecorner.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from doublecorner.fen import STARTING_FEN, format_fen, parse_fen
from doublecorner.kernel import count_moves, generate_moves, zobrist_key
from doublecorner.kernel.replies import generate_with_reply_counts
from doublecorner.move import Move
from doublecorner.outcome import Outcome, Termination
from doublecorner.position import Piece, Position, piece_on
from doublecorner.squares import Square
from doublecorner.warmup import ensure_compiled

FORTY_MOVE_PLIES = 80  # 40 moves by each side
_COLORS = (Color.BLACK, Color.WHITE)
_MOVE_TEXT = re.compile(r"\d{1,2}(?:\s*[-xX:]\s*\d{1,2})+")

# Moves named by kernel key: a key fixes the path whatever the position, so
# each Move is built once and shared (cleared if it ever grows large).
_MOVE_BY_KEY: dict[int, Move] = {}
_MOVE_CACHE_LIMIT = 1 << 16
_KEY_JUMPS_SHIFT = 5

# The kernel writes each legal move as five ints (black, white, kings after the
# move, its key, and the number of replies) into a buffer of this many moves;
# more fall back to an allocating call.
_BUFFER_MOVES = 64
_FIELDS = 5


class _Legal(NamedTuple):
    """The legal moves of one position.

    ``rows`` is the kernel's output as a flat list of ints, five per move;
    ``offsets`` maps each move's kernel key to its row (ints hash in C, Moves
    would call Python). Once built, nothing here changes, so iterating is safe
    while moves are made.
    """

    moves: list[Move]
    offsets: dict[int, int]
    rows: list[int]


# What pop needs to undo a move: the position, the forty-move count, the move
# and the legal moves it was chosen from.
_Ply = tuple[int, int, int, int, int, Move, _Legal]


def _new_buffer() -> tuple[np.ndarray, np.ndarray]:
    """A flat buffer for the kernel's output and the same memory seen as rows of four."""
    flat = np.empty(_BUFFER_MOVES * _FIELDS, np.int64)
    return flat, flat.reshape(_BUFFER_MOVES, _FIELDS)


def _move_for_key(key: int) -> Move:
    move = _MOVE_BY_KEY.get(key)
    if move is None:
        if len(_MOVE_BY_KEY) >= _MOVE_CACHE_LIMIT:
            _MOVE_BY_KEY.clear()
        move = _MOVE_BY_KEY[key] = Move._from_kernel_key(key)
    return move


class Board:
    """A game in progress: the position, the side to move and the moves made.

    >>> board = Board()
    >>> len(board.legal_moves)
    7
    >>> board.push_str("11-15")
    Move(11, 15)
    >>> board.turn
    <Color.WHITE: 1>
    >>> board.pop()
    Move(11, 15)
    >>> board.fen() == Board().fen()
    True

    :raises InvalidFenError: ``fen`` is not a valid FEN.
    """

    def __init__(self, fen: str | None = STARTING_FEN) -> None:
        self._set_up(*parse_fen(STARTING_FEN if fen is None else fen))

    @classmethod
    def from_position(cls, position: Position) -> Board:
        """A board set up at ``position``, with no history."""
        board = cls.__new__(cls)
        board._set_up(position.black, position.white, position.kings, int(position.turn))
        return board

    def _set_up(self, black: int, white: int, kings: int, turn: int) -> None:
        ensure_compiled()
        self._black, self._white, self._kings, self._turn = black, white, kings, turn
        self.halfmove_clock = 0
        """Plies since the last man move or capture (the forty-move rule counts these)."""
        self._stack: list[_Ply] = []
        self._legal_cache: _Legal | None = None
        self._reply_count = -1  # legal moves here, if known without the cache
        self._buffer, self._buffer_rows = _new_buffer()
        self.legal_moves = LegalMoveView(self)
        """A live view of the legal moves: ``len``, ``in`` and iteration."""

    # -- the position -------------------------------------------------------

    @property
    def turn(self) -> Color:
        """The side to move."""
        return _COLORS[self._turn]

    def fen(self) -> str:
        """The canonical FEN of the position."""
        return format_fen(self._black, self._white, self._kings, self._turn)

    def position(self) -> Position:
        """An immutable snapshot of the position."""
        return Position(self._black, self._white, self._kings, _COLORS[self._turn])

    def zobrist_key(self) -> int:
        """A 64-bit Zobrist hash of the position and the side to move."""
        key = zobrist_key(self._black, self._white, self._kings, self._turn)
        return int(key) & (2**64 - 1)

    def piece_at(self, square: Square) -> Piece | None:
        """The piece on ``square`` (1-32), or ``None``.

        :raises InvalidSquareError: ``square`` is not in 1-32.
        """
        return piece_on(self._black, self._white, self._kings, square)

    def piece_map(self) -> dict[Square, Piece]:
        """Every occupied square and its piece."""
        return {square: piece for square in range(1, 33)
                if (piece := self.piece_at(square)) is not None}

    # -- moves --------------------------------------------------------------

    def _legal(self) -> _Legal:
        legal = self._legal_cache
        if legal is None:
            count = generate_with_reply_counts(self._black, self._white, self._kings,
                                               self._turn, self._buffer_rows)
            if count >= 0:
                rows = self._buffer[:_FIELDS * count].tolist()
            else:
                rows = self._rows_beyond_buffer()
            keys = rows[3::_FIELDS]
            try:
                moves = list(map(_MOVE_BY_KEY.__getitem__, keys))
            except KeyError:  # a route not seen before in this process
                moves = list(map(_move_for_key, keys))
            offsets = dict(zip(keys, range(0, len(rows), _FIELDS), strict=True))
            legal = self._legal_cache = _Legal(moves, offsets, rows)
        return legal

    def _rows_beyond_buffer(self) -> list[int]:
        """The flat rows for a position with more moves than the buffer holds."""
        rows = []
        for black, white, kings, key in generate_moves(
                self._black, self._white, self._kings, self._turn).tolist():
            replies = count_moves(black, white, kings, self._turn ^ 1)
            rows += [black, white, kings, key, int(replies)]
        return rows

    def push(self, move: Move) -> None:
        """Make ``move``.

        :raises IllegalMoveError: the move is not legal here; the board is unchanged.
        """
        legal = self._legal_cache or self._legal()
        offset = legal.offsets.get(move._key) if isinstance(move, Move) else None
        if offset is None:
            raise self._illegal_move_error(move)
        rows = legal.rows
        kings = self._kings
        self._stack.append((self._black, self._white, kings, self._turn, self.halfmove_clock,
                            move, legal))
        key = rows[offset + 3]
        # Only a king's step is reversible: a man's move or a capture resets the count.
        if key >> _KEY_JUMPS_SHIFT & 15 == 0 and kings >> (key & 31) & 1:
            self.halfmove_clock += 1
        else:
            self.halfmove_clock = 0
        self._black = rows[offset]
        self._white = rows[offset + 1]
        self._kings = rows[offset + 2]
        self._reply_count = rows[offset + 4]
        self._turn ^= 1
        self._legal_cache = None

    def pop(self) -> Move:
        """Take back the last move and return it.

        :raises IndexError: no move has been made.
        """
        if not self._stack:
            raise IndexError("pop from a board with no moves made")
        (self._black, self._white, self._kings, self._turn, self.halfmove_clock, move,
         self._legal_cache) = self._stack.pop()
        return move

    def peek(self) -> Move:
        """The last move made.

        :raises IndexError: no move has been made.
        """
        if not self._stack:
            raise IndexError("peek at a board with no moves made")
        return self._stack[-1][5]

    @property
    def move_stack(self) -> list[Move]:
        """The moves made so far, first to last (a copy)."""
        return [ply[5] for ply in self._stack]

    def parse_move(self, text: str) -> Move:
        """The legal move that ``text`` names.

        Takes the full path (``9x18x27``) or the short form with just the two
        ends (``9x27``); ``-``, ``x`` and ``:`` all separate squares.

        >>> Board("B:W14,23:B9").parse_move("9x27")
        Move(9, 18, 27)

        :raises InvalidMoveError: ``text`` is not move notation.
        :raises IllegalMoveError: no legal move matches.
        :raises AmbiguousMoveError: several capture routes match the short form.
        """
        if not isinstance(text, str) or not _MOVE_TEXT.fullmatch(text.strip()):
            raise InvalidMoveError(f"invalid move {text!r}: expected squares 1-32 joined by "
                                   "'-' or 'x', such as '11-15' or '9x18x27'")
        squares = tuple(int(part) for part in re.split(r"\s*[-xX:]\s*", text.strip()))
        for square in squares:
            if not 1 <= square <= 32:
                raise InvalidMoveError(f"invalid move {text!r}: square {square} is not in 1-32")
        legal = self._legal().moves
        matches = [move for move in legal if move.path == squares]
        if not matches:
            matches = [move for move in legal
                       if move.path[0] == squares[0] and move.path[-1] == squares[-1]
                       and _is_subsequence(squares, move.path)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            routes = ", ".join(sorted(str(move) for move in matches))
            raise AmbiguousMoveError(
                f"move {text!r} is ambiguous in {self.fen()}: it could be {routes}; "
                "give the full path")
        raise self._illegal_move_error(text)

    def push_str(self, text: str) -> Move:
        """Parse ``text`` as with :meth:`parse_move`, make the move and return it."""
        move = self.parse_move(text)
        self.push(move)
        return move

    def _illegal_move_error(self, move: object) -> IllegalMoveError:
        legal = sorted(self._legal().moves, key=lambda legal_move: legal_move.path)
        if isinstance(move, (Move, str)):
            what = f"illegal move {str(move)!r}"
        else:
            what = f"illegal move {move!r} (expected a Move)"
        if not legal:
            return IllegalMoveError(f"{what} in {self.fen()}: {self.turn} has no legal moves")
        listed = " ".join(str(legal_move) for legal_move in legal[:20])
        if len(legal) > 20:
            listed += " ..."
        reason = ""
        if legal[0].is_capture and not (isinstance(move, Move) and move.is_capture):
            reason = " (a capture is compulsory)"
        return IllegalMoveError(f"{what} in {self.fen()}{reason}; legal moves: {listed}")

    # -- the end of the game -----------------------------------------------

    def is_repetition(self, count: int = 3) -> bool:
        """Whether the position (with the same side to move) has occurred ``count`` times."""
        current = (self._black, self._white, self._kings, self._turn)
        seen = 1
        # Only positions since the last man move or capture can recur.
        for ply in reversed(self._stack[len(self._stack) - self.halfmove_clock:]):
            if ply[:4] == current:
                seen += 1
                if seen >= count:
                    return True
        return seen >= count

    def outcome(self) -> Outcome | None:
        """How the game has ended, or ``None`` while it goes on.

        The side to move loses when it has no legal move. The game is drawn once
        the same position with the same side to move has occurred three times,
        or after 40 moves by each side with no man moved and no capture. A draw
        that the side to move could bring about with its next move is not an
        outcome yet: :meth:`can_claim_draw` reports it.
        """
        if not self.legal_moves:
            return Outcome(Termination.NO_MOVES, _COLORS[self._turn ^ 1])
        if self.halfmove_clock >= FORTY_MOVE_PLIES:
            return Outcome(Termination.FORTY_MOVE_RULE, None)
        if self.is_repetition(3):
            return Outcome(Termination.THREEFOLD_REPETITION, None)
        return None

    def is_game_over(self) -> bool:
        """Whether :meth:`outcome` reports an end."""
        return self.outcome() is not None

    def can_claim_threefold_repetition(self) -> bool:
        """Whether the position has occurred three times, or a legal move would make it so.

        The WCDF rules let a player claim the draw by showing that their next
        move creates the same position for the third time.
        """
        if self.is_repetition(3):
            return True
        for move in self.legal_moves:
            self.push(move)
            repeated = self.is_repetition(3)
            self.pop()
            if repeated:
                return True
        return False

    def can_claim_forty_move_rule(self) -> bool:
        """Whether 80 plies without a man move or capture are done, or the next move ends them."""
        if self.halfmove_clock >= FORTY_MOVE_PLIES:
            return True
        if self.halfmove_clock < FORTY_MOVE_PLIES - 1:
            return False
        for move in self.legal_moves:
            self.push(move)
            reached = self.halfmove_clock >= FORTY_MOVE_PLIES
            self.pop()
            if reached:
                return True
        return False

    def can_claim_draw(self) -> bool:
        """Whether a draw by repetition or by the forty-move rule can be claimed now."""
        return self.can_claim_forty_move_rule() or self.can_claim_threefold_repetition()

    # -- copies and text ----------------------------------------------------

    def copy(self, *, stack: bool = True) -> Board:
        """A copy of the board; with ``stack=False`` the copy has no history."""
        board = Board.from_position(self.position())
        board.halfmove_clock = self.halfmove_clock
        if stack:
            board._stack = list(self._stack)
        board._legal_cache = self._legal_cache
        return board

    def __str__(self) -> str:
        return board_diagram(self._black, self._white, self._kings)

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"


class LegalMoveView:
    """The legal moves of a board, always up to date with it.

    Iterating is safe while moves are pushed and popped inside the loop.
    """

    __slots__ = ("_board",)

    def __init__(self, board: Board) -> None:
        self._board = board

    def __len__(self) -> int:
        board = self._board
        if board._legal_cache is not None:
            return len(board._legal_cache.moves)
        if board._reply_count >= 0:
            return board._reply_count
        return int(count_moves(board._black, board._white, board._kings, board._turn))

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[Move]:
        return iter(self._board._legal().moves)

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and move._key in self._board._legal().offsets

    def __repr__(self) -> str:
        moves = sorted(self._board._legal().moves, key=lambda move: move.path)
        return f"<LegalMoveView ({', '.join(map(str, moves))})>"


def _is_subsequence(short: tuple[int, ...], path: tuple[int, ...]) -> bool:
    remaining = iter(path)
    return all(square in remaining for square in short)
