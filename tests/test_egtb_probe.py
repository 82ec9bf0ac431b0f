"""Probing endgame tables: known results, best moves, the compiled probe and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from doublecorner.board import Board
from doublecorner.cli import main
from doublecorner.color import Color
from doublecorner.egtb import Material, TableError, Tables, Value, load_tables
from doublecorner.kernel.egtb_index import egtb_value, unrank_position
from doublecorner.position import Position

FIRST_POSITION = "W:WK15,20:BK28,12"


@pytest.fixture(scope="module")
def table_dir(egtb4_dir: Path) -> Path:
    return egtb4_dir


@pytest.fixture(scope="module")
def tables(egtb4: Tables) -> Tables:
    return egtb4


@pytest.mark.parametrize(("fen", "value"), [
    (FIRST_POSITION, Value.WIN),
    ("B:WK15,20:BK28,12", Value.DRAW),
    ("B:W22,K5:BK15,K6", Value.WIN),
    ("B:WK1:BK32", Value.DRAW),
    ("W:WK1,K2:BK32", Value.WIN),
    ("B:WK1,K2:BK32", Value.LOSS),
])
def test_known_values(tables: Tables, fen: str, value: Value) -> None:
    assert tables.value(Position.from_fen(fen)) == value


def test_the_only_winning_move_is_found(tables: Tables) -> None:
    position = Position.from_fen("B:W22,K5:BK15,K6")
    winning = [str(move) for move, after, _ in tables.move_values(position)
               if after == Value.LOSS]
    assert winning == ["15-10"]
    assert [str(move) for move in tables.best_moves(position)] == ["15-10"]


def test_best_moves_win_the_first_position_within_the_forty_move_rule(tables: Tables) -> None:
    # Both sides follow the tables: the loser holds out longest, the winner converts
    # fastest; the win must come before 80 plies without a man move or capture.
    board = Board(FIRST_POSITION)
    plies = 0
    while board.outcome(claim_draw=True) is None:  # a repetition would end it: a failure
        board.push(tables.best_moves(board.position())[0])
        plies += 1
        assert board.halfmove_clock < 80
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None and outcome.winner == Color.WHITE
    assert plies > 9  # at least the DTC of the start: it had to convert first


def test_dtc_falls_by_one_along_best_play(tables: Tables) -> None:
    position = Position.from_fen("B:W22,K5:BK15,K6")
    dtc = tables.dtc(position)
    assert dtc > 1
    board = Board(position.fen())
    board.push(tables.best_moves(position)[0])
    assert tables.dtc(board.position()) == dtc - 1


def test_compiled_probe_agrees_with_the_api(tables: Tables) -> None:
    offsets, packed = tables.arrays()
    rng = np.random.default_rng(7)
    material = Material(1, 1, 0, 2)
    for index in rng.integers(0, material.size, 300).tolist():
        black, white, kings = unrank_position(index, *material)
        for turn in (0, 1):
            expected = int(tables.value(Position(black, white, kings, turn)))
            assert egtb_value(black, white, kings, turn, offsets, packed) == expected


def test_positions_beyond_the_tables_raise(tables: Tables) -> None:
    position = Position.from_fen("B:W21,22,23:BK1,K2")
    assert not tables.covers(position)
    assert egtb_value(position.black, position.white, position.kings, 0,
                      *tables.arrays()) == -2
    with pytest.raises(TableError, match="no table"):
        tables.value(position)


def test_cli_probe_prints_value_and_best_moves(table_dir: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["egtb", "probe", "B:W22,K5:BK15,K6", "--dir", str(table_dir)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("win for Black to move")
    assert out.splitlines()[1] == "best: 15-10"
    assert main(["egtb", "probe", FIRST_POSITION, "--dir", str(table_dir), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "fen": "W:WK15,20:B12,K28", "value": "win", "dtc": 9, "dtz": None,
        "best_moves": ["15-19"]}


def test_cli_probe_without_tables_fails_cleanly(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    # Tables that are not there: an environment that cannot do the work (2).
    assert main(["egtb", "probe", "B:W21,22,23:BK1,K2", "--dir", str(tmp_path)]) == 2
    assert f"egtb build --pieces 5 --dir {tmp_path}" in capsys.readouterr().err


def test_a_damaged_table_is_named_with_the_command_that_rebuilds_it(
        table_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path in table_dir.glob("*.dcdb"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    damaged = tmp_path / f"{Material(1, 0, 2, 0).name}.dcdb"  # a 3-piece slice
    blob = bytearray(damaged.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    damaged.write_bytes(bytes(blob))
    # Two pieces never read the 3-piece file.
    assert main(["egtb", "probe", "B:WK32:BK1", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["egtb", "probe", "B:W21,22:B1", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(damaged) in err and "damaged" in err
    command = err.split("rebuild it with '")[1].split("'")[0]
    assert command == f"doublecorner egtb build --pieces 3 --dir {tmp_path}"
    # The command named does repair it, and verify then agrees.
    assert main(command.split()[1:]) == 0
    assert main(["egtb", "probe", "B:W21,22:B1", "--dir", str(tmp_path)]) == 0
    assert main(["egtb", "verify", "--pieces", "3", "--dir", str(tmp_path)]) == 0


def test_verify_says_missing_tables_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["egtb", "build", "--pieces", "2", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["egtb", "verify", "--pieces", "3", "--dir", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "12 of 16 slices of up to 3 pieces are missing" in captured.err
    assert f"'doublecorner egtb build --pieces 3 --dir {tmp_path}'" in captured.err
    assert "verify:" not in captured.err  # no progress: nothing was checked


def test_cli_build_and_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["egtb", "build", "--pieces", "2", "--dir", str(tmp_path)]) == 0
    assert "4 slices built" in capsys.readouterr().out
    assert main(["egtb", "verify", "--pieces", "2", "--dir", str(tmp_path)]) == 0
    assert "3,488 positions consistent" in capsys.readouterr().out
    assert main(["egtb", "build", "--pieces", "9"]) == 2


def test_tables_loaded_without_their_dtc_read_it_when_asked(table_dir: Path, tables: Tables,
                                                            tmp_path: Path) -> None:
    lazy = load_tables(table_dir, max_pieces=4, lazy_dtc=True)
    position = Position.from_fen("B:W22,K5:BK15,K6")
    material = Material.of(position.black, position.white, position.kings)
    assert lazy.has(material) and material not in lazy._dtc  # values only, so far
    assert lazy.probe(position) == tables.probe(position)
    assert np.array_equal(lazy.dtc_array(material), tables.dtc_array(material))
    # A file gone after loading: the values still answer, its DTC cannot be read.
    for path in table_dir.glob("*.dcdb"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    moved = load_tables(tmp_path, max_pieces=4, lazy_dtc=True)
    (tmp_path / f"{material.name}.dcdb").unlink()
    assert moved.value(position) == Value.WIN
    with pytest.raises(TableError, match=f"no table for material {material.name}"):
        moved.dtc(position)
