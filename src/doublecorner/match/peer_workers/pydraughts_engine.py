"""py-draughts' alpha-beta engine as a peer program speaking the ``dcp`` line protocol.

Run it with py-draughts' own interpreter (``python pydraughts_engine.py``); it
speaks the ``dcp`` line protocol of :mod:`protocol` (the file next to this one)
on stdin and stdout, answering ``go movetime MS`` with ``bestmove 11-15``,
``bestmove 9x18x27`` or ``bestmove none``.

The engine is py-draughts' ``SimpleEngine`` (negamax with alpha-beta,
iterative deepening, a transposition table, quiescence on captures, PVS and
late-move reductions): the strongest of the library's engines that plays the
8x8 board (``TurboEngine`` is for the 10x10 board only and ``HubEngine``
drives an external program). Three things are corrected so that it plays
English draughts and keeps to the move time:

* Captures are optional in py-draughts' ``AmericanBoard``. The engine searches
  whatever ``board.legal_moves`` offers and makes moves with ``board.push``
  (which does not look at the legal moves), so a board subclass whose
  ``legal_moves`` asks the library's move builder for its compulsory-capture
  mode (``captures_optional=False``, no maximum-capture rule) makes every node
  of the search, quiescence included, obey the capture rule. A multi-jump is
  one ``Move`` there whose ``square_list`` holds every landing square.
* The board is built from the FEN, so Black moves first (py-draughts would
  start with White) and the squares keep the standard numbering.
* py-draughts calls a game drawn after 40 plies without a man move or capture;
  the rule is 40 moves *each* (80 plies), and a root position the engine
  believes drawn makes it return its first legal move unsearched. The board's
  ``is_draw`` therefore uses 80 plies (and keeps threefold repetition).
* The engine looks at the clock only every 2048 nodes of its main search, and
  its quiescence nodes can step over those checks, so at 0.1 s it overran to
  0.45 s. It is given a deadline that every static evaluation checks.

Only the standard library and :mod:`protocol` are imported at module level.
The peer's interpreter has no ``doublecorner``: it runs this file as a script,
with this folder on ``sys.path``, so ``protocol`` is imported by that name. The
package's test run and type check import this file as a module of the package
(``protocol`` is then imported relatively) in an interpreter without py-draughts
(``draughts`` is imported when :func:`main` starts the session).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import itertools
import re
import sys
import time
from typing import TYPE_CHECKING, Any

# Run as a script the file has no package (see the docstring); the type checker
# follows the package's import.
if TYPE_CHECKING or __package__:
    from . import protocol
else:
    import protocol

PROGRAM = "py-draughts"
ENGINE_NAME = "SimpleEngine"
FORTY_MOVE_PLIES = 80  # 40 moves by each side with no man moved and no capture
MAX_DEPTH = 64  # iterative deepening stops on time long before this
# The engine reads the clock only after its search unwinds; this much of the
# move time is kept back for that and for turning the move into text.
MARGIN_SECONDS = 0.004
MARGIN_SHARE = 0.03


# -- squares ------------------------------------------------------------------


def square_coordinates(square: int) -> tuple[int, int]:
    """Row from Black's side (0-7) and file (0 = a) of a square in standard numbering.

    >>> square_coordinates(1), square_coordinates(5), square_coordinates(32)
    ((0, 1), (1, 0), (7, 6))
    """
    row, column = divmod(square - 1, 4)
    return row, 2 * column + (1 if row % 2 == 0 else 0)


def jumped_square(start: int, landing: int) -> int | None:
    """The square jumped over from ``start`` to ``landing``, or ``None`` if that is no jump.

    >>> jumped_square(9, 18), jumped_square(18, 9), jumped_square(11, 15)
    (14, 14, None)
    """
    start_row, start_file = square_coordinates(start)
    landing_row, landing_file = square_coordinates(landing)
    if abs(start_row - landing_row) != 2 or abs(start_file - landing_file) != 2:
        return None
    row, file = (start_row + landing_row) // 2, (start_file + landing_file) // 2
    return row * 4 + file // 2 + 1


# -- py-draughts --------------------------------------------------------------


def _peer_classes() -> tuple[Any, Any]:
    """The board and engine classes, corrected as the module docstring explains.

    Defined here rather than at module level because their bases come from
    ``draughts``, which only the peer's interpreter has.
    """
    # Imported by name: the type checker runs where these libraries are absent.
    AmericanBoard: Any = importlib.import_module("draughts").AmericanBoard
    CORE_AMERICAN = importlib.import_module("draughts.boards._core").CORE_AMERICAN
    SimpleEngine: Any = importlib.import_module("draughts.engines").SimpleEngine
    logger = importlib.import_module("loguru").logger

    # The library logs every board and every search (to stderr, at debug level):
    # noise that also costs time inside the search.
    logger.disable("draughts")

    class ForcedCaptureBoard(AmericanBoard):  # type: ignore[misc]  # the base is Any here
        """American board on which a capture, when there is one, must be taken."""

        @property
        def legal_moves(self) -> list[Any]:
            return self._legal_moves_from_core(  # type: ignore[no-any-return]
                CORE_AMERICAN, max_capture=False, captures_optional=False
            )

        @property
        def is_draw(self) -> bool:
            if self.halfmove_clock >= FORTY_MOVE_PLIES:
                return True
            return bool(self.is_threefold_repetition)

    class DeadlineEngine(SimpleEngine):  # type: ignore[misc]  # the base is Any here
        """``SimpleEngine`` that stops at a deadline checked at every static evaluation."""

        deadline = float("inf")

        def evaluate(self, board: Any) -> float:
            # Every search path ends in quiescence, which evaluates: stopping here
            # unwinds the whole search, which keeps the last finished iteration.
            if time.perf_counter() >= self.deadline:
                self.stop_search = True
            return float(super().evaluate(board))

    return ForcedCaptureBoard, DeadlineEngine


class PyDraughtsSession:
    """The game the driver described and the engine that answers ``go``."""

    def __init__(self, board_class: Any, engine_class: Any) -> None:
        self._board_class = board_class
        self._engine_class = engine_class
        self._board: Any = None
        self._engine: Any = None
        self.new_game()

    def new_game(self) -> None:
        """Forget the position and the engine's tables."""
        self._board = None
        self._engine = self._engine_class(depth_limit=MAX_DEPTH, time_limit=1.0)

    def set_position(self, fen: str, moves: list[str]) -> None:
        """Set up ``fen`` and play ``moves`` (full-path notation) on it.

        :raises protocol.ProtocolError: the FEN is invalid or a move is not legal.
        """
        self._board = None
        turn, white, black = protocol.parse_fen(fen)
        canonical = "{}:W{}:B{}".format(
            turn,
            ",".join(("K" if king else "") + str(square) for square, king in white.items()),
            ",".join(("K" if king else "") + str(square) for square, king in black.items()),
        )
        try:
            board = self._board_class.from_fen(canonical)
        except ValueError as error:
            raise protocol.ProtocolError(f"invalid FEN {fen!r}: {error}") from None
        for text in moves:
            board.push(self._find_move(board, text))
        self._board = board

    @staticmethod
    def _find_move(board: Any, text: str) -> Any:
        """The py-draughts move that ``text`` names in ``board``'s position."""
        squares = protocol.parse_move_text(text)
        legal = board.legal_moves
        for move in legal:
            if tuple(square + 1 for square in move.square_list) == squares:
                return move
        # py-draughts keeps one route of several with the same ends and the same
        # captured pieces (they leave the same position): accept the others too.
        jumped = [jumped_square(a, b) for a, b in itertools.pairwise(squares)]
        if None not in jumped:
            for move in legal:
                if (
                    move.captured_list
                    and move.square_list[0] + 1 == squares[0]
                    and move.square_list[-1] + 1 == squares[-1]
                    and {square + 1 for square in move.captured_list} == set(jumped)
                ):
                    return move
        listed = " ".join(_text_of(move) for move in legal)
        raise protocol.ProtocolError(
            f"illegal move {text!r} in {_fen_of(board)}; legal: {listed}"
        )

    def best_move(self, movetime_ms: int) -> str | None:
        """The engine's move within ``movetime_ms``, or ``None`` when there is none.

        :raises protocol.ProtocolError: no position has been set.
        """
        board = self._board
        if board is None:
            raise protocol.ProtocolError("no position: send 'position' before 'go'")
        start = time.perf_counter()
        legal = board.legal_moves
        if not legal:
            return None
        if len(legal) == 1:
            return _text_of(legal[0])
        if board.is_draw:
            # Over by repetition or the forty-move rule, yet a move is asked for:
            # search the same position with a fresh history, or the engine's
            # root returns before searching.
            board = board.copy()
            board.halfmove_clock = 0
        seconds = protocol.search_seconds(
            movetime_ms, margin_share=MARGIN_SHARE, margin_seconds=MARGIN_SECONDS
        )
        engine = self._engine
        engine.time_limit = seconds
        engine.deadline = start + seconds
        try:
            chosen = engine.get_best_move(board)
        finally:
            engine.deadline = float("inf")
        # The engine's move comes from its transposition table: make sure it is
        # one of this position's moves (by path: Move.__eq__ matches loosely).
        paths = {tuple(move.square_list) for move in legal}
        if tuple(chosen.square_list) not in paths:
            print(f"engine move {chosen} is not legal here; playing the first", file=sys.stderr)
            chosen = legal[0]
        return _text_of(chosen)


def _text_of(move: Any) -> str:
    """A py-draughts move (0-based ``square_list``) in full-path notation."""
    squares = [square + 1 for square in move.square_list]
    return protocol.move_text(squares, is_capture=bool(move.captured_list))


def _fen_of(board: Any) -> str:
    """The FEN of a py-draughts board, without the ``[FEN "..."]`` wrapper."""
    text = str(board.fen)
    match = re.search(r'"([^"]*)"', text)
    return match.group(1) if match else text


# -- the program ---------------------------------------------------------------


def start_session() -> tuple[PyDraughtsSession, str]:
    """Load py-draughts; the session and the name that ``dcp`` announces."""
    board_class, engine_class = _peer_classes()
    version = importlib.metadata.version("py-draughts")
    name = f"{PROGRAM} {version} {ENGINE_NAME} (captures compulsory)"
    return PyDraughtsSession(board_class, engine_class), name


def main() -> int:
    """Serve the line protocol on stdin and stdout; the exit status."""
    return protocol.run(start_session)


if __name__ == "__main__":
    sys.exit(main())
