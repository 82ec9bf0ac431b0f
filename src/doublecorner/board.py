"""Board: a position plus its history, the mutable type of the library."""

from __future__ import annotations

import array
import re
from collections.abc import Iterator

import numpy as np

from doublecorner.color import Color
from doublecorner.diagram import board_diagram
from doublecorner.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, quoted
from doublecorner.fen import STARTING_FEN, format_fen, parse_fen
from doublecorner.kernel import count_moves, generate_moves, zobrist_key
from doublecorner.kernel.replies import generate_with_reply_counts
from doublecorner.move import SQUARE_TEXT, Move, read_squares
from doublecorner.outcome import Outcome, Termination
from doublecorner.position import Piece, Position, piece_on
from doublecorner.squares import ADJACENT_PAIRS, Square
from doublecorner.warmup import ensure_compiled

FORTY_MOVE_PLIES = 80  # 40 moves by each side
_COLORS = (Color.BLACK, Color.WHITE)
# Squares (see SQUARE_TEXT) joined by "-", "x" or ":".
_MOVE_TEXT = re.compile(rf"{SQUARE_TEXT}(?:\s*[-xX:]\s*{SQUARE_TEXT})+")


class _MovesByKey(dict[int, Move]):
    """Moves named by kernel key, each built on first use and then shared.

    A key fixes the path whatever the position. Looking moves up here runs in
    C (``map(moves.__getitem__, keys)``), building one calls Python only once
    per route; the table is cleared if it ever grows large.
    """

    limit = 1 << 16

    def __missing__(self, key: int) -> Move:
        if len(self) >= self.limit:
            self.clear()
        move = self[key] = Move._from_kernel_key(key)
        return move


_MOVES_BY_KEY = _MovesByKey()

# The kernel writes each legal move as five ints (black, white, kings after the
# move, its key, and the number of replies) into a buffer of this many moves;
# more fall back to an allocating call.
_BUFFER_MOVES = 64
_FIELDS = 5

# The legal moves of one position: their kernel keys, and the kernel's rows as
# one flat list of ints, five per move, in the same order. Never changed once
# built, so iterating is safe while moves are made.
_Legal = tuple[list[int], list[int]]

# The board's state, in one tuple so that push and pop save and restore it in
# one step: black, white, kings, turn (0 = Black), the forty-move count, and the
# number of legal moves if the kernel has told (else -1).
_State = tuple[int, int, int, int, int, int]

# What pop needs to undo a move: the state before it, the move, and the legal
# moves it was chosen from.
_Ply = tuple[_State, Move, _Legal]


def _new_buffer(moves: int = _BUFFER_MOVES) -> tuple[array.array[int], np.ndarray]:
    """A flat buffer for the kernel's output, and the same memory as numpy rows of five.

    The kernel writes through the numpy view; Python copies a slice of the
    ``array.array`` (faster than any numpy conversion to Python ints).
    """
    flat = array.array("q", bytes(8 * moves * _FIELDS))
    return flat, np.frombuffer(flat, dtype=np.int64).reshape(moves, _FIELDS)


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

    # Slots make the attribute reads and writes of push and pop cheaper.
    __slots__ = ("_buffer", "_buffer_rows", "_legal_cache", "_stack", "_state", "legal_moves")

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
        self._state: _State = (black, white, kings, turn, 0, -1)
        self._stack: list[_Ply] = []
        self._legal_cache: _Legal | None = None
        self._buffer, self._buffer_rows = _new_buffer()
        self.legal_moves = LegalMoveView(self)
        """A live view of the legal moves: ``len``, ``in`` and iteration."""

    # -- the position -------------------------------------------------------

    @property
    def turn(self) -> Color:
        """The side to move."""
        return _COLORS[self._state[3]]

    @property
    def halfmove_clock(self) -> int:
        """Plies since the last man move or capture (the forty-move rule counts these)."""
        return self._state[4]

    def fen(self) -> str:
        """The canonical FEN of the position."""
        black, white, kings, turn = self._state[:4]
        return format_fen(black, white, kings, turn)

    def position(self) -> Position:
        """An immutable snapshot of the position."""
        black, white, kings, turn = self._state[:4]
        return Position(black, white, kings, _COLORS[turn])

    def bitboards(self) -> tuple[int, int, int]:
        """``(black, white, kings)``: bit ``n - 1`` set for a piece on square ``n``.

        What :meth:`position` holds, without building (and checking) a
        :class:`Position`: for code that reads the board at every step.

        >>> Board("B:W21:BK1").bitboards()
        (1, 1048576, 1)
        """
        black, white, kings = self._state[:3]
        return black, white, kings

    def zobrist_key(self) -> int:
        """A 64-bit Zobrist hash of the position and the side to move."""
        black, white, kings, turn = self._state[:4]
        return int(zobrist_key(black, white, kings, turn)) & (2**64 - 1)

    def piece_at(self, square: Square) -> Piece | None:
        """The piece on ``square`` (1-32), or ``None``.

        :raises InvalidSquareError: ``square`` is not in 1-32.
        """
        black, white, kings = self._state[:3]
        return piece_on(black, white, kings, square)

    def piece_map(self) -> dict[Square, Piece]:
        """Every occupied square and its piece."""
        return {square: piece for square in range(1, 33)
                if (piece := self.piece_at(square)) is not None}

    # -- moves --------------------------------------------------------------

    def _legal_move_list(self) -> list[Move]:
        return list(map(_MOVES_BY_KEY.__getitem__, self._legal()[0]))

    def _legal(self) -> _Legal:
        legal = self._legal_cache
        if legal is None:
            black, white, kings, turn = self._state[:4]
            count = generate_with_reply_counts(black, white, kings, turn, self._buffer_rows)
            rows = (self._buffer[:_FIELDS * count].tolist() if count >= 0
                    else self._rows_beyond_buffer())
            legal = self._legal_cache = (rows[3::_FIELDS], rows)
        return legal

    def _rows_beyond_buffer(self) -> list[int]:
        """The flat rows for a position with more moves than the buffer holds."""
        black, white, kings, turn = self._state[:4]
        rows = []
        for after in generate_moves(black, white, kings, turn).tolist():
            rows += [*after, int(count_moves(after[0], after[1], after[2], turn ^ 1))]
        return rows

    def push(self, move: Move) -> None:
        """Make ``move``.

        :raises IllegalMoveError: the move is not legal here; the board is unchanged.
        """
        legal = self._legal_cache or self._legal()
        keys, rows = legal
        try:
            offset = keys.index(move._key) * 5  # _FIELDS, written out on this hot path
        except (AttributeError, ValueError):  # not a Move, or not a legal one
            if not isinstance(move, Move):
                raise TypeError(f"push() takes a Move, not {move!r}; use push_str() for "
                                "text such as '11-15'") from None
            raise self._illegal_move_error(str(move), is_capture=move.is_capture) from None
        state = self._state
        self._stack.append((state, move, legal))
        key = rows[offset + 3]
        # Only a king's step is reversible: a man's move or a capture resets the count.
        # (key >> 5 & 15: the number of jumps; key & 31: the origin square's bit index)
        reversible = key >> 5 & 15 == 0 and state[2] >> (key & 31) & 1
        self._state = (rows[offset], rows[offset + 1], rows[offset + 2], state[3] ^ 1,
                       state[4] + 1 if reversible else 0, rows[offset + 4])
        self._legal_cache = None

    def pop(self) -> Move:
        """Take back the last move and return it.

        :raises IndexError: no move has been made.
        """
        if not self._stack:
            raise IndexError("pop from a board with no moves made")
        self._state, move, self._legal_cache = self._stack.pop()
        return move

    def peek(self) -> Move:
        """The last move made.

        :raises IndexError: no move has been made.
        """
        if not self._stack:
            raise IndexError("peek at a board with no moves made")
        return self._stack[-1][1]

    @property
    def move_stack(self) -> list[Move]:
        """The moves made so far, first to last (a copy)."""
        return [ply[1] for ply in self._stack]

    def position_history(self) -> list[Position]:
        """The positions before each move made so far, first to last (not the current one).

        This is what an engine needs beside :attr:`position` to see repetitions.
        """
        return [Position(state[0], state[1], state[2], _COLORS[state[3]])
                for state, _, _ in self._stack]

    def parse_move(self, text: str) -> Move:
        """The legal move that ``text`` names.

        Takes the full path (``9x18x27``) or the short form with just the two
        ends (``9x27``); ``-``, ``x`` and ``:`` all separate squares, which are
        numbers or a1-h8 names (``c3-d4``).

        >>> Board("B:W14,23:B9").parse_move("9x27")
        Move(9, 18, 27)
        >>> Board().parse_move("f6-e5")
        Move(11, 15)

        :raises InvalidMoveError: ``text`` is not move notation.
        :raises IllegalMoveError: no legal move matches.
        :raises AmbiguousMoveError: several capture routes match the short form.
        """
        if not isinstance(text, str) or not _MOVE_TEXT.fullmatch(text.strip()):
            raise InvalidMoveError(f"invalid move {quoted(text)}: expected squares 1-32 or a1-h8 "
                                   "joined by '-' or 'x', such as '11-15', '9x18x27' or 'c3-d4'")
        squares = read_squares(text, re.split(r"\s*[-xX:]\s*", text.strip()))
        legal = self._legal_move_list()
        matches = [move for move in legal if move.path == squares]
        if not matches:
            matches = [move for move in legal
                       if move.path[0] == squares[0] and move.path[-1] == squares[-1]
                       and _is_subsequence(squares, move.path)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            routes = tuple(sorted(str(move) for move in matches))
            raise AmbiguousMoveError(
                f"move {quoted(text)} is ambiguous in {self.fen()}: it could be "
                f"{', '.join(routes)}; give the full path", routes=routes)
        is_capture = len(squares) > 2 or (squares[0], squares[1]) not in ADJACENT_PAIRS
        raise self._illegal_move_error(text, is_capture=is_capture)

    def push_str(self, text: str) -> Move:
        """Parse ``text`` as with :meth:`parse_move`, make the move and return it."""
        move = self.parse_move(text)
        self.push(move)
        return move

    def _illegal_move_error(self, text: str, *, is_capture: bool) -> IllegalMoveError:
        moves = sorted(self._legal_move_list(), key=lambda legal_move: legal_move.path)
        legal = tuple(map(str, moves))
        what = f"illegal move {quoted(text)}"
        if not legal:
            reason = f"{self.turn} has no legal moves"
            return IllegalMoveError(f"{what} in {self.fen()}: {reason}", reason=reason)
        listed = " ".join(legal[:20]) + (" ..." if len(legal) > 20 else "")
        reason = ""
        if moves[0].is_capture and not is_capture:
            reason = "a capture is compulsory"
        return IllegalMoveError(f"{what} in {self.fen()}{f' ({reason})' if reason else ''}; "
                                f"legal moves: {listed}", reason=reason, legal_moves=legal)

    # -- the end of the game -----------------------------------------------

    def is_repetition(self, count: int = 3) -> bool:
        """Whether the position (with the same side to move) has occurred ``count`` times."""
        current = self._state[:4]
        seen = 1
        # Only positions since the last man move or capture can recur.
        for ply in reversed(self._stack[max(0, len(self._stack) - self.halfmove_clock):]):
            if ply[0][:4] == current:
                seen += 1
                if seen >= count:
                    return True
        return seen >= count

    def outcome(self, *, claim_draw: bool = False) -> Outcome | None:
        """How the game has ended, or ``None`` while it goes on.

        By itself a game ends only when the side to move has no legal move: it
        loses. The draws by repetition and by the forty-move rule are claimed
        (WCDF rules: a player shows them to the referee), and a game nobody
        claims goes on, as in records of real games. With ``claim_draw=True``
        the outcome also reports such a draw once it is on the board: the
        position, with the same side to move, has occurred a third time, or
        40 moves by each side have gone by with no man moved and no capture.
        That is where a program acting as referee (a match, self-play, an
        environment) ends a game for the players.

        A draw that the side to move could only bring about with its next move
        is not reported even then, though :meth:`can_claim_draw` allows the
        claim: the referee would otherwise end a game the mover meant to play on.

        >>> board = Board("B:WK32:BK1")
        >>> for move in ["1-6", "32-27", "6-1", "27-32"] * 2:
        ...     _ = board.push_str(move)
        >>> board.outcome() is None
        True
        >>> board.outcome(claim_draw=True).termination
        <Termination.THREEFOLD_REPETITION: 'threefold repetition'>
        >>> _ = board.pop()  # one ply before: 27-32 would repeat a third time
        >>> board.can_claim_draw(), board.outcome(claim_draw=True)
        (True, None)
        """
        if not self.legal_moves:
            return Outcome(Termination.NO_MOVES, _COLORS[self._state[3] ^ 1])
        if claim_draw:
            if self.halfmove_clock >= FORTY_MOVE_PLIES:
                return Outcome(Termination.FORTY_MOVE_RULE, None)
            if self.is_repetition(3):
                return Outcome(Termination.THREEFOLD_REPETITION, None)
        return None

    def is_game_over(self, *, claim_draw: bool = False) -> bool:
        """Whether :meth:`outcome` (with the same ``claim_draw``) reports an end."""
        return self.outcome(claim_draw=claim_draw) is not None

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
        """Whether the side to move can claim a draw by repetition or the forty-move rule.

        The claim stands when the draw is on the board or when the next move
        would make it (see :meth:`outcome` for what a referee ends a game on).
        """
        return self.can_claim_forty_move_rule() or self.can_claim_threefold_repetition()

    # -- copies and text ----------------------------------------------------

    def copy(self, *, stack: bool = True) -> Board:
        """A copy of the board; with ``stack=False`` the copy has no history."""
        board = Board.from_position(self.position())
        board._state = self._state
        if stack:
            board._stack = list(self._stack)
        board._legal_cache = self._legal_cache
        return board

    def __str__(self) -> str:
        black, white, kings = self._state[:3]
        return board_diagram(black, white, kings)

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"

    def _repr_svg_(self) -> str:
        """The board as SVG, marking the last move: how Jupyter shows a board."""
        # Imported here, not at the top: the core sits below the formats layer
        # (doublecorner.svg imports this module), and most programs never draw.
        from doublecorner import svg

        return svg.board(self)


class LegalMoveView:
    """The legal moves of a board, always up to date with it.

    Iterating is safe while moves are pushed and popped inside the loop.
    """

    __slots__ = ("_board",)

    def __init__(self, board: Board) -> None:
        self._board = board

    def __len__(self) -> int:
        board = self._board
        legal = board._legal_cache
        if legal is not None:
            return len(legal[0])
        state = board._state
        if state[5] >= 0:  # counted by the kernel when the last move was made
            return state[5]
        return int(count_moves(state[0], state[1], state[2], state[3]))

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[Move]:
        return map(_MOVES_BY_KEY.__getitem__, self._board._legal()[0])

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and move._key in self._board._legal()[0]

    def __repr__(self) -> str:
        moves = sorted(self._board._legal_move_list(), key=lambda move: move.path)
        return f"<LegalMoveView ({', '.join(map(str, moves))})>"


def _is_subsequence(short: tuple[int, ...], path: tuple[int, ...]) -> bool:
    remaining = iter(path)
    return all(square in remaining for square in short)
