"""Probing loaded endgame tables: the value of a position and its best moves.

Values are game-theoretic (unlimited moves, no draw rules). Next to each value
the tables keep the **distance to conversion** (DTC): the plies until a capture
or a crowning (each of which restarts the 40-move count) takes the game into
another slice, or until it ends, with best play. :meth:`Tables.best_moves` in a
won position picks the moves of smallest DTC, so each slice is left after at
most DTC plies. Where the DTC fits in what the 40-move count leaves, a won
ending is never drawn by that rule. Where it does not (the largest DTC is 73
plies up to 4 pieces, 110 up to 5), :meth:`Tables.probe` given the count
plays by the distance to the next man move or capture instead
(:mod:`doublecorner.egtb.dtz`), which restarts the count as well.

A compiled search probes with :func:`doublecorner.kernel.egtb_index.egtb_value`
and the two arrays of :meth:`Tables.arrays`, made once and passed down as
arguments (numba freezes global arrays into the compiled code, and a table
loaded after compiling would not be seen). Tables from :func:`open_tables`
fill those same arrays a slice at a time, as searches come near it
(:meth:`Tables.load_reachable`).
"""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from doublecorner.egtb.material import Material, materials
from doublecorner.egtb.storage import SliceData, read_slice, slice_path
from doublecorner.errors import TableError
from doublecorner.kernel import generate_moves
from doublecorner.kernel.egtb_index import (
    MATERIAL_CODES,
    egtb_value,
    flip_board,
    rank_position,
)
from doublecorner.kernel.scores import FORTY_MOVE_PLIES
from doublecorner.move import Move
from doublecorner.position import Position

if TYPE_CHECKING:
    from doublecorner.egtb.dtz import DtzProber

# The most pieces of the tables that play and analysis use (open_tables, or
# load_tables(lazy_dtc=True)); missing slices are simply not probed.
LOADED_PIECES = 6
# Tables from open_tables read a slice once a search's root is at most this many
# captures away from it: a search of a few dozen plies rarely takes more pieces,
# and a middlegame search reads nothing (the 6-piece values take 4 s and 0.8 GB).
CAPTURES_AHEAD = 4


class Value(enum.IntEnum):
    """The game value for the side to move."""

    LOSS = -1
    DRAW = 0
    WIN = 1


@dataclass(frozen=True)
class Probe:
    """What the tables say about a position."""

    value: Value
    dtc: int  # plies to conversion with best play (0 for a draw)
    best_moves: tuple[Move, ...]
    # Plies to the next move that restarts the 40-move count (see doublecorner.egtb.dtz);
    # worked out only for a win whose DTC does not fit in what the count leaves.
    dtz: int | None = None

    def wins_within_the_rule(self, halfmove_clock: int) -> bool:
        """Whether a won position stays won under the 40-move rule with ``best_moves``.

        False for a draw or a loss, and for a win the count would draw first.
        The move that restarts the count (or ends the game) is the
        ``distance``-th from here, so the count reaches ``halfmove_clock +
        distance - 1`` before it: at most 79, which neither is a draw on the
        board (80) nor lets the loser claim one with its next move (its last
        turn before that move sees at most 78).
        """
        if self.value != Value.WIN:
            return False
        distance = self.dtc if self.dtz is None else self.dtz
        return halfmove_clock + distance <= FORTY_MOVE_PLIES


def _black_to_move(black: int, white: int, kings: int, turn: int) -> tuple[int, int, int]:
    """The stored twin of a position: itself with Black to move, else flipped."""
    if turn == 0:
        return black, white, kings
    return int(flip_board(white)), int(flip_board(black)), int(flip_board(kings))


class Tables:
    """Endgame tables held in memory: flat arrays a compiled probe can take.

    ``Tables(max_pieces)`` is empty; :meth:`put` adds slices; :func:`load_tables`
    fills one from a folder.
    """

    def __init__(self, max_pieces: int) -> None:
        self.max_pieces = max_pieces
        self._starts: dict[Material, int] = {}
        start = 0
        for material in materials(max_pieces):
            self._starts[material] = start
            start += (material.size + 3) // 4 * 4  # slices start on a byte
        self._offsets = np.full(MATERIAL_CODES, -1, np.int64)
        self._packed = np.zeros(start // 4, np.uint8)  # pages of absent slices stay unmapped
        self._present: set[Material] = set()
        self._dtc: dict[Material, np.ndarray] = {}
        self._dtc_lock = threading.Lock()
        self._dtz: DtzProber | None = None  # made on first use
        # Where the DTC of slices put without it is read on first use (load_tables(lazy_dtc=)).
        self.dtc_directory: Path | None = None
        # Where slices not loaded yet are read from as searches come near them
        # (open_tables); None: the tables hold all they will.
        self.slice_directory: Path | None = None
        self._absent: set[Material] = set()  # looked for in slice_directory: not there
        self._load_lock = threading.Lock()

    def put(self, data: SliceData) -> None:
        """Add (or replace) one slice; one without its DTC reads it from ``dtc_directory``."""
        start = self._starts[data.material]
        replaced = data.material in self._present
        self._packed[start // 4:start // 4 + data.packed.shape[0]] = data.packed
        self._present.add(data.material)
        if data.dtc is not None:
            self._dtc[data.material] = data.dtc
        else:
            self._dtc.pop(data.material, None)
        # The offset last: a search in another thread sees no slice or all of it.
        self._offsets[data.material.code] = start
        if replaced:
            self._dtz = None  # its solved blocks may rest on the slice replaced

    def has(self, material: Material) -> bool:
        """Whether the slice of ``material`` is loaded."""
        return material in self._present

    def load_reachable(self, position: Position) -> None:
        """Read the values of the slices a search from ``position`` may reach.

        Only tables from :func:`open_tables` read anything (others hold all
        they will): each slice of :func:`reachable_materials` that is on disk
        and not loaded yet. A slice read stays; one missing is not looked for
        again. Engines sharing the tables read each slice once.

        :raises TableError: a slice's file is damaged or is no regular file.
        """
        directory = self.slice_directory
        if directory is None:
            return
        wanted = [material for material in reachable_materials(position, self.max_pieces)
                  if material not in self._present and material not in self._absent]
        if not wanted:
            return
        with self._load_lock:
            for material in wanted:
                if material in self._present or material in self._absent:
                    continue  # another engine's search read it meanwhile
                if not slice_path(directory, material).exists():
                    self._absent.add(material)
                    continue
                self.put(read_slice(directory, material, with_dtc=False))

    def dtc_array(self, material: Material) -> np.ndarray:
        """The DTC of every position of a loaded slice, in index order.

        :raises TableError: the slice is not loaded, or its DTC was left on
            disk and the file is gone or damaged.
        """
        found = self._dtc.get(material)
        if found is not None:
            return found
        if material not in self._present or self.dtc_directory is None:
            raise TableError(f"slice {material.name} is not loaded")
        with self._dtc_lock:  # two engine threads must not read the same file twice
            if material not in self._dtc:
                data = read_slice(self.dtc_directory, material)
                assert data.dtc is not None  # read with it
                self._dtc[material] = data.dtc
            return self._dtc[material]

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(offsets, packed)`` for :func:`~doublecorner.kernel.egtb_index.egtb_value`."""
        return self._offsets, self._packed

    def covers(self, position: Position) -> bool:
        """Whether the loaded slices hold ``position``."""
        black, white, kings = _black_to_move(position.black, position.white, position.kings,
                                             int(position.turn))
        return black == 0 or white == 0 or self.has(Material.of(black, white, kings))

    def value(self, position: Position) -> Value:
        """The value of ``position`` for the side to move.

        :raises TableError: no loaded slice holds the position.
        """
        code = int(egtb_value(position.black, position.white, position.kings,
                              int(position.turn), self._offsets, self._packed))
        if code == -2:
            raise TableError(f"no table loaded for {position.fen()}"
                             f" (tables up to {self.max_pieces} pieces)")
        return Value(code)

    def dtc(self, position: Position) -> int:
        """Plies to conversion (capture, crowning or the end) with best play; 0 for a draw.

        :raises TableError: no loaded slice holds the position.
        """
        black, white, kings = _black_to_move(position.black, position.white, position.kings,
                                             int(position.turn))
        if black == 0 or white == 0:
            return 0
        material = Material.of(black, white, kings)
        if not self.has(material):
            raise TableError(f"no table loaded for {position.fen()}")
        return int(self.dtc_array(material)[rank_position(black, white, kings)])

    def dtz(self, position: Position) -> int:
        """Plies to the next capture, crowning or man move with best play; 0 for a draw.

        Those are the moves that restart the 40-move count (see
        :mod:`doublecorner.egtb.dtz`; a position with men solves its block,
        a fraction of a second, kept for the next probes).

        :raises TableError: no loaded slice holds the position or a move from it.
        """
        black, white, kings = _black_to_move(position.black, position.white, position.kings,
                                             int(position.turn))
        if black == 0 or white == 0:
            return 0
        if self._dtz is None:
            from doublecorner.egtb.dtz import DtzProber

            self._dtz = DtzProber(self)
        return self._dtz.dtz(black, white, kings)

    def move_values(self, position: Position) -> list[tuple[Move, Value, int]]:
        """Each legal move with the value and DTC it leaves *the opponent*.

        A move that converts (captures or crowns) leaves DTC 0: the count starts
        afresh in the next slice.
        """
        return [(move, value, dtc) for move, _, value, dtc in self._move_rows(position)]

    def _move_rows(self, position: Position) -> list[tuple[Move, Position, Value, int]]:
        """:meth:`move_values`, with the position each move leads to."""
        before = Material.of(position.black, position.white, position.kings)
        return [(move, child, self.value(child),
                 0 if Material.of(child.black, child.white, child.kings) != before
                 else self.dtc(child))
                for move, child in _children(position)]

    def probe(self, position: Position, halfmove_clock: int = 0) -> Probe:
        """Value, DTC and best moves of ``position``.

        Best moves: in a win, the winning moves of smallest DTC (progress that
        the 40-move rule cannot undo) while the DTC fits in what the count
        leaves after ``halfmove_clock`` plies without a man move or capture;
        past that, the winning moves of smallest DTZ (restart the count
        soonest; ties by DTC). In a loss, the moves that hold out longest; in a
        draw, the moves that keep the draw.

        :raises TableError: no loaded slice holds the position or a child of it.
        """
        value = self.value(position)
        dtc = self.dtc(position)
        if value == Value.WIN and halfmove_clock + dtc > FORTY_MOVE_PLIES:
            return self._probe_by_dtz(position, dtc)
        rows = self.move_values(position)
        if value == Value.WIN:
            good = [(after_dtc, move) for move, after, after_dtc in rows if after == Value.LOSS]
            target = min(after_dtc for after_dtc, _ in good)
        elif value == Value.LOSS:
            good = [(after_dtc, move) for move, _, after_dtc in rows]
            target = max((after_dtc for after_dtc, _ in good), default=0)
        else:
            good = [(0, move) for move, after, _ in rows if after == Value.DRAW]
            target = 0
        best = tuple(sorted((move for after_dtc, move in good if after_dtc == target),
                            key=lambda move: move.path))
        return Probe(value, dtc, best)

    def _probe_by_dtz(self, position: Position, dtc: int) -> Probe:
        """A win probed by DTZ: the winning moves that restart the 40-move count soonest."""
        ranked = []
        for move, child, after, after_dtc in self._move_rows(position):
            if after != Value.LOSS:
                continue
            after_dtz = 0 if _restarts_count(position, move) else self.dtz(child)
            ranked.append(((after_dtz, after_dtc), move))
        target = min(key for key, _ in ranked)
        best = tuple(sorted((move for key, move in ranked if key == target),
                            key=lambda move: move.path))
        return Probe(Value.WIN, dtc, best, dtz=target[0] + 1)

    def best_moves(self, position: Position) -> tuple[Move, ...]:
        """The best moves of ``position`` (see :meth:`probe`)."""
        return self.probe(position).best_moves


def _children(position: Position) -> list[tuple[Move, Position]]:
    """Each legal move of ``position`` and the position it leads to."""
    turn = position.turn
    return [(Move._from_kernel_key(key), Position(black, white, kings, turn.opponent))
            for black, white, kings, key in generate_moves(position.black, position.white,
                                                           position.kings, int(turn)).tolist()]


def reachable_materials(position: Position, max_pieces: int) -> list[Material]:
    """The slices of up to ``max_pieces`` that a search from ``position`` may reach.

    Those whose material captures and crownings can make of the position's,
    at most :data:`CAPTURES_AHEAD` captures away, with either side to move (a
    slice holds Black to move: White to move is its mirror's).

    >>> [m.name for m in reachable_materials(Position.from_fen("B:WK10:B5,6"), 3)]
    ['1001', '0110', '0101', '0120', '0111', '0102', '2001', '1101', '0201']
    """
    start = Material.of(position.black, position.white, position.kings)
    nearest = start.pieces - CAPTURES_AHEAD
    return [material for material in materials(max_pieces)
            if material.pieces >= nearest
            and (_can_become(start, material) or _can_become(start, material.mirror()))]


def _can_become(start: Material, later: Material) -> bool:
    """Whether a game can lead from ``start`` to ``later`` (colours as they are).

    Pieces are only taken, and men only crowned: neither side gains men or pieces.
    """
    return (later.black_men <= start.black_men
            and later.black_men + later.black_kings <= start.black_men + start.black_kings
            and later.white_men <= start.white_men
            and later.white_men + later.white_kings <= start.white_men + start.white_kings)


def _restarts_count(before: Position, move: Move) -> bool:
    """Whether ``move`` restarts the 40-move count: a capture, or a man's move.

    The rule :meth:`Board.push` applies to its ``halfmove_clock``.
    """
    return move.is_capture or not before.kings >> (move.path[0] - 1) & 1


def load_tables(directory: Path, *, max_pieces: int, lazy_dtc: bool = False) -> Tables:
    """Load every slice file of up to ``max_pieces`` pieces found in ``directory``.

    Missing slices are left out (their positions raise :class:`TableError`).
    With ``lazy_dtc`` only the values are loaded (2 bits a position, what a
    search probes); a slice's DTC is read when first asked for. That is how
    play loads 6 pieces: the values take 640 MB, the DTC another 2.6 GB.

    :raises TableError: a file is damaged.
    """
    tables = Tables(max_pieces)
    if lazy_dtc:
        tables.dtc_directory = directory
    for material in materials(max_pieces):
        try:
            tables.put(read_slice(directory, material, with_dtc=not lazy_dtc))
        except TableError:
            if slice_path(directory, material).exists():
                raise
    return tables


def open_tables(directory: Path, *, max_pieces: int) -> Tables:
    """The tables of up to ``max_pieces`` in ``directory``, each slice read when first near.

    Nothing is read here. :meth:`Tables.load_reachable`, which the engine
    calls before each search, reads the values of the slices the search may
    reach; a slice's DTC is read when first asked for. So a program that never
    reaches an ending reads no table, and one that does reads only the slices
    it comes near.
    """
    tables = Tables(max_pieces)
    tables.slice_directory = tables.dtc_directory = directory
    return tables
