"""The engine playing from a book: Engine(book=...), the commands' --book, play, and the DCP
options OwnBook and BookFile; a position out of book falls through to the search."""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from doublecorner import Board, Color, Move, Position
from doublecorner.book import Book
from doublecorner.book.format import ENTRY, NO_SCORE
from doublecorner.book.move_code import move_code
from doublecorner.cli import main
from doublecorner.cli.play import PlaySession
from doublecorner.engine import Engine, Limit, SearchResult
from doublecorner.engine.levels import Strength
from doublecorner.errors import BookError
from doublecorner.protocol import GoCommand, SimpleEngineClient
from doublecorner.protocol.messages import parse_info
from tests.test_protocol import Lines

ENGINE = [sys.executable, "-m", "doublecorner", "engine"]


def after(moves: str) -> Board:
    board = Board()
    for text in moves.split():
        board.push_str(text)
    return board


def small_book() -> Book:
    """At the start 10-14 (never 9-13, weight 0); after 10-14, 24-19; after 11-15, 22-18
    scored 25 by the engine."""
    rows = [(Board(), Move(10, 14), 7, NO_SCORE, 3, 4, 0), (Board(), Move(9, 13), 0, NO_SCORE,
                                                             0, 0, 5),
            (after("10-14"), Move(24, 19), 1, NO_SCORE, 0, 1, 0),
            (after("11-15"), Move(22, 18), 1, 25, 0, 0, 0)]
    return Book(np.array([(board.zobrist_key(), move_code(move), weight, score, wins, draws,
                           losses) for board, move, weight, score, wins, draws, losses in rows],
                         ENTRY), {"note": "test"})


@pytest.fixture(scope="module")
def book_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("engine-book") / "small.book"
    small_book().write(path)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# -- the engine -----------------------------------------------------------------------


def test_the_engine_plays_the_book_move_without_searching() -> None:
    engine = Engine(hash_mb=1, book=small_book(), book_seed=1)
    infos: list[SearchResult] = []
    result = engine.search(Position.start(), Limit(depth=6), on_info=infos.append)
    assert (str(result.move), result.is_book, result.depth, result.nodes) == ("10-14", True, 0, 0)
    assert infos == [result]
    scored = engine.search(after("11-15").position(), Limit(depth=6))
    assert (str(scored.move), scored.is_book, scored.score.value) == ("22-18", True, 25)


def test_out_of_book_the_engine_searches() -> None:
    engine = Engine(hash_mb=1, book=small_book())
    result = engine.search(after("9-14").position(), Limit(depth=3))
    assert not result.is_book and result.depth == 3 and result.nodes > 0
    # use_book=False searches even where the book has moves.
    searched = engine.search(Position.start(), Limit(depth=3), use_book=False)
    assert not searched.is_book and searched.depth == 3


def test_without_a_book_nothing_changes() -> None:
    with_none = Engine(hash_mb=1).search(Position.start(), Limit(depth=4))
    again = Engine(hash_mb=1).search(Position.start(), Limit(depth=4))
    assert not with_none.is_book and (with_none.move, with_none.score) == (again.move,
                                                                           again.score)


def test_the_book_s_seed_repeats_the_draw() -> None:
    rows = np.array([(Board().zobrist_key(), move_code(Move(*path)), 1, NO_SCORE, 0, 1, 0)
                     for path in [(9, 13), (9, 14), (10, 14), (10, 15), (11, 15), (11, 16),
                                  (12, 16)]], ENTRY)
    book = Book(rows, {})

    def moves(seed: int | None) -> list[str]:
        engine = Engine(hash_mb=1, book=book, book_seed=seed)
        return [str(engine.search(Position.start(), Limit(depth=1)).move) for _ in range(12)]

    assert moves(5) == moves(5)
    assert len(set(moves(5))) > 1
    assert [str(book.choose(Board(), random.Random(5)).move)  # type: ignore[union-attr]
            for _ in range(1)] == moves(5)[:1]


# -- the commands ---------------------------------------------------------------------


def test_analyse_says_book_and_bestmove_gives_the_book_move(
        book_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "analyse", "--book", str(book_file), "--depth", "4",
                         "--eval", "linear")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("depth 0 seldepth 0 score ") and lines[0].endswith(
        " book pv 10-14")
    assert lines[-1] == "bestmove 10-14"

    status, out, _ = run(capsys, "analyse", "--book", str(book_file), "--depth", "4",
                         "--eval", "linear", "--json")
    first, last = (json.loads(line) for line in out.splitlines())
    assert first["book"] is True and last["bestmove"] == "10-14" and last["book"] is True

    status, out, err = run(capsys, "bestmove", "--book", str(book_file), "--depth", "4",
                           "--eval", "linear", "--moves", "10-14")
    assert (status, out) == (0, "24-19\n")
    assert "24-19 is a book move" in err


def test_out_of_book_the_commands_search_as_before(book_file: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "analyse", "--book", str(book_file), "--depth", "3",
                           "--eval", "linear", "--moves", "9-14")
    assert status == 0 and " book " not in out
    assert [line.split()[1] for line in out.splitlines()[:-1]] == ["1", "2", "3"]
    status, out, err = run(capsys, "bestmove", "--book", str(book_file), "--depth", "3",
                           "--eval", "linear", "--moves", "9-14")
    assert status == 0 and "book" not in err


def test_a_bad_book_option_is_one_line(book_file: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    damaged = tmp_path / "damaged.book"
    damaged.write_bytes(book_file.read_bytes()[:-5])
    cases = [
        (["bestmove", "--book", str(damaged)], "is cut short"),
        (["analyse", "--book", str(tmp_path / "none.book")], "cannot read the opening book"),
        (["bestmove", "--book", str(tmp_path)], "is a folder"),
        (["bestmove", "--book-seed", "3"], "--book-seed goes with --book"),
        (["bestmove", "--book", str(book_file), "--book-seed", "x"], "expected a whole number"),
        (["play", "--book", str(damaged)], "is cut short"),
        (["serve", "--book", str(damaged), "--port", "0", "--db",
          str(tmp_path / "web.sqlite3")], "is cut short"),
    ]
    for argv, message in cases:
        status, out, err = run(capsys, *argv)
        assert (status, out) == (2, ""), argv
        assert message in err and err.count("\n") == 1, err
    games = tmp_path / "games.pdn"
    games.write_text("1. 11-15 23-19 *\n", encoding="utf-8")
    status, _, err = run(capsys, "analyse", str(games), "--book", str(book_file))
    assert status == 2 and "not in a PDN file's analysis" in err


def test_play_says_the_engine_s_move_is_from_the_book() -> None:
    session = PlaySession(Board(), human=Color.WHITE,
                          engine=Engine(hash_mb=1, book=small_book(), evaluation="linear"),
                          strength=Strength.from_level(1), flipped=False, numbers=False)
    out = io.StringIO()
    session.run(io.StringIO("24-19\nhint\nquit\n"), out)
    text = out.getvalue()
    assert "engine plays 10-14 (book)" in text
    assert "hint: " in text and "(book)" not in text.split("hint: ")[1].splitlines()[0]


# -- the protocol ---------------------------------------------------------------------


def test_dcp_declares_ownbook_and_bookfile() -> None:
    lines = Lines().send("dcp")
    assert "option name OwnBook type check default false" in lines
    assert "option name BookFile type string default <none>" in lines


def test_dcp_plays_from_the_book_when_ownbook_is_on(book_file: Path) -> None:
    lines = Lines()
    assert lines.send("setoption name Evaluation value linear",
                      f"setoption name BookFile value {book_file}") == []
    answer = lines.search("go depth 3")  # OwnBook is off: a search
    assert [parse_info(line).is_book for line in answer if line.startswith("info")] == [
        False] * 3
    assert lines.send("setoption name OwnBook value true") == []
    answer = lines.search("go depth 3")
    assert answer[0].startswith("info depth 0 seldepth 0 score cp 0 nodes 0 nps 0 time ")
    assert answer[0].endswith(" book pv 10-14") and answer[1:] == ["bestmove 10-14"]
    assert parse_info(answer[0]).is_book
    lines.send("position startpos moves 9-14")  # out of book
    answer = lines.search("go depth 2")
    assert len(answer) == 3 and " book " not in " ".join(answer)
    lines.send("setoption name BookFile value <none>", "position startpos")
    assert " book " not in " ".join(lines.search("go depth 1"))


def test_dcp_refuses_a_bad_book_and_keeps_the_old_one(book_file: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.book"
    damaged.write_bytes(b"not a book")
    lines = Lines()
    lines.send(f"setoption name BookFile value {book_file}", "setoption name OwnBook value true")
    answer = lines.send(f"setoption name BookFile value {damaged}",
                        "setoption name OwnBook value maybe")
    assert answer[0] == (f"error {str(damaged)!r} is not a doublecorner opening book (it does "
                         "not start with b'DCBOOK\\x1a\\n')")
    assert answer[1] == "error option OwnBook is true or false, not 'maybe'"
    assert lines.search("go depth 2")[-1] == "bestmove 10-14"


def test_a_controller_sees_book_moves_of_our_engine_program(book_file: Path) -> None:
    with SimpleEngineClient.popen(ENGINE) as engine:
        assert {"OwnBook", "BookFile"} <= set(engine.options)
        engine.configure({"BookFile": str(book_file), "OwnBook": "true"})
        result = engine.play(Board(), GoCommand(depth=3))
        assert str(result.move) == "10-14"
        assert result.info is not None and result.info.is_book
        result = engine.play(after("9-14"), GoCommand(depth=2))
        assert result.info is not None and not result.info.is_book


# -- the web app ----------------------------------------------------------------------


def test_the_web_engine_plays_its_game_moves_from_the_book(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from doublecorner.web.app import create_app

    app = create_app(tmp_path / "games.sqlite3", hash_mb=1, max_seconds=5.0,
                     allowed_hosts=["testserver"], book=small_book(), book_seed=1)
    with TestClient(app) as client:
        answer = client.post("/api/games", json={"mode": "engine", "human": "white",
                                                 "level": 1})
        assert answer.status_code == 201, answer.text
        game = answer.json()
        assert game["engine_reply"] == {"move": "10-14", "score": "0.00", "depth": 0,
                                        "book": True}
        headers = {"Authorization": f"Bearer {game['tokens']['white']}",
                   "Origin": "http://testserver"}
        moved = client.post(f"/api/games/{game['id']}/moves", json={"move": "22-18"},
                            headers=headers)
        assert moved.status_code == 200, moved.text
        assert moved.json()["engine_reply"]["book"] is False  # out of book: searched


def test_a_match_player_plays_from_a_book_named_in_its_spec(book_file: Path) -> None:
    from doublecorner.match import parse_player

    player = parse_player(f"engine:depth=1,book={book_file}", default_limit=Limit(depth=1),
                          movetime=0.1)
    assert "book small.book" in player.name
    player.new_game()
    assert player.choose(Board()) == Move(10, 14)  # the only move of weight above 0
    with pytest.raises(BookError, match="nonexistent"):
        parse_player("engine:book=/nonexistent/x.book", default_limit=Limit(depth=1),
                     movetime=0.1)


def test_each_new_game_draws_book_moves_from_the_seed_again() -> None:
    rows = [(Board(), Move(10, 14), 1), (Board(), Move(11, 15), 1), (Board(), Move(9, 13), 1)]
    book = Book(np.array([(board.zobrist_key(), move_code(move), weight, NO_SCORE, 0, 0, 0)
                          for board, move, weight in rows], ENTRY), {"note": "test"})
    engine = Engine(hash_mb=1, book=book, book_seed=3)

    def first_moves() -> list[Move | None]:
        engine.new_game()
        return [engine.search(Board().position(), Limit(depth=1)).move for _ in range(8)]

    drawn = first_moves()
    assert len(set(drawn)) > 1  # drawn by weight, not always the same move
    assert first_moves() == drawn
