"""Hostile command lines and streams: each is one line on stderr and the documented status."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from doublecorner.cli import main

HUGE = "99999999999999999999999"
PDN = "[Black \"a\"]\n[White \"b\"]\n1. 11-15 23-19 2. 8-11 22-17 *\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line(err: str, *words: str) -> None:
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, err


@pytest.mark.parametrize(("argv", "message"), [
    (["perft", HUGE], "depth must be 0 to 27"),
    (["perft", "1000"], "depth must be 0 to 27"),
    (["perft", "\u00b2"], "expected a whole number"),
    (["perft", "\u0662"], "expected a whole number"),
    (["analyse", "--nodes", "99999999999999999999"], "nodes"),
    (["bestmove", "--nodes", "99999999999999999999"], "nodes"),
    (["bestmove", "--nodes", "9223372036854775807"], "nodes"),
    (["bestmove", "--depth", "\u00b2"], "expected a whole number"),
    (["bestmove", "--depth", "1_0"], "expected a whole number"),
    (["bestmove", "--depth", "9" * 5000], "plies"),
    (["bestmove", "--time", "\u0661"], "expected a number of seconds"),
    (["analyse", "--hash", "65537"], "1 to 65536 MB"),
    (["play", "--hash", HUGE], "1 to 65536 MB"),
])
def test_numbers_out_of_range_or_not_ascii_exit_2(capsys: pytest.CaptureFixture[str],
                                                  argv: list[str], message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert_one_line(err, message)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--version")
    assert status == 0
    assert out.startswith("doublecorner ")


@pytest.mark.parametrize("command", ["analyse", "bestmove", "play"])
def test_a_hash_larger_than_the_memory_is_one_line_before_any_allocation(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        command: str) -> None:
    monkeypatch.setattr("doublecorner.cli.memory.available_memory_mb", lambda: 1000)
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    limit = [] if command == "play" else ["--depth", "1"]
    status, out, err = run(capsys, command, "--hash", "65536", *limit)
    assert (status, out) == (2, "")
    assert_one_line(err, "--hash 65536 needs 65536 MB, and 1000 MB are available")


@pytest.mark.parametrize("argv", [
    ["bestmove", "B:W18:B14", "--egtb", "{file}"],
    ["analyse", "B:W18:B14", "--egtb", "{file}", "--depth", "1"],
    ["egtb", "probe", "B:W18:B14", "--dir", "{file}"],
    ["egtb", "verify", "--pieces", "2", "--dir", "{file}"],
])
def test_a_table_folder_that_is_a_file_is_one_line(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    argv: list[str]) -> None:
    file = tmp_path / "tables"
    file.write_text("not a folder")
    status, out, err = run(capsys, *[word.format(file=file) for word in argv])
    assert (status, out) == (2, "")
    assert_one_line(err, "is a file, not a folder")


def test_a_table_folder_under_a_missing_folder_is_not_created(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no" / "tables"
    status, _, err = run(capsys, "egtb", "probe", "B:W18:B14", "--dir", str(missing))
    assert status == 2
    assert_one_line(err, "does not exist")
    assert not (tmp_path / "no").exists()


def test_moves_with_stdin_closed(monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    status, _, err = run(capsys, "moves", "-")
    assert status == 2
    assert_one_line(err, "stdin is closed")


@pytest.mark.parametrize(("data", "message"), [
    (b"B:W18:B14\n\xff\xfe\n", "stdin line 2 is not UTF-8"),
    (b"\0" * (2 << 20), "stdin line 1 is longer than"),
])
def test_moves_reads_bytes_and_bounds_its_lines(data: bytes, message: str) -> None:
    completed = subprocess.run([sys.executable, "-m", "doublecorner", "moves", "-"],
                               input=data, capture_output=True, timeout=300, check=False,
                               env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"})
    assert completed.returncode == 2
    assert_one_line(completed.stderr.decode(), message)


def test_moves_answers_a_blank_line_with_a_blank_line_and_goes_on(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("W:W18:B14\n\n  \nB:W18:B14\n"))
    status, out, err = run(capsys, "moves", "-")
    assert (status, err) == (0, "")
    assert out == "18x9\n\n\n14x23\n"


def test_messages_do_not_show_the_line_break(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("nonsense\n"))
    _, _, err = run(capsys, "moves", "-")
    assert "\\n" not in err


@pytest.mark.parametrize("argv", [["moves"], ["perft", "3", "--divide"], ["show"]])
def test_a_closed_pipe_ends_quietly(argv: list[str]) -> None:
    process = subprocess.Popen([sys.executable, "-m", "doublecorner", *argv],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()  # the reader is gone before the first line, as with | head -c0
    _, err = process.communicate(timeout=300)
    assert process.returncode == 1
    assert err.decode() == ""


def test_show_svg_to_a_file_prints_nothing_else(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "show", "--svg", str(tmp_path / "a.svg"))
    assert (status, out) == (0, "")
    assert (tmp_path / "a.svg").read_text().startswith("<svg")


@pytest.mark.parametrize("argv", [
    ["show", "--svg", "{missing}/a.svg"],
    ["show", "--svg", "{folder}"],
    ["analyse", "{games}", "-o", "{missing}/x.pdn", "--depth", "1"],
    ["analyse", "{games}", "-o", "{folder}", "--depth", "1"],
    ["analyse", "{games}", "--plot", "{missing}/y.svg", "--depth", "1"],
    ["pdn", "convert", "{games}", "{missing}/z.pdn"],
])
def test_output_paths_are_checked_before_the_work(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  argv: list[str]) -> None:
    games = tmp_path / "games.pdn"
    games.write_text(PDN)
    names = {"missing": tmp_path / "missing", "folder": tmp_path, "games": games}
    status, out, err = run(capsys, *[word.format(**names) for word in argv])
    assert (status, out) == (2, "")
    assert_one_line(err)
    assert "analysed" not in err  # nothing was analysed first


def test_a_draw_is_probed_without_a_distance(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "egtb", "probe", "B:WK32:BK1", "--dir", str(tmp_path / "t"))
    assert status == 0
    assert out.splitlines()[0] == "draw for Black to move"


def test_progress_into_a_file_is_plain_lines(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from doublecorner.cli.common import ProgressBar

    bar = ProgressBar("egtb 2 pieces")  # capsys's stderr is no terminal
    bar(1, 4, "KvK")
    bar(4, 4, "KvK")
    bar.close()
    err = capsys.readouterr().err
    assert "\r" not in err
    assert err.splitlines()[-1].startswith("egtb 2 pieces: 100.0%")
