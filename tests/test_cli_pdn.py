"""``doublecorner pdn check|stats|convert``, through main(argv) as a user would call it."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from doublecorner.cli import main
from doublecorner.pdn import iter_games

DATA = Path(__file__).with_name("data") / "pdn"
QUIRKS, BROKEN = str(DATA / "quirks.pdn"), str(DATA / "broken.pdn")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_check_passes_good_files(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "pdn", "check", QUIRKS, str(DATA / "latin1.pdn"),
                         str(DATA / "bom.pdn"))
    assert status == 0
    assert out == "3 files, 9 games: 9 good, 0 with faults\n"


def test_check_names_file_line_and_game_of_each_fault(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "pdn", "check", QUIRKS, BROKEN)
    assert status == 1
    lines = out.splitlines()
    assert [line.split(": ", 2)[:2] for line in lines[:-1]] == [
        [f"{BROKEN}:9", "game 2"], [f"{BROKEN}:12", "game 3"], [f"{BROKEN}:19", "game 4"],
        [f"{BROKEN}:23", "game 5"], [f"{BROKEN}:23", "game 5"], [f"{BROKEN}:26", "game 6"]]
    assert lines[0].endswith("column 24: illegal move '24-19' in "
                             "W:W19,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,9,10,11,12,15; "
                             "legal moves: 19-16 21-17 22-17 22-18 24-20 26-23 27-23")
    assert lines[-1] == "2 files, 14 games: 9 good, 5 with faults"


def test_check_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "pdn", "check", "--json", BROKEN)
    assert status == 1
    report = json.loads(out)
    assert (report["files"], report["games"], report["failed"]) == (1, 7, 5)
    assert report["faults"][0] == {
        "file": BROKEN, "line": 9, "column": 24, "game": 2,
        "problem": report["faults"][0]["problem"]}
    assert report["faults"][0]["problem"].startswith("illegal move '24-19'")


def test_check_reads_stdin(monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"1. 11-15 23-19 *\n1. 11-15 11-16 *\n"))
    monkeypatch.setattr(sys, "stdin", stdin)
    status, out, _ = run(capsys, "pdn", "check", "-")
    assert status == 1
    assert out.splitlines()[0].startswith("-:2: game 2: column 10: illegal move '11-16'")


def test_check_a_missing_file_is_bad_usage(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    status, out, err = run(capsys, "pdn", "check", str(tmp_path / "none.pdn"))
    assert status == 2 and out == ""
    assert "cannot read" in err and "none.pdn" in err


@pytest.mark.parametrize("argv", [["pdn"], ["pdn", "frobnicate"], ["pdn", "check"],
                                  ["pdn", "stats", QUIRKS, "--top", "0"]])
def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status, _, err = run(capsys, *argv)
    assert status == 2 and err.startswith("doublecorner: error:")


def test_stats_counts_games_results_openings_and_lengths(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "pdn", "stats", QUIRKS)
    assert status == 0
    assert out.splitlines() == [
        "games     7 (0 with faults)",
        "results   1-0 (Black won) 2, 0-1 (White won) 1, 1/2-1/2 (drawn) 1, * (unknown) 3",
        "plies     min 1, median 2, mean 3.6, max 8",
        "openings  1 ballot of the three-move deck seen, 0 other openings, 3 from set-up "
        "positions",
        "  ballot 113  11-15 23-19 8-11   2 games",
    ]


def test_stats_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "pdn", "stats", "--json", BROKEN)
    assert status == 0
    report = json.loads(out)
    assert report["games"] == 7 and report["with_faults"] == 5
    assert report["results"] == {"1-0": 1, "*": 4, "0-1": 1, "2-0": 1}
    assert report["openings"] == [{"ballot": 113, "moves": "11-15 23-19 8-11", "games": 2}]
    assert (report["set_up"], report["other_openings"]) == (2, 0)
    assert report["lengths"] == {"min": 0, "median": 2, "mean": 1.6, "max": 4}


def test_stats_top_limits_the_openings_listed(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    path = tmp_path / "games.pdn"
    path.write_text("1. 9-13 21-17 5-9 *\n" * 3 + "1. 9-13 21-17 6-9 *\n" +
                    "1. 9-14 22-18 6-9 *\n")  # not a ballot of the deck
    status, out, _ = run(capsys, "pdn", "stats", str(path), "--top", "1")
    assert status == 0
    assert out.splitlines()[3:] == [
        "openings  2 ballots of the three-move deck seen, 1 other opening, 0 from set-up "
        "positions",
        "  ballot   1  9-13 21-17 5-9     3 games"]


def test_convert_normalises_and_reads_back(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    target = tmp_path / "out.pdn"
    status, out, err = run(capsys, "pdn", "convert", QUIRKS, str(target))
    assert status == 0 and out == ""
    assert err == "7 games written, 0 with faults\n"
    before, after = list(iter_games(QUIRKS)), list(iter_games(target, strict=True))
    assert [game.mainline_moves() for game in after] == [game.mainline_moves()
                                                         for game in before]
    text = target.read_text(encoding="utf-8")
    assert text.count('[GameType "21"]') == 7 and "Müller" in text
    assert max(len(line) for line in text.splitlines()) <= 79
    assert run(capsys, "pdn", "convert", str(target), "-")[1] == text  # a fixed point


def test_convert_keeps_what_faulty_games_hold(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    target = tmp_path / "out.pdn"
    status, _, err = run(capsys, "pdn", "convert", BROKEN, str(target))
    assert status == 1
    assert f"{BROKEN}:9: game 2: column 24: illegal move" in err
    assert "game 3: not written: invalid FEN" in err
    assert err.endswith("6 games written, 5 with faults\n")
    assert len(list(iter_games(target))) == 6


def test_convert_refuses_to_overwrite_its_input(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    path = tmp_path / "games.pdn"
    path.write_text("1. 11-15 *\n")
    status, _, err = run(capsys, "pdn", "convert", str(path), str(path))
    assert status == 2 and "same file" in err
    assert path.read_text() == "1. 11-15 *\n"


# -- files that are no PDN, and faulty games cut where they fail (issue 15) ------------------


@pytest.mark.parametrize("argv", [["pdn", "check", "{file}"], ["pdn", "stats", "{file}"],
                                  ["pdn", "convert", "{file}", "-"],
                                  ["analyse", "{file}", "--depth", "1"]])
def test_a_binary_file_is_not_a_pdn_file(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                         argv: list[str]) -> None:
    binary = tmp_path / "program"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 40 + b"\n1. 11-15 *\n")
    status, out, err = run(capsys, *[word.format(file=binary) for word in argv])
    assert (status, out) == (2, "")
    assert "not a PDN file" in err and len(err.strip().splitlines()) == 1


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_an_endless_line_is_not_a_pdn_file(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "pdn", "check", "/dev/zero")
    assert status == 2
    assert "not a PDN file" in err


def test_a_utf16_file_is_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    games = tmp_path / "utf16.pdn"
    games.write_text('[Black "M\u00fcller"]\n1. 11-15 23-19 1-0\n', encoding="utf-16")
    status, out, _ = run(capsys, "pdn", "check", str(games))
    assert status == 0
    assert "1 game: 1 good" in out


def test_convert_marks_where_it_cut_a_faulty_game(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    source = tmp_path / "faulty.pdn"
    source.write_text("1. 11-15 23-19 2. 8-11 11-16 3. 9-14 *\n", encoding="utf-8")
    status, out, err = run(capsys, "pdn", "convert", str(source), "-")
    assert status == 1
    game = next(iter_games(io.StringIO(out)))
    assert [str(move) for move in game.mainline_moves()] == ["11-15", "23-19", "8-11"]
    assert "the game is cut here, at line 1" in game.end().comment
    assert "illegal move '11-16'" in game.end().comment
    assert "game 1: written up to its first fault (3 plies of the main line kept" in err


def test_check_into_a_closed_pipe_ends_quietly() -> None:
    import subprocess

    process = subprocess.Popen([sys.executable, "-m", "doublecorner", "pdn", "check",
                                str(DATA / "quirks.pdn")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()
    _, err = process.communicate(timeout=300)
    assert (process.returncode, err) == (1, b"")


def test_check_notes_a_draw_nobody_claimed_and_passes(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    # The start position occurs a third time after Black's 6-1 at move 5, and White plays
    # on (as some of Tinsley's published games do).
    path = tmp_path / "repeated.pdn"
    path.write_text('[FEN "W:WK32:BK1"]\n[Result "1/2-1/2"]\n'
                    "1... 32-27 2. 1-6 27-32 3. 6-1 32-27 4. 1-6 27-32 5. 6-1 32-27 1/2-1/2\n"
                    "\n1. 11-15 *\n", encoding="utf-8")
    status, out, _ = run(capsys, "pdn", "check", str(path))
    assert status == 0
    assert out.splitlines() == [
        f"{path}: game 1: note: threefold repetition at move 5 was not claimed; the game goes on",
        "1 file, 2 games: 2 good, 0 with faults"]
    status, out, _ = run(capsys, "pdn", "check", "--json", str(path))
    assert status == 0
    report = json.loads(out)
    assert (report["failed"], report["faults"]) == (0, [])
    assert report["notes"] == [{"file": str(path), "game": 1, "note": (
        "threefold repetition at move 5 was not claimed; the game goes on")}]
