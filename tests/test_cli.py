"""The command line, through main(argv) as a user would call it."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from doublecorner import Board
from doublecorner.cli import main
from doublecorner.perft import board_perft


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_show_prints_board_with_coordinates_and_side_to_move(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "show", "W:WK15,20:BK28,12")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == list("abcdefgh")
    assert "White to move" in out and "W:WK15,20:B12,K28" in out
    assert lines[4].split() == ["5", ".", ".", "W", ".", "5"]  # 13 14 15(K) 16


def test_show_numbers_puts_the_key_beside_the_board(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "show", "--numbers")
    assert status == 0
    assert out.splitlines()[8].split()[-5:] == ["29", "30", "31", "32", "1"]


def test_moves_prints_sorted_full_paths(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "moves", "W:WK25:B6,7,14,15,22")
    assert status == 0
    assert out.split() == ["25x18x9x2x11x18", "25x18x11x2x9x18"]


def test_moves_from_stdin_prints_one_line_per_fen(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("B:W21-32:B1-12\nB:W18:B\nW:W14:B9,10\n"))
    status, out, _ = run(capsys, "moves", "-")
    assert status == 0
    assert out.split("\n") == [
        "9-13 9-14 10-14 10-15 11-15 11-16 12-16", "", "14x5 14x7", ""]


def test_moves_from_stdin_names_the_bad_line(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("B:W21-32:B1-12\nnonsense\n"))
    status, _, err = run(capsys, "moves", "-")
    assert status == 2
    assert "stdin line 2" in err and "nonsense" in err


def test_perft_prints_count_and_reports_speed_on_stderr(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "perft", "6")
    assert (status, out) == (0, "36768\n")
    assert "leaves/s" in err


def test_perft_divide_lists_root_moves_first(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "perft", "3", "--divide", "--fen", "B:W21-32:B1-12")
    lines = out.splitlines()
    assert status == 0 and lines[-1] == "302"
    assert [line.split()[0] for line in lines[:-1]] == [
        "9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    for line in lines[:-1]:
        move, count = line.split()
        board = Board()
        board.push_str(move)
        assert int(count) == board_perft(board, 2), move


@pytest.mark.parametrize("argv,message", [
    (["perft", "x"], "expected a whole number"),
    (["perft", "-3"], "depth must be 0 to 27"),
    (["moves", "Z:W1"], "side to move is missing"),
    (["show", "B:W1:B1"], "both sides"),
    (["frobnicate"], "invalid choice"),
    ([], "required"),
])
def test_bad_input_exits_2_with_one_line_and_no_traceback(
        capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_console_script_runs_as_a_module() -> None:
    completed = subprocess.run([sys.executable, "-m", "doublecorner", "moves"],
                               capture_output=True, text=True, check=True, timeout=300)
    assert completed.stdout.split()[0] == "9-13"


def test_deep_perft_reports_progress_per_root_move(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("doublecorner.cli.rules.PROGRESS_FROM_DEPTH", 4)
    status, out, err = run(capsys, "perft", "5")
    assert (status, out) == (0, "7361\n")
    assert "perft: 1/7 root moves counted" in err and "perft: 7/7 root moves counted" in err


def test_help_returns_0_and_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--help")
    assert status == 0
    assert all(command in out for command in ("show", "moves", "perft"))


@pytest.mark.parametrize(("argv", "number"), [
    (["match", "random", "random", "--concurrency", "1" + "0" * 30],
     "100000000000... (31 digits)"),
    (["db", "search", "--limit", str(2**63)], str(2**63)),
    (["train", "selfplay", "--out", "x", "--games", "9" * 25], "999999999999... (25 digits)"),
])
def test_a_whole_number_too_large_says_so_and_the_most_it_may_be(
        capsys: pytest.CaptureFixture[str], argv: list[str], number: str) -> None:
    """Not "expected a whole number of at least 1" for a number far above 1 (issue 27)."""
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.endswith(f": {number} is too large: at most 9,223,372,036,854,775,807\n"), err
