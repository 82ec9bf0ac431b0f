"""Positions rebuilt from self-play records: one row a move, labelled by the tables given."""

from __future__ import annotations

from pathlib import Path

import pytest

from doublecorner import Board, Position
from doublecorner.egtb import Tables
from doublecorner.errors import EngineError, TableError
from doublecorner.train.positions import COLUMNS, UNKNOWN, read_positions, record_columns
from doublecorner.train.records import GameRecord, records_path, write_records

CONFIG = {"nodes": 50}


def record_of(fen: str, moves: list[str], number: int = 5, result: int = 1) -> GameRecord:
    board = Board(fen)
    start = board.position()
    played = tuple(board.push_str(text) for text in moves)
    return GameRecord(number, start, played, tuple(range(10, 10 + len(played))), result)


def test_each_move_is_a_row_of_the_position_before_it() -> None:
    # Kings shuffle (the 40-move count goes up), then a man moves (it starts again).
    record = record_of("B:W21,K30:BK1", ["1-6", "30-26", "6-1", "21-17"], number=9, result=-1)
    columns = record_columns(record)
    assert set(columns) == set(COLUMNS)
    assert all(columns[name].dtype == COLUMNS[name] for name in COLUMNS)
    before = [board.position() for board in record.boards()][:-1]  # none after the last move
    assert [Position(int(b), int(w), int(k), int(t)) for b, w, k, t in zip(
        columns["black"], columns["white"], columns["kings"], columns["turn"],
        strict=True)] == before
    assert columns["clock"].tolist() == [0, 1, 2, 3]
    assert columns["ply"].tolist() == [0, 1, 2, 3]
    assert columns["score"].tolist() == [10, 11, 12, 13]
    assert columns["result"].tolist() == [-1] * 4
    assert columns["game"].tolist() == [9] * 4
    assert columns["table"].tolist() == [UNKNOWN] * 4  # no tables given


def test_the_tables_given_label_the_positions_they_hold(egtb4: Tables) -> None:
    # Five pieces, then a capture down to four: only the four-piece rows are in the tables.
    record = record_of("B:W18,K32:B14,15,K1", ["14x23", "32-27", "23x32"])
    columns = record_columns(record, tables=egtb4)
    positions = [Position(int(b), int(w), int(k), int(t)) for b, w, k, t in zip(
        columns["black"], columns["white"], columns["kings"], columns["turn"], strict=True)]
    assert [(position.black | position.white).bit_count() for position in positions] == [5, 4, 4]
    assert columns["table"].tolist() == [UNKNOWN, *(int(egtb4.value(position))
                                                   for position in positions[1:])]
    with pytest.raises(TableError):  # what the tables do not hold is not guessed
        egtb4.value(positions[0])


def test_records_of_folders_and_files_are_read_in_order(tmp_path: Path, egtb4: Tables) -> None:
    first = record_of("B:W21:B9", ["9-13", "21-17"], number=0, result=0)
    second = record_of("B:WK18:BK1", ["1-6"], number=1)
    third = record_of("W:WK32:BK1", ["32-27"], number=2)
    write_records(records_path(tmp_path, 0), [first, second], config=CONFIG)
    write_records(records_path(tmp_path, 1), [third], config=CONFIG)
    columns = read_positions(tmp_path, tables=egtb4)
    assert columns["game"].tolist() == [0, 0, 1, 2]
    single = read_positions([records_path(tmp_path, 1), records_path(tmp_path, 0)])
    assert single["game"].tolist() == [2, 0, 0, 1]
    assert columns["black"].tolist() == [*record_columns(first)["black"].tolist(),
                                         second.start.black, third.start.black]
    seen: list[tuple[int, int]] = []
    read_positions(tmp_path, on_file=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 2), (2, 2)]
    with pytest.raises(EngineError, match="no such folder or records file"):
        read_positions(tmp_path / "missing")
