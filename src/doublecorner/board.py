"""Board: a position plus its history, the mutable type of the library."""

from __future__ import annotations

import re
from typing import Iterator

from doublecorner.color import Color
from doublecorner.diagram import board_diagram
from doublecorner.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from doublecorner.fen import STARTING_FEN, format_fen, parse_fen
from doublecorner.kernel import count_moves, decode_path, generate_moves, zobrist_key
from doublecorner.move import Move
from doublecorner.outcome import Outcome, Termination
from doublecorner.position import Piece, Position
from doublecorner.squares import Square, check_square
from doublecorner.warmup import ensure_compiled

FORTY_MOVE_PLIES = 80  # 40 moves by each side
_COLORS = (Color.BLACK, Color.WHITE)
_MOVE_TEXT = re.compile(r"\d{1,2}(?:\s*[-xX:]\s*\d{1,2})+")

# Moves named by kernel key: a key fixes the path whatever the position, so
# each Move is built once and shared (cleared if it ever grows large).
_MOVE_BY_KEY: dict[int, Move] = {}
_MOVE_CACHE_LIMIT = 1 << 16

# (black, white, kings) after each legal move, keyed by the move.
_LegalMoves = dict[Move, tuple[int, int, int]]


class _Ply:
    """What ``pop`` needs to undo one move."""

    __slots__ = ("black", "white", "kings", "turn", "halfmove_clock", "move", "legal")

    def __init__(self, black: int, white: int, kings: int, turn: int, halfmove_clock: int,
                 move: Move, legal: _LegalMoves) -> None:
        self.black = black
        self.white = white
        self.kings = kings
        self.turn = turn
        self.halfmove_clock = halfmove_clock
        self.move = move
        self.legal = legal


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
        ensure_compiled()
        self._black, self._white, self._kings, self._turn = parse_fen(
            STARTING_FEN if fen is None else fen)
        self.halfmove_clock = 0
        """Plies since the last man move or capture (the forty-move rule counts these)."""
        self._stack: list[_Ply] = []
        self._legal_cache: _LegalMoves | None = None
        self.legal_moves = LegalMoveView(self)
        """A live view of the legal moves: ``len``, ``in`` and iteration."""

    @classmethod
    def from_position(cls, position: Position) -> Board:
        """A board set up at ``position``, with no history."""
        board = cls.__new__(cls)
        ensure_compiled()
        board._black, board._white, board._kings = position.black, position.white, position.kings
        board._turn = int(position.turn)
        board.halfmove_clock = 0
        board._stack = []
        board._legal_cache = None
        board.legal_moves = LegalMoveView(board)
        return board

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
        bit = 1 << (check_square(square) - 1)
        if self._black & bit:
            return Piece(Color.BLACK, bool(self._kings & bit))
        if self._white & bit:
            return Piece(Color.WHITE, bool(self._kings & bit))
        return None

    def piece_map(self) -> dict[Square, Piece]:
        """Every occupied square and its piece."""
        return {square: piece for square in range(1, 33)
                if (piece := self.piece_at(square)) is not None}

    # -- moves --------------------------------------------------------------

    def _legal(self) -> _LegalMoves:
        legal = self._legal_cache
        if legal is None:
            legal = {}
            for black, white, kings, key in generate_moves(
                    self._black, self._white, self._kings, self._turn).tolist():
                move = _MOVE_BY_KEY.get(key)
                if move is None:
                    if len(_MOVE_BY_KEY) >= _MOVE_CACHE_LIMIT:
                        _MOVE_BY_KEY.clear()
                    move = _MOVE_BY_KEY[key] = Move._from_checked_path(decode_path(key))
                legal[move] = (black, white, kings)
            self._legal_cache = legal
        return legal

    def push(self, move: Move) -> None:
        """Make ``move``.

        :raises IllegalMoveError: the move is not legal here; the board is unchanged.
        """
        legal = self._legal()
        after = legal.get(move)
        if after is None:
            raise self._illegal_move_error(move)
        turn = self._turn
        self._stack.append(_Ply(self._black, self._white, self._kings, turn,
                                self.halfmove_clock, move, legal))
        opponent_before = self._white if turn == 0 else self._black
        opponent_after = after[1] if turn == 0 else after[0]
        king_moved = self._kings >> (move.path[0] - 1) & 1
        if king_moved and opponent_before == opponent_after:
            self.halfmove_clock += 1
        else:
            self.halfmove_clock = 0
        self._black, self._white, self._kings = after
        self._turn = turn ^ 1
        self._legal_cache = None

    def pop(self) -> Move:
        """Take back the last move and return it.

        :raises IndexError: no move has been made.
        """
        if not self._stack:
            raise IndexError("pop from a board with no moves made")
        ply = self._stack.pop()
        self._black, self._white, self._kings = ply.black, ply.white, ply.kings
        self._turn = ply.turn
        self.halfmove_clock = ply.halfmove_clock
        self._legal_cache = ply.legal
        return ply.move

    def peek(self) -> Move:
        """The last move made.

        :raises IndexError: no move has been made.
        """
        if not self._stack:
            raise IndexError("peek at a board with no moves made")
        return self._stack[-1].move

    @property
    def move_stack(self) -> list[Move]:
        """The moves made so far, first to last (a copy)."""
        return [ply.move for ply in self._stack]

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
        legal = self._legal()
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
        legal = sorted(self._legal(), key=lambda legal_move: legal_move.path)
        if isinstance(move, Move) or isinstance(move, str):
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
            if (ply.black, ply.white, ply.kings, ply.turn) == current:
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
        """Whether 80 plies without a man move or capture have passed or the next move completes them."""
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
            return len(board._legal_cache)
        return int(count_moves(board._black, board._white, board._kings, board._turn))

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[Move]:
        # The dictionary is never changed once built: push makes a new one.
        return iter(self._board._legal())

    def __contains__(self, move: object) -> bool:
        return move in self._board._legal()

    def __repr__(self) -> str:
        moves = sorted(self._board._legal(), key=lambda move: move.path)
        return f"<LegalMoveView ({', '.join(map(str, moves))})>"


def _is_subsequence(short: tuple[int, ...], path: tuple[int, ...]) -> bool:
    remaining = iter(path)
    return all(square in remaining for square in short)
