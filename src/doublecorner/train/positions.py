"""The positions a fit learns from, rebuilt from self-play records.

Every move of a record (:mod:`.records`) was the engine's answer to a search
of the position before it; each such position becomes one row: the position,
its 40-move count and ply (both counted from the record's start), the
search's score for the side to move, the game's result, the game's number,
and the endgame tables' value where the tables given hold the position.

The tables' value is looked up here, as the rows are rebuilt, from whatever
tables the reader passes (none: :data:`UNKNOWN` everywhere): the records
keep no labels, so a fit with larger tables than the games were played with
labels more of them.

Rebuilding is quick enough to need no cache: 3,023,696 positions (26,000
games, 5.1 MB of records) took 37 s of processor time, labels from the
tables of up to 6 pieces included (110 s on the clock of the 2-core machine
with ten other jobs running).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from doublecorner.kernel.egtb_index import egtb_value
from doublecorner.train.deep import deep_overrides
from doublecorner.train.records import GameRecord, read_records, records_files

if TYPE_CHECKING:
    from doublecorner.egtb import Tables

UNKNOWN = -2  # the tables' value of a position they do not hold (egtb_value's own code)

# The columns of the rebuilt positions, one entry per position, and their types.
COLUMNS: dict[str, Any] = {
    "black": np.uint32,
    "white": np.uint32,
    "kings": np.uint32,
    "turn": np.uint8,  # 0 Black to move, 1 White
    "clock": np.uint8,  # plies since the last man move or capture
    "ply": np.uint16,  # plies since the record's start
    "score": np.int32,  # the search's score, for the side to move (a deep one's if kept)
    "deep": np.uint8,  # 1 where the score is a deep search's (see .deep), else 0
    "result": np.int8,  # the game's result for Black: 1 won, 0 drawn, -1 lost
    "table": np.int8,  # the tables' value for the side to move: 1, 0, -1, or UNKNOWN
    "game": np.int32,  # the game's number
}


class _Rows:
    """Columns grown game by game (Python lists: appending is what the rebuild does)."""

    def __init__(self, tables: Tables | None) -> None:
        self.lists: dict[str, list[int]] = {name: [] for name in COLUMNS}
        self.max_pieces = 0 if tables is None else tables.max_pieces
        self.arrays = None if tables is None else tables.arrays()

    def add(self, record: GameRecord, deep: dict[int, int] | None = None) -> None:
        lists = self.lists
        black_list, white_list, kings_list = lists["black"], lists["white"], lists["kings"]
        turn_list, clock_list, table_list = lists["turn"], lists["clock"], lists["table"]
        for black, white, kings, turn, clock in record.states():
            black_list.append(black)
            white_list.append(white)
            kings_list.append(kings)
            turn_list.append(turn)
            clock_list.append(min(clock, 255))
            table_list.append(self._label(black, white, kings, turn))
        count = len(record.moves)
        lists["ply"] += range(count)
        if deep:
            lists["score"] += [deep.get(ply, score) for ply, score in enumerate(record.scores)]
            lists["deep"] += [ply in deep for ply in range(count)]
        else:
            lists["score"] += record.scores
            lists["deep"] += [False] * count
        lists["result"] += [record.result] * count
        lists["game"] += [record.number] * count

    def _label(self, black: int, white: int, kings: int, turn: int) -> int:
        if self.arrays is None or (black | white).bit_count() > self.max_pieces:
            return UNKNOWN
        return int(egtb_value(black, white, kings, turn, *self.arrays))  # -2: a slice missing

    def columns(self) -> dict[str, np.ndarray]:
        return {name: np.array(values, COLUMNS[name]) for name, values in self.lists.items()}


def record_columns(record: GameRecord, *, tables: Tables | None = None) -> dict[str, np.ndarray]:
    """The rows of one game (see :data:`COLUMNS`), one for each move made.

    >>> from doublecorner.board import Board
    >>> from doublecorner.position import Position
    >>> board = Board("B:W21:B9")
    >>> moves = (board.push_str("9-13"), board.push_str("21-17"))
    >>> columns = record_columns(GameRecord(3, Position.from_fen("B:W21:B9"), moves, (5, -5), 0))
    >>> columns["ply"].tolist(), columns["turn"].tolist(), columns["score"].tolist()
    ([0, 1], [0, 1], [5, -5])
    >>> columns["table"].tolist()  # no tables given
    [-2, -2]
    """
    rows = _Rows(tables)
    rows.add(record)
    return rows.columns()


def read_positions(sources: Path | Iterable[Path], *, tables: Tables | None = None,
                   deep_root: Path | None = None,
                   on_file: Callable[[int, int], None] | None = None) -> dict[str, np.ndarray]:
    """The rows of every game of the records named (folders or files), in the files' order.

    ``tables`` label the positions they hold (else every ``table`` is
    :data:`UNKNOWN`); the deep scores kept under ``deep_root`` (:mod:`.deep`)
    replace the records' own where there are any; ``on_file(done, total)`` is
    called as each file is read.

    :raises EngineError: a source is missing, a folder holds no records file, or
        a file (records or deep scores) cannot be read or is damaged (the message
        names the file and line), or a deep scores file is of another records file.
    """
    paths = records_files([sources] if isinstance(sources, Path) else sources)
    parts = []
    for done, path in enumerate(paths, start=1):
        # A file at a time into arrays: Python's lists take 20 times the memory.
        rows = _Rows(tables)
        deep = {} if deep_root is None else deep_overrides(path, deep_root)
        for record in read_records(path):
            rows.add(record, deep.get(record.number))
        parts.append(rows.columns())
        if on_file is not None:
            on_file(done, len(paths))
    return {name: np.concatenate([part[name] for part in parts]).astype(kind, copy=False)
            for name, kind in COLUMNS.items()}
