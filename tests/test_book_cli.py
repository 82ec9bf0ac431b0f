"""``doublecorner book build|show`` and ``--book`` on the engine's commands, through main(argv)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from doublecorner import Board
from doublecorner.book import Book
from doublecorner.cli import main
from doublecorner.db import default_db_path
from doublecorner.errors import quoted
from tests.test_book import GAMES


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("book-cli")
    (folder / "games.pdn").write_text(GAMES, encoding="utf-8")
    path = folder / "games.sqlite3"
    assert main(["db", "import", str(folder / "games.pdn"), "--db", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def book(db: Path) -> Path:
    path = db.with_name("games.book")
    assert main(["book", "build", "--db", str(db), "--out", str(path), "--min-games", "1"]) == 0
    return path


def test_build_writes_the_book_and_says_what_is_in_it(db: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "two.book"
    status, out, err = run(capsys, "book", "build", "--db", str(db), "--out", str(out_path),
                           "--min-games", "2", "--max-plies", "8")
    assert status == 0
    assert out == (f"{out_path}: 5 moves in 5 positions from 5 games "
                   "(at least 2 a move, up to 8 plies)\n")
    assert "book build" in err  # the progress line
    assert len(Book.open(out_path)) == 5


def test_build_refuses_bad_input_in_one_line(db: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        (["--db", str(tmp_path / "none.sqlite3"), "--out", str(tmp_path / "x.book")],
         "no game database at"),
        (["--db", str(db), "--out", str(tmp_path)], "is a folder, not a book file"),
        (["--db", str(db), "--out", str(tmp_path / "no" / "x.book")], "does not exist"),
        (["--db", str(db), "--out", str(tmp_path / "x.book"), "--min-games", "0"],
         "at least 1"),
    ]
    for argv, message in cases:
        status, out, err = run(capsys, "book", "build", *argv)
        assert (status, out) == (2, ""), argv
        assert message in err and err.count("\n") == 1, err


def test_build_reads_the_default_game_database_as_db_import_writes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``book build`` without ``--db``: the database ``db import`` fills by default."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    out_path = tmp_path / "default.book"
    status, _, err = run(capsys, "book", "build", "--out", str(out_path))
    assert status == 2
    # quoted(): the message cuts a path past 100 characters, as xdist's tmp_path can be.
    assert err == (f"doublecorner: error: no game database at {quoted(str(default_db_path()))} "
                   "(import games with 'doublecorner db import FILE...')\n")
    (tmp_path / "games.pdn").write_text(GAMES, encoding="utf-8")
    assert run(capsys, "db", "import", str(tmp_path / "games.pdn"))[0] == 0
    status, out, _ = run(capsys, "book", "build", "--out", str(out_path), "--min-games", "2",
                         "--max-plies", "8")
    assert status == 0
    assert out.startswith(f"{out_path}: 5 moves in 5 positions from 5 games")
    assert "default: " in run(capsys, "book", "build", "--help")[1]


def test_show_prints_a_position_s_moves(book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "book", "show", str(book), "--moves", "11-15")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("W:W21,22,") and "  2 book moves (the book: 13 moves in 10 " \
        "positions)" in lines[0]
    assert lines[2].split() == ["23-19", "2", "100.0%", "2", "1", "0", "1", "-"]
    assert lines[3].split() == ["22-18", "0", "0.0%", "1", "0", "0", "1", "-"]

    status, out, _ = run(capsys, "book", "show", str(book), "--json")
    found = json.loads(out)
    assert found["fen"] == Board().fen()
    assert found["moves"][0] == {"move": "11-15", "weight": 4, "share": 0.8, "games": 3,
                                 "wins": 2, "draws": 0, "losses": 1, "score": None}


def test_show_takes_the_moves_as_separate_arguments(
        book: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--moves 11-15 23-19`` as on every command, or one quoted string (issue 27)."""
    after = Board()
    after.push_str("11-15")
    after.push_str("23-19")
    for moves in (["11-15", "23-19"], ["11-15 23-19"]):
        status, out, err = run(capsys, "book", "show", str(book), "--json", "--moves", *moves)
        assert (status, err) == (0, ""), moves
        assert json.loads(out)["fen"] == after.fen()


def test_show_of_a_missing_or_damaged_book_is_one_line(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "book", "show", str(tmp_path / "none.book"))
    assert status == 2 and "no opening book at" in err
    damaged = tmp_path / "damaged.book"
    damaged.write_bytes(b"DCBOOK\x1a\n" + bytes(10))
    status, _, err = run(capsys, "book", "show", str(damaged))
    assert status == 2
    assert err == (f"doublecorner: error: {str(damaged)!r} is cut short: 18 bytes, "
                   "not even a whole header\n")
