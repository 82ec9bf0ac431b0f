"""``analyse`` and ``bestmove`` through main(argv)."""

from __future__ import annotations

import json

import pytest

from doublecorner import Board
from doublecorner.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_analyse_prints_one_line_per_depth_then_the_move(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "analyse", "--depth", "5")
    assert status == 0
    lines = out.splitlines()
    assert [line.split()[:2] for line in lines[:5]] == [["depth", str(d)] for d in range(1, 6)]
    for line in lines[:5]:
        fields = line.split()
        assert fields[2:9:2] == ["seldepth", "score", "nodes", "nps"]
        board = Board()
        for move in line.partition(" pv ")[2].split():
            board.push_str(move)  # the principal variation is legal
    assert lines[5].startswith("bestmove ")
    assert Board().parse_move(lines[5].split()[1]) in Board().legal_moves


def test_analyse_json_is_one_object_per_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "analyse", "W:W18:B14", "--depth", "3", "--json")
    assert status == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert [record["depth"] for record in records[:3]] == [1, 2, 3]
    assert records[-1]["bestmove"] == "18x9"
    assert records[-1]["score"] == {"win": 1}


def test_analyse_plays_the_given_moves_first(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "bestmove", "--moves", "11-15 22-18 15x22", "--depth", "4")
    assert status == 0
    assert out.strip() in {"25x18", "26x17"}  # White must recapture


def test_moves_are_separate_arguments_or_one_string_after_the_fen(
        capsys: pytest.CaptureFixture[str]) -> None:
    """One ``--moves`` convention for every command (issue 27): ``--moves 11-15 23-19``."""
    for argv in (["analyse", "--moves", "11-15", "22-18", "15x22", "--depth", "4"],
                 ["analyse", Board().fen(), "--depth", "4", "--moves", "11-15", "22-18 15x22"],
                 ["bestmove", "--moves", "11-15", "22-18", "15x22", "--depth", "4"]):
        status, out, err = run(capsys, *argv)
        assert (status, err) == (0, ""), argv
        assert out.splitlines()[-1].split()[-1] in {"25x18", "26x17"}  # White recaptures


def test_a_fen_after_moves_is_told_to_go_first(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "analyse", "--moves", "11-15", "W:W18:B14")
    assert (status, out) == (2, "")
    assert err == ("doublecorner: error: --moves, move 2: 'W:W18:B14' is a FEN, not a move: "
                   "put the FEN before --moves\n")


def test_bestmove_prints_only_a_legal_move(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "bestmove", "--time", "0.05")
    assert status == 0
    assert Board().parse_move(out.strip()) in Board().legal_moves


def test_bestmove_in_a_lost_position_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "bestmove", "B:W18:B", "--depth", "2")
    assert status == 1 and out == ""
    assert "no legal move" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["analyse", "--depth", "0"], "expected 1 to 100 plies, not 0"),
    (["analyse", "--time", "soon"], "number of seconds"),
    (["analyse", "--depth", "3", "--time", "1"], "not allowed with"),
    (["bestmove", "--moves", "11-15 11-16"], "--moves, move 2: illegal move '11-16'"),
    (["bestmove", "B:W1:B"], "invalid FEN"),
])
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                          message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1
