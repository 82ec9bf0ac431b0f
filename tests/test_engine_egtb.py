"""The engine with endgame tables: answered at the root, probed inside the tree, said so."""

from __future__ import annotations

from pathlib import Path

import pytest

from doublecorner import Board, Position
from doublecorner.cli import main
from doublecorner.egtb import Tables, build, load_tables
from doublecorner.engine import Engine, Limit

TWO_KINGS_AGAINST_ONE = "W:WK1:BK10,K14"  # White to move, lost
CAPTURE_INTO_THREE = "B:WK18,K30:BK14,K1"  # Black must jump 14x23, leaving three pieces


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("egtb3")
    build(3, directory)
    return directory


@pytest.fixture(scope="module")
def tables(table_dir: Path) -> Tables:
    return load_tables(table_dir, max_pieces=3)


def test_a_position_in_the_tables_is_answered_from_them(tables: Tables) -> None:
    result = Engine(hash_mb=1, tables=tables).search(Position.from_fen(TWO_KINGS_AGAINST_ONE),
                                                     Limit(depth=6))
    assert result.score.is_loss and result.score.is_table_result
    assert str(result.score) == "table loss" and result.table_hits == 1
    assert result.move in Board(TWO_KINGS_AGAINST_ONE).legal_moves


def test_the_search_scores_positions_it_reaches_from_the_tables(tables: Tables) -> None:
    position = Position.from_fen(CAPTURE_INTO_THREE)
    with_tables = Engine(hash_mb=1, tables=tables).search(position, Limit(depth=4))
    without = Engine(hash_mb=1).search(position, Limit(depth=4))
    assert with_tables.table_hits > 0 and without.table_hits == 0
    assert with_tables.score.is_table_result
    assert with_tables.move in Board(CAPTURE_INTO_THREE).legal_moves


def test_a_table_win_too_long_for_the_forty_move_count_is_searched(tables: Tables) -> None:
    position = Position.from_fen("B:WK1:BK10,K14")
    engine = Engine(hash_mb=1, tables=tables)
    assert engine.search(position, Limit(depth=4)).depth == 0  # from the tables
    late = engine.search(position, Limit(depth=4), halfmove_clock=79)
    assert late.depth == 4 and not late.score.is_win  # one ply left: no win in reach


def test_analyse_says_when_it_used_the_tables(table_dir: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", TWO_KINGS_AGAINST_ONE, "--depth", "3", "--egtb",
                 str(table_dir)]) == 0
    out = capsys.readouterr().out
    assert "score table loss" in out and "tbhits 1" in out
