"""The engine: iterative deepening with aspiration windows around the compiled search.

:class:`Engine` owns the search's memory (transposition table, history and
killer tables, the explicit stack of :mod:`doublecorner.kernel.search`) and
runs one search at a time. Each finished depth is reported to an optional
callback; the search stops at the first limit reached, when ``stop`` is set,
or when :meth:`Engine.stop` is called from another thread, and returns the
best move found so far. The compiled loop runs without the GIL, so a watcher
thread can raise its stop flag on time.
"""

from __future__ import annotations

import functools
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from doublecorner.board import Board
from doublecorner.egtb.choice import INSTALLED_TABLES, TableChoice, resolve_tables
from doublecorner.egtb.probe import Value
from doublecorner.engine.limit import MAX_DEPTH, Limit
from doublecorner.engine.network import Network, load_network
from doublecorner.engine.score import Score
from doublecorner.engine.timeman import TimeStretch, budget
from doublecorner.engine.tt import TranspositionTable
from doublecorner.engine.weights import Weights
from doublecorner.errors import EngineError, TableError
from doublecorner.kernel.evalcache import EVAL_CACHE_ENTRIES
from doublecorner.kernel.evaluate import FEATURE_COUNT, evaluate, evaluation_features
from doublecorner.kernel.hashing import zobrist_key
from doublecorner.kernel.movegen import count_moves, generate_moves
from doublecorner.kernel.network import HIDDEN, Q_PARAMETERS, SCRATCH, evaluate_position
from doublecorner.kernel.ordering import HISTORY_SIZE
from doublecorner.kernel.scores import (
    INFINITE,
    MATE,
    MAX_PLY,
    TABLE_BOUND,
    TABLE_WIN,
)
from doublecorner.kernel.search import (
    C_ABORTED,
    C_EVALUATION,
    C_GENERATION,
    C_NODE_LIMIT,
    C_NODES,
    C_ROOT_BEST_KEY,
    C_ROOT_BEST_SCORE,
    C_SELDEPTH,
    C_STOP,
    C_TABLE_HITS,
    C_TABLE_PIECES,
    CONTROL_FIELDS,
    EVALUATION_LINEAR,
    EVALUATION_NETWORK,
    F_ALPHA,
    F_BETA,
    F_BLACK,
    F_CLOCK,
    F_DEPTH,
    F_KEY,
    F_KINGS,
    F_TURN,
    F_WHITE,
    FRAME_FIELDS,
    MOVE_ROWS,
    search_window,
)
from doublecorner.move import Move
from doublecorner.position import Position
from doublecorner.warmup import ensure_compiled, load_announced

if TYPE_CHECKING:
    from doublecorner.book.reader import Book

NO_NODE_LIMIT = 1 << 62
ASPIRATION_FROM_DEPTH = 4
ASPIRATION_WINDOW = 30  # hundredths of a man either side of the last score
WATCH_INTERVAL = 0.002  # seconds between two looks at the clock and the stop event
EVALUATIONS = ("nn", "linear")
DEFAULT_EVALUATION = "nn"


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found: the move to play and how it was found.

    ``move`` is ``None`` only when the side to move has no legal move (it has
    lost). ``depth`` counts the last finished iteration; ``seldepth`` the
    longest line searched (captures and forced moves go deeper).
    """

    move: Move | None
    score: Score
    depth: int
    seldepth: int
    nodes: int
    seconds: float
    pv: tuple[Move, ...]
    table_hits: int = 0
    """Positions scored from the endgame tables (the root included, if it was)."""
    is_book: bool = False
    """The move came from the opening book (no search: depth and nodes 0; the score is
    the book's engine score of the move, or 0 where it has none)."""

    @property
    def nps(self) -> int:
        """Nodes per second."""
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0


InfoCallback = Callable[[SearchResult], None]


class Engine:
    """A checkers engine: ``search`` a position under a :class:`Limit`.

    ``evaluation`` is ``"nn"`` (the trained network: the shipped one, or the
    weights file or :class:`Network` given as ``network``) or ``"linear"``
    (the hand-made features, with ``weights``). With a ``book``, a position
    the book holds is answered with one of its moves, drawn by weight
    (:meth:`~doublecorner.book.Book.choose`) with a generator seeded by
    ``book_seed`` (None: unseeded), without searching.

    ``tables`` are the endgame tables it plays with (see
    :mod:`doublecorner.egtb.choice`): by default those installed in the
    default folder by ``doublecorner egtb build``, if any; a folder, a
    :class:`~doublecorner.egtb.Tables`, or ``None`` for none. A position they
    hold is answered from them at the root, and the search scores the
    positions it reaches after a capture or a man move from them. Before each
    search the slices the search may reach are read, if they were not yet.

    :raises EngineError: an unknown evaluation, or a network file that cannot be read.
    :raises TableError: a folder named as ``tables`` holds no table.

    >>> engine = Engine(hash_mb=4, tables=None)  # the search alone, whatever is installed
    >>> result = engine.search(Position.from_fen("W:W18:B14"), Limit(depth=4))
    >>> str(result.move), str(result.score)
    ('18x9', 'win in 1')
    """

    def __init__(self, *, hash_mb: int = 64, weights: Weights | None = None,
                 tables: TableChoice = INSTALLED_TABLES, evaluation: str = DEFAULT_EVALUATION,
                 network: str | Path | Network | None = None, book: Book | None = None,
                 book_seed: int | None = None) -> None:
        if evaluation not in EVALUATIONS:
            raise EngineError(f"unknown evaluation {evaluation!r}: use "
                              f"{' or '.join(EVALUATIONS)}")
        self.evaluation = evaluation
        # The network is read even for the linear evaluation when a file is named,
        # so that a bad file is reported where it is given, not at the first search.
        self.network = (load_network(network)
                        if evaluation == "nn" or network is not None else None)
        self._network = (self.network.quantised if self.network is not None
                         else np.zeros(Q_PARAMETERS, np.float32))
        self._accumulators = np.zeros((MAX_PLY + 1, 2, HIDDEN), np.float32)
        self._network_scratch = np.zeros(SCRATCH, np.float32)
        # The network's scores of positions already met: valid for this engine's
        # whole life, as its network never changes.
        self._eval_cache = np.zeros(EVAL_CACHE_ENTRIES, np.int64)
        self.weights = weights or Weights.default()
        self.tables = resolve_tables(tables)
        self.book = book
        self._book_seed = book_seed
        self._book_random = random.Random(book_seed)
        self._table_arrays = self.tables.arrays() if self.tables is not None else (
            np.full(1, -1, np.int64), np.zeros(1, np.uint8))
        self._weights = self.weights.as_array()
        self._table = TranspositionTable(hash_mb)
        self._frames = np.zeros((MAX_PLY + 1, FRAME_FIELDS), np.int64)
        self._moves = np.zeros((MOVE_ROWS, 4), np.int64)
        self._order = np.zeros(MOVE_ROWS, np.int64)
        self._killers = np.zeros((MAX_PLY + 1, 2), np.int64)
        self._history = np.zeros(HISTORY_SIZE, np.int64)
        self._pv = np.zeros((MAX_PLY + 1, MAX_PLY + 1), np.int64)
        self._pv_length = np.zeros(MAX_PLY + 1, np.int64)
        self._scratch = np.zeros(FEATURE_COUNT, np.float64)
        self._control = np.zeros(CONTROL_FIELDS, np.int64)
        self._stop_requested = threading.Event()
        self._busy = threading.Lock()

    @property
    def hash_mb(self) -> int:
        return self._table.megabytes

    def new_game(self) -> None:
        """Forget what earlier searches learnt (the table, history and killers).

        The book's draws start again from ``book_seed``, so that with a seed a
        game's book moves do not depend on the games played before it.
        """
        self._book_random = random.Random(self._book_seed)
        self._table.clear()
        self._history.fill(0)
        self._killers.fill(0)

    def stop(self) -> None:
        """Stop the running search, from any thread; it returns its best move so far.

        A stop while no search runs ends the next search as soon as it starts
        (with a legal move): the thread that stops cannot tell whether the
        search it means has started yet, and the stop must not be lost. Each
        search clears the request when it returns.
        """
        self._stop_requested.set()
        self._control[C_STOP] = 1

    def evaluate(self, position: Position | Board) -> Score:
        """The static evaluation of a position (or a board's), for the side to move.

        :raises TypeError: if ``position`` is neither a Position nor a Board.
        """
        position = _position_of(position)
        ensure_engine_compiled()
        black, white, kings, turn = (position.black, position.white, position.kings,
                                     int(position.turn))
        if self.evaluation == "linear":
            return Score(evaluate(black, white, kings, turn, self._weights, self._scratch))
        if count_moves(black, white, kings, turn) == 0:
            return Score(-MATE)  # as the search scores a side with no move
        return Score(evaluate_position(black, white, kings, turn, self._network,
                                       self._accumulators, self._network_scratch))

    def search(self, position: Position | Board, limit: Limit | None = None, *,
               history: Sequence[Position] | None = None, halfmove_clock: int | None = None,
               on_info: InfoCallback | None = None,
               stop: threading.Event | None = None, use_book: bool = True) -> SearchResult:
        """Search ``position`` and return the best move found within ``limit``.

        ``history`` is the game's positions before this one, in order (the
        search scores a repetition of any of them as a draw); ``halfmove_clock``
        counts the plies since the last man move or capture (the 40-move rule).
        Given a :class:`~doublecorner.board.Board`, the search takes its
        position, and its history and clock unless they are given.
        The search claims these draws for either side at once: a line that
        reaches one scores 0 (a game itself goes on until a player claims, see
        :meth:`Board.outcome <doublecorner.board.Board.outcome>`).
        ``on_info`` gets a result after every finished depth. A position the
        engine's book holds is answered from it unless ``use_book`` is False
        (a score wanted rather than a move, such as judging a draw offer).

        :raises EngineError: if the engine is already searching, or the clock is negative.
        :raises TypeError: if ``position`` is neither a Position nor a Board.
        """
        if isinstance(position, Board):
            board = position
            position = board.position()
            history = board.position_history() if history is None else history
            halfmove_clock = board.halfmove_clock if halfmove_clock is None else halfmove_clock
        position = _position_of(position)
        history = () if history is None else history
        halfmove_clock = 0 if halfmove_clock is None else halfmove_clock
        if halfmove_clock < 0:
            raise EngineError(f"halfmove clock must be 0 or more, not {halfmove_clock}")
        if not self._busy.acquire(blocking=False):
            raise EngineError("the engine is already searching; stop it first")
        try:
            return self._search(position, limit or Limit(), history, halfmove_clock,
                                on_info, stop, use_book)
        finally:
            # Cleared here, at the end, not at the start: a stop() that came just
            # before this search began ends it (see stop()).
            self._stop_requested.clear()
            self._busy.release()

    def _search(self, position: Position, limit: Limit, history: Sequence[Position],
                halfmove_clock: int, on_info: InfoCallback | None,
                stop: threading.Event | None, use_book: bool) -> SearchResult:
        ensure_engine_compiled()
        if self.tables is not None:
            # Before the clock starts: a slice is read once per process, and the
            # first search near the 6-piece ones would otherwise spend seconds of a
            # 0.1 s move reading them.
            self.tables.load_reachable(position)
        started = time.monotonic()
        black, white, kings, turn = (position.black, position.white, position.kings,
                                     int(position.turn))
        root_moves = generate_moves(black, white, kings, turn)
        if len(root_moves) == 0:
            return SearchResult(None, Score(-MATE), 0, 0, 0, 0.0, ())
        legal_keys = {int(key) for key in root_moves[:, 3]}
        from_book = self._book_answer(position, started) if use_book else None
        if from_book is not None:
            if on_info is not None:
                on_info(from_book)
            return from_book
        from_tables = self._table_answer(position, halfmove_clock, started)
        if from_tables is not None:
            if on_info is not None:
                on_info(from_tables)
            return from_tables
        game_keys = np.array([zobrist_key(p.black, p.white, p.kings, int(p.turn)) for p in history],
                             dtype=np.int64)
        root_key = zobrist_key(black, white, kings, turn)

        control = self._control
        control.fill(0)
        control[C_NODE_LIMIT] = limit.nodes or NO_NODE_LIMIT
        control[C_GENERATION] = self._table.next_generation()
        control[C_TABLE_PIECES] = self.tables.max_pieces if self.tables is not None else 0
        control[C_EVALUATION] = (EVALUATION_NETWORK if self.evaluation == "nn"
                                 else EVALUATION_LINEAR)
        if self._stop_requested.is_set():  # asked before the search began (control was reset)
            control[C_STOP] = 1
        self._killers.fill(0)
        self._history >>= 1
        times = TimeStretch(budget(limit))
        finished = threading.Event()
        watcher = threading.Thread(target=self._watch, args=(started, times, stop, finished),
                                   daemon=True)
        watcher.start()

        best: SearchResult | None = None
        last_value = 0
        try:
            for depth in range(1, (limit.depth or MAX_DEPTH) + 1):
                value = self._iterate(black, white, kings, turn, root_key, halfmove_clock,
                                      game_keys, depth, last_value)
                if control[C_ABORTED]:
                    best = self._partial(best, legal_keys, started)
                    break
                last_value = value
                found = self._result(Score(value), depth, started)
                if best is not None and best.score.is_win and not found.score.is_win:
                    # A win is a concrete line to a side without moves, with both draw
                    # rules applied on the way. A deeper iteration that misses it has
                    # pruned it away (reductions, table replacement), not refuted it.
                    found = SearchResult(best.move, best.score, depth, found.seldepth,
                                         found.nodes, found.seconds, best.pv)
                if best is not None:
                    times.after_iteration(move_changed=found.move != best.move,
                                          score_change=found.score.value - best.score.value)
                best = found
                if on_info is not None:
                    on_info(best)
                elapsed = time.monotonic() - started
                if times.soft is not None and (elapsed >= times.soft or len(legal_keys) == 1):
                    break
                plies = best.score.plies_to_end
                if limit.depth is None and plies is not None and depth > plies + 2:
                    break  # the result is proven: deeper searches cannot change it
        finally:
            finished.set()
            watcher.join()
        if best is None or best.move is None or best.move._key not in legal_keys:
            # Stopped before any move was searched: play the first in the table's order.
            first = Move._from_kernel_key(int(root_moves[0, 3]))
            best = SearchResult(first, Score(0), 0, int(control[C_SELDEPTH]),
                                int(control[C_NODES]), time.monotonic() - started, (first,))
        return best

    def _iterate(self, black: int, white: int, kings: int, turn: int, root_key: int,
                 clock: int, game_keys: np.ndarray, depth: int, last_value: int) -> int:
        """One iteration at ``depth``, widening the aspiration window until the score fits."""
        window = ASPIRATION_WINDOW
        if depth >= ASPIRATION_FROM_DEPTH and abs(last_value) < TABLE_BOUND:
            alpha, beta = last_value - window, last_value + window
        else:
            alpha, beta = -INFINITE, INFINITE
        frames = self._frames
        while True:
            frames[0, F_BLACK] = black
            frames[0, F_WHITE] = white
            frames[0, F_KINGS] = kings
            frames[0, F_TURN] = turn
            frames[0, F_KEY] = root_key
            frames[0, F_CLOCK] = clock
            frames[0, F_ALPHA] = alpha
            frames[0, F_BETA] = beta
            frames[0, F_DEPTH] = depth
            self._control[C_ROOT_BEST_KEY] = -1
            value = int(search_window(frames, self._moves, self._order, game_keys,
                                      self._table.table, self._killers, self._history, self._pv,
                                      self._pv_length, self._weights, self._scratch,
                                      self._network, self._accumulators,
                                      self._network_scratch, self._eval_cache,
                                      self._control,
                                      *self._table_arrays))
            if self._control[C_ABORTED]:
                return value
            if value <= alpha and alpha > -INFINITE:
                alpha = max(-INFINITE, value - window)
            elif value >= beta and beta < INFINITE:
                beta = min(INFINITE, value + window)
            else:
                return value
            window *= 2

    def _result(self, score: Score, depth: int, started: float) -> SearchResult:
        pv = tuple(Move._from_kernel_key(int(key))
                   for key in self._pv[0, :self._pv_length[0]])
        return SearchResult(pv[0] if pv else None, score, depth,
                            int(self._control[C_SELDEPTH]), int(self._control[C_NODES]),
                            time.monotonic() - started, pv, int(self._control[C_TABLE_HITS]))

    def _partial(self, best: SearchResult | None, legal_keys: set[int],
                 started: float) -> SearchResult | None:
        """The result after a stop: a root move that beat the last best in the cut iteration."""
        key = int(self._control[C_ROOT_BEST_KEY])
        if key in legal_keys and (best is None or best.move is None or key != best.move._key):
            found = self._result(Score(int(self._control[C_ROOT_BEST_SCORE])),
                                 best.depth if best else 0, started)
            if found.move is not None and found.move._key == key:
                return found
        if best is None:
            return None
        return SearchResult(best.move, best.score, best.depth, int(self._control[C_SELDEPTH]),
                            int(self._control[C_NODES]), time.monotonic() - started, best.pv)

    def _book_answer(self, position: Position, started: float) -> SearchResult | None:
        """A move of the book for ``position``, or None (no book, or out of book)."""
        if self.book is None:
            return None
        entry = self.book.choose(position, self._book_random)
        if entry is None:
            return None
        return SearchResult(entry.move, Score(entry.score or 0), 0, 0, 0,
                            time.monotonic() - started, (entry.move,), is_book=True)

    def _table_answer(self, position: Position, halfmove_clock: int,
                      started: float) -> SearchResult | None:
        """The tables' move at the root, where they hold the position and its moves.

        A win the 40-move count would draw with best defence (its distance to
        conversion, and to the next man move or capture, are too long for what
        the count leaves) is scored a draw, and still played by the tables'
        moves: they keep the win and restart the count soonest, should the
        defence falter. A search would find every move drawn by the count and
        could pick one that throws the win away, or loses.
        """
        tables = self.tables
        pieces = (position.black | position.white).bit_count()
        if tables is None or pieces > tables.max_pieces or not tables.covers(position):
            return None
        try:
            probe = tables.probe(position, halfmove_clock)
        except TableError:  # a child's slice is missing
            return None
        if not probe.best_moves:
            return None
        value = probe.value
        if value == Value.WIN and not probe.wins_within_the_rule(halfmove_clock):
            value = Value.DRAW
        score = Score({Value.WIN: TABLE_WIN, Value.LOSS: -TABLE_WIN, Value.DRAW: 0}[value])
        move = probe.best_moves[0]
        return SearchResult(move, score, 0, 0, 0, time.monotonic() - started, (move,), 1)

    def _watch(self, started: float, times: TimeStretch, stop: threading.Event | None,
               finished: threading.Event) -> None:
        """Raise the kernel's stop flag at the deadline (``times.hard``, which the search
        may move), or when asked to stop."""
        while not finished.wait(WATCH_INTERVAL):
            hard = times.hard
            if (self._stop_requested.is_set() or (stop is not None and stop.is_set())
                    or (hard is not None and time.monotonic() >= started + hard)):
                self._control[C_STOP] = 1
                return


def _position_of(position: object) -> Position:
    """``position`` itself, a board's position, or a TypeError naming what came instead."""
    if isinstance(position, Board):
        return position.position()
    if not isinstance(position, Position):
        raise TypeError(f"expected a Position or a Board, not {type(position).__name__} "
                        f"{position!r:.60}")
    return position


@functools.cache
def ensure_engine_compiled() -> None:
    """Compile or load the engine's evaluations and search once per process.

    Here, beside the engine, and not in ``doublecorner.warmup``: compiling the
    search takes an :class:`Engine`, so the rules' warm-up module would have to
    import this one, which needs it first.
    """
    ensure_compiled()
    load_announced("the engine", _touch_engine_functions)


def _touch_engine_functions() -> None:
    black, white = 0x1, 0x10000000
    evaluation_features(black, white, 0, 0, np.zeros(FEATURE_COUNT, np.float64))
    evaluate_position(black, white, 0, 0, np.zeros(Q_PARAMETERS, np.float32),
                      np.zeros((1, 2, HIDDEN), np.float32), np.zeros(SCRATCH, np.float32))
    # One shallow iteration compiles search_window with the engine's own arrays (the
    # evaluation is chosen at run time, so either engine compiles both).
    engine = Engine(hash_mb=1, evaluation="linear", tables=None)
    engine._iterate(black, white, 0, 0, zobrist_key(black, white, 0, 0), 0,
                    np.zeros(0, np.int64), 2, 0)
