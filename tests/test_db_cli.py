"""``doublecorner db import|explore|search|show``, through main(argv) as a user would call it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from doublecorner.cli import main

GAMES = """[Event "Club"]
[Date "2026.11.30"]
[Black "Ann"]
[White "Bob"]
1. 11-15 23-19 2. 9-14 22-17 1-0

[Event "Club"]
[Date "2025.01.02"]
[Black "Cy"]
[White "Ann"]
1. 9-14 22-17 2. 11-15 23-19 3. 8-11 1/2-1/2

[Event "Open"]
[Black "Dee"]
[White "Eve"]
1. 11-15 23-19 2. 9-14 27-23 3. 5-9 0-1

[Black "Broken"]
1. 11-15 23-19 2. 9-14 22-17 3. 11-16 1-0
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture()
def games(tmp_path: Path) -> Path:
    path = tmp_path / "games.pdn"
    path.write_text(GAMES, encoding="utf-8")
    return path


@pytest.fixture()
def db(tmp_path: Path, games: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = str(tmp_path / "games.sqlite3")
    assert main(["db", "import", str(games), "--db", path]) == 1  # the broken game
    capsys.readouterr()
    return path


def test_import_prints_a_summary_and_the_faults(tmp_path: Path, games: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "new.sqlite3")
    status, out, err = run(capsys, "db", "import", str(games), "--db", path)
    assert status == 1
    assert out == "4 games imported (1 up to a fault), 0 duplicates, 0 skipped\n"
    faults = [line for line in err.splitlines() if line.startswith(str(games))]
    assert len(faults) == 1
    assert faults[0].startswith(f"{games}: game 4: line 19, column 33: illegal move '11-16'")
    assert "db import" in err  # the progress line

    status, out, _ = run(capsys, "db", "import", str(games), "--db", path)
    assert (status, out) == (0, "0 games imported (0 up to a fault), 0 duplicates, 0 skipped; "
                                "1 file imported before\n")


def test_an_interrupted_import_says_how_to_go_on(tmp_path: Path, games: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    class Interrupting:
        def __init__(self, what: str) -> None:
            pass

        def __call__(self, done: int, total: int, name: str) -> None:
            raise KeyboardInterrupt

        def close(self) -> None:
            pass

    path = str(tmp_path / "d.db")
    monkeypatch.setattr("doublecorner.cli.db.ProgressBar", Interrupting)
    monkeypatch.setattr("doublecorner.db.importer.BATCH_GAMES", 1)
    monkeypatch.setattr("doublecorner.db.importer.PROGRESS_EVERY_GAMES", 2)
    status, out, err = run(capsys, "db", "import", str(games), "--db", path)
    assert (status, out) == (1, "")
    assert err.splitlines() == [
        "db import: stopped; the games written so far are kept, and the same command goes "
        "on from there", "doublecorner: interrupted"]
    monkeypatch.undo()
    status, out, _ = run(capsys, "db", "import", str(games), "--db", path)
    assert (status, out) == (1, "2 games imported (1 up to a fault), 0 duplicates, 0 skipped\n")


def test_import_of_a_clean_file_exits_0_and_counts_duplicates(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "twice.pdn"
    path.write_text("1. 11-15 23-19 1-0\n\n1. 11-15 23-19 1-0\n", encoding="utf-8")
    status, out, _ = run(capsys, "db", "import", str(path), "--db", str(tmp_path / "d.db"))
    assert (status, out) == (0, "1 game imported (0 up to a fault), 1 duplicate, 0 skipped\n")


def test_import_uses_the_user_data_folder_by_default(
        tmp_path: Path, games: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    if sys.platform != "linux":
        pytest.skip("the data folder is $XDG_DATA_HOME/doublecorner on Linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    run(capsys, "db", "import", str(games))
    assert (tmp_path / "data" / "doublecorner" / "games-db.sqlite3").is_file()
    status, out, _ = run(capsys, "db", "explore", "--json")
    assert (status, json.loads(out)["games"]) == (0, 4)


def test_explore_json_has_exactly_the_documented_shape(
        db: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "db", "explore", "--db", db, "--json",
                           "--moves", "11-15", "23-19", "9-14")
    assert (status, err) == (0, "")
    found = json.loads(out)
    assert found == {
        "fen": "W:W19,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,10,12,14,15",
        "games": 3,
        "moves": [
            {"move": "22-17", "games": 2, "black_wins": 2, "draws": 0, "white_wins": 0},
            {"move": "27-23", "games": 1, "black_wins": 0, "draws": 0, "white_wins": 1}],
        "top_games": [
            {"id": 1, "black": "Ann", "white": "Bob", "event": "Club", "date": "2026.11.30",
             "result": "1-0"},
            {"id": 4, "black": "Broken", "white": "?", "event": "?", "date": "?",
             "result": "1-0"},
            {"id": 3, "black": "Dee", "white": "Eve", "event": "Open", "date": "?",
             "result": "0-1"}]}


def test_explore_counts_transpositions(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Cy's game reaches the position by 9-14 22-17 11-15 23-19.
    status, out, _ = run(capsys, "db", "explore", "--db", db, "--json",
                         "--moves", "11-15 23-19 9-14 22-17")
    found = json.loads(out)
    assert (status, found["games"]) == (0, 3)
    assert found["moves"] == [
        {"move": "8-11", "games": 1, "black_wins": 0, "draws": 1, "white_wins": 0}]
    assert [game["black"] for game in found["top_games"]] == ["Ann", "Cy", "Broken"]


def test_explore_prints_a_table(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "db", "explore", "--db", db, "--top", "1")
    lines = out.splitlines()
    assert status == 0
    assert lines[0] == "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12  4 games"
    assert lines[1].split() == ["move", "games", "Black", "draws", "White", "score", "(Black)"]
    assert lines[2].split() == ["11-15", "3", "2", "0", "1", "66.7%"]
    assert lines[3].split() == ["9-14", "1", "0", "1", "0", "50.0%"]
    assert lines[4] == "newest games:"
    assert lines[5].split() == ["1", "2026.11.30", "Ann", "-", "Bob", "1-0", "Club"]
    assert len(lines) == 6


def test_explore_a_position_no_game_reached(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "db", "explore", "W:W18:B14", "--db", db, "--json")
    assert (status, json.loads(out)) == (0, {"fen": "W:W18:B14", "games": 0, "moves": [],
                                             "top_games": []})


def test_search_and_show(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "db", "search", "--db", db, "--player", "ann", "--json")
    assert status == 0
    assert [game["id"] for game in json.loads(out)] == [1, 2]
    status, out, err = run(capsys, "db", "search", "--db", db, "--event", "club",
                           "--from", "2026", "--result", "1-0")
    assert (status, out.split(), err) == (0, ["1", "2026.11.30", "Ann", "-", "Bob", "1-0",
                                              "Club"], "1 game\n")
    status, out, err = run(capsys, "db", "show", "2", "--db", db)
    assert (status, err) == (0, "")
    assert '[Black "Cy"]' in out and out.endswith("1. 9-14 22-17 2. 11-15 23-19 3. 8-11 1/2-1/2\n")
    status, out, err = run(capsys, "db", "show", "4", "--db", db)
    assert status == 0 and out.endswith("1. 11-15 23-19 2. 9-14 22-17 1-0\n")
    assert err.startswith("game 4 was imported up to a fault of its file: line 19, column 33")


@pytest.mark.parametrize(("argv", "message"), [
    (["explore", "not a fen"], "invalid FEN 'not a fen'"),
    (["explore", "--moves", "11-15", "11-16"], "--moves, move 2: "),
    (["explore", "--moves", "1x"], "--moves, move 1: "),
    (["explore", "--top", "0"], "argument --top"),
    (["search", "--from", "May 1990"], "not 'May 1990'"),
    (["search", "--to", "2025.??"], "not '2025.??'"),
    (["search", "--from", "2026.13"], "--from: '2026.13' is no date: the months are 01 to 12"),
    (["search", "--to", "2025.02.29"], "'2025.02.29' is no date: month 2 of 2025 has 28 days"),
    (["explore", "--moves", "11-15", "W:W21:B1"], "'W:W21:B1' is a FEN, not a move"),
    (["search", "--result", "2-0"], "argument --result"),
    (["show", "99"], "no game has the id 99"),
    (["show", "x"], "argument ID"),
])
def test_bad_input_is_one_line_and_exit_2(db: str, capsys: pytest.CaptureFixture[str],
                                          argv: list[str], message: str) -> None:
    status, out, err = run(capsys, "db", *argv, "--db", db)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("doublecorner: error: ")
    assert message in err


def test_a_missing_database_or_file_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "missing.sqlite3")
    for argv in (["explore"], ["search"], ["show", "1"]):
        status, out, err = run(capsys, "db", *argv, "--db", missing)
        assert (status, out) == (2, "")
        assert err == (f"doublecorner: error: no game database at '{missing}' "
                       "(import games with 'doublecorner db import FILE...')\n")
    assert not Path(missing).exists()  # looking does not create it
    status, out, err = run(capsys, "db", "import", str(tmp_path / "none.pdn"), "--db", missing)
    assert (status, out, err.count("\n")) == (2, "", 1)
    assert "none.pdn" in err and "does not exist" in err
    status, _, err = run(capsys, "db", "import", str(tmp_path), "--db", missing)
    assert (status, err.count("\n")) == (2, 1) and "is a folder" in err
    status, _, err = run(capsys, "db", "explore", "--db", str(tmp_path))
    assert (status, err.count("\n")) == (2, 1) and "is a folder" in err


def test_import_refuses_a_binary_file_and_a_foreign_database(
        tmp_path: Path, games: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "picture.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    status, out, err = run(capsys, "db", "import", str(binary), "--db", str(tmp_path / "d.db"))
    assert (status, out) == (2, "")
    assert err.splitlines()[-1].startswith(f"doublecorner: error: cannot import '{binary}': ")
    assert "not a PDN file" in err
    not_a_database = tmp_path / "notes.txt"
    not_a_database.write_text("some notes\n" * 200, encoding="utf-8")
    status, out, err = run(capsys, "db", "import", str(games), "--db", str(not_a_database))
    assert (status, out, err.count("\n")) == (2, "", 1)
    assert "notes.txt" in err
