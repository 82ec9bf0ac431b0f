"""Deepening a book with the engine (doublecorner.book.deepen) and ``doublecorner book deepen``."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from doublecorner import Board, Position
from doublecorner.book import Book
from doublecorner.book.deepen import DeepenProgress, deepen_book
from doublecorner.book.format import ENTRY, NO_SCORE
from doublecorner.book.move_code import move_code
from doublecorner.cli import main
from doublecorner.engine import Engine, Limit


def engine() -> Engine:
    return Engine(hash_mb=4, evaluation="linear")


def test_deepening_expands_from_the_roots_by_drop_out() -> None:
    steps: list[DeepenProgress] = []
    book = deepen_book(engine(), [Position.start()], positions=4, limit=Limit(depth=2),
                       margin=10, progress=steps.append)
    assert [step.expanded for step in steps] == [1, 2, 3, 4]
    assert steps[0].searches == 7  # the start's seven moves
    start = book.entries(Board())
    assert start and all(entry.score is not None and entry.weight > 0 for entry in start)
    best = max(entry.score for entry in start if entry.score is not None)
    for entry in start:
        assert entry.score is not None and best - entry.score <= 10
        assert entry.weight == 11 - (best - entry.score)
        assert entry.games == 0
    # The second expansion is a reply to a book move of Black's (cost 1, the least).
    expanded = {int(key) for key in book.array["key"]}
    assert len(expanded) == book.positions <= 4
    step = book.provenance["steps"][-1]
    assert (step["step"], step["positions_expanded"], step["limit"]) == ("deepen", 4,
                                                                         {"depth": 2})


def test_deepening_checks_the_moves_of_the_book_given() -> None:
    start = Board()
    moves = sorted(start.legal_moves, key=lambda move: move.path)
    rows = [(start.zobrist_key(), move_code(move), 5, NO_SCORE, 1, 2, 3) for move in moves]
    elsewhere = Board("B:W28:B1")  # never reached: kept as it was
    rows.append((elsewhere.zobrist_key(), move_code(elsewhere.parse_move("1-5")), 9, NO_SCORE,
                 4, 0, 0))
    given = Book(np.array(rows, ENTRY), {"steps": [{"step": "build"}]})
    book = deepen_book(engine(), [Position.start()], positions=1, limit=Limit(depth=3),
                       book=given, margin=0)
    entries = book.entries(start)
    assert len(entries) == len(moves)
    best = max(entry.score for entry in entries if entry.score is not None)
    for entry in entries:
        assert entry.score is not None
        assert entry.weight == (5 if entry.score == best else 0)  # refuted: weight 0
        assert (entry.wins, entry.draws, entry.losses) == (1, 2, 3)  # the record stays
    assert [(str(entry.move), entry.weight) for entry in book.entries(elsewhere)] == [("1-5", 9)]
    assert [step["step"] for step in book.provenance["steps"]] == ["build", "deepen"]


def test_a_stop_ends_deepening_with_what_was_expanded() -> None:
    stop = threading.Event()
    stop.set()
    book = deepen_book(engine(), [Position.start()], positions=50, limit=Limit(depth=2),
                       stop=stop)
    assert len(book) == 0 and book.provenance["steps"][-1]["positions_expanded"] == 0


def test_bad_deepening_options_are_refused() -> None:
    with pytest.raises(ValueError, match="needs roots"):
        deepen_book(engine(), [], positions=1, limit=Limit(depth=1))


def test_the_command_deepens_from_the_deck_and_writes_the_book(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "deck.book"
    status = main(["book", "deepen", "--out", str(out), "--positions", "3", "--depth", "2",
                   "--eval", "linear", "--hash", "4"])
    captured = capsys.readouterr()
    assert status == 0
    assert captured.out.startswith(f"{out}: ") and "3 positions expanded with " in captured.out
    assert "book deepen" in captured.err
    book = Book.open(out)
    # The first three openings of the deck are the first three roots expanded.
    from doublecorner.match.ballots import three_move_deck

    for ballot in three_move_deck()[:3]:
        assert book.entries(ballot.board()), str(ballot)
    again = tmp_path / "again.book"
    status = main(["book", "deepen", "--book", str(out), "--out", str(again), "--from", "start",
                   "--positions", "1", "--nodes", "500", "--eval", "linear", "--hash", "4"])
    capsys.readouterr()
    assert status == 0
    assert Book.open(again).entries(Board()) and len(Book.open(again)) > len(book)


def test_the_command_refuses_bad_input_in_one_line(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        (["--book", str(tmp_path / "none.book")], "no opening book at"),
        (["--margin", "-1"], "expected 0 to 1000"),
        (["--drop-out", "x"], "expected a number 0 or more"),
        (["--drop-out", "1_0"], "expected a number 0 or more, not '1_0'"),
        (["--drop-out", "\u0661"], "expected a number 0 or more"),
        (["--nodes", "5", "--time", "1"], "not allowed with"),
    ]
    for argv, message in cases:
        status = main(["book", "deepen", "--out", str(tmp_path / "x.book"), *argv])
        captured = capsys.readouterr()
        assert (status, captured.out) == (2, ""), argv
        assert message in captured.err and captured.err.count("\n") == 1, captured.err
