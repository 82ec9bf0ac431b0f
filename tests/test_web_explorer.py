"""The explorer's routes (``GET /api/explore``, ``GET /api/games-db/{id}``) and
``serve --games-db``, over a small game database counted by hand."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import doublecorner.web.explorer
from doublecorner import STARTING_FEN, Board
from doublecorner.cli import main
from doublecorner.db import GameDatabase
from doublecorner.errors import GameDatabaseError
from doublecorner.web.app import NO_GAMES_DB, create_app
from doublecorner.web.explorer import GamesExplorer

# Games 1 and 2 reach the position after 11-15 23-19 9-14 22-17 by two orders of moves;
# game 3 leaves that line at its third move; game 4 has a comment and ends in a capture.
COLLECTION = """[Event "Club"]
[Date "2026.11.30"]
[Black "Ann"]
[White "Bob"]
1. 11-15 23-19 2. 9-14 22-17 1-0

[Date "2025.05.01"]
[Black "Cy"]
[White "Dee"]
1. 9-14 22-17 2. 11-15 23-19 1/2-1/2

[Date "2024.01.01"]
[Black "Eve"]
[White "Fay"]
1. 11-15 23-19 2. 8-11 22-17 0-1

[Black "Gus"]
1. 11-15 {the Old Fourteenth's start} 22-18 2. 15x22 25x18 *
"""
TRANSPOSED = "B:W17,19,21,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,10,12,14,15"


def board_after(*moves: str) -> Board:
    board = Board()
    for move in moves:
        board.push_str(move)
    return board


@pytest.fixture(scope="module")
def games_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("explorer")
    (folder / "club.pdn").write_text(COLLECTION, encoding="utf-8")
    path = folder / "games-db.sqlite3"
    with GameDatabase(path) as database:
        summary = database.import_files([folder / "club.pdn"])
    assert (summary.imported, summary.faulty) == (4, 0)
    return path


def make_client(tmp_path: Path, games_db: Path | None) -> TestClient:
    return TestClient(create_app(tmp_path / "games.sqlite3", hash_mb=1, games_db=games_db,
                                 allowed_hosts=["testserver"]))


@pytest.fixture
def client(tmp_path: Path, games_db: Path) -> Iterator[TestClient]:
    with make_client(tmp_path, games_db) as test_client:
        yield test_client


def explore(client: TestClient, **query: Any) -> dict[str, Any]:
    answer = client.get("/api/explore", params=query)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def error(client: TestClient, path: str, status: int, **query: Any) -> str:
    """The ``error`` of a refused request: a JSON object of one line and its code, no traceback."""
    answer = client.get(path, params=query)
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert list(body) == ["error", "code"] and "\n" not in body["error"], body
    assert "Traceback" not in answer.text
    return str(body["error"])


# -- GET /api/explore ------------------------------------------------------------------


def test_the_start_position_is_answered_as_db_explore_json_prints_it(
        client: TestClient, games_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = explore(client)
    assert main(["db", "explore", "--db", str(games_db), "--json"]) == 0
    assert found == json.loads(capsys.readouterr().out)
    assert found["fen"] == Board().fen() and found["games"] == 4
    assert found["moves"] == [
        {"move": "11-15", "games": 3, "black_wins": 1, "draws": 0, "white_wins": 1},
        {"move": "9-14", "games": 1, "black_wins": 0, "draws": 1, "white_wins": 0}]
    # Newest first; the game of unknown date last.
    assert [(game["id"], game["black"], game["date"]) for game in found["top_games"]] == [
        (1, "Ann", "2026.11.30"), (2, "Cy", "2025.05.01"), (3, "Eve", "2024.01.01"),
        (4, "Gus", "?")]
    assert found["top_games"][0] == {"id": 1, "black": "Ann", "white": "Bob",
                                     "event": "Club", "date": "2026.11.30", "result": "1-0"}


def test_games_that_transpose_count_at_the_position_they_share(client: TestClient) -> None:
    assert board_after("9-14", "22-17", "11-15", "23-19").fen() == TRANSPOSED
    found = explore(client, fen=TRANSPOSED)
    assert (found["games"], found["moves"]) == (2, [])  # both games end there
    assert [game["id"] for game in found["top_games"]] == [1, 2]
    after = explore(client, fen=board_after("11-15").fen())
    assert [(move["move"], move["games"]) for move in after["moves"]] == [
        ("23-19", 2), ("22-18", 1)]


def test_a_capture_is_written_as_pdn_writes_it_and_limit_bounds_the_games(
        client: TestClient) -> None:
    found = explore(client, fen=board_after("11-15", "22-18").fen(), limit=1)
    assert found["moves"] == [
        {"move": "15x22", "games": 1, "black_wins": 0, "draws": 0, "white_wins": 0}]
    assert [game["id"] for game in found["top_games"]] == [4]
    assert len(explore(client, limit=2)["top_games"]) == 2


def test_a_position_no_game_reached_has_no_games(client: TestClient) -> None:
    assert explore(client, fen="W:W18:B14") == {"fen": "W:W18:B14", "games": 0, "moves": [],
                                                 "top_games": []}


@pytest.mark.parametrize("fen", ["", "hello", "B:W99:B1", "X:W1:B2", "B:W1,1:B1",
                                 "B:W\x00:B1", "B:W" + "9" * 150 + ":B1"])
def test_a_bad_fen_is_a_400_naming_it(client: TestClient, fen: str) -> None:
    message = error(client, "/api/explore", 400, fen=fen)
    assert "FEN" in message or "fen" in message


@pytest.mark.parametrize("query", [
    {"fen": "B:W21-32:B1-12" + " " * 200},  # longer than any FEN
    {"fen": "B:" + "W1," * 5000},
    {"limit": 0}, {"limit": 101}, {"limit": -1}, {"limit": "ten"}, {"limit": 1.5},
    {"limit": 10**30}])
def test_an_oversized_or_malformed_query_is_a_422(client: TestClient,
                                                  query: dict[str, Any]) -> None:
    message = error(client, "/api/explore", 422, **query)
    assert message.split(":")[0] in ("fen", "limit")


# -- GET /api/games-db/{id} ----------------------------------------------------------------


def test_a_stored_game_gives_its_tags_moves_and_pdn(client: TestClient) -> None:
    answer = client.get("/api/games-db/1")
    assert answer.status_code == 200, answer.text
    game = answer.json()
    assert game["id"] == 1 and game["result"] == "1-0" and game["faults"] == []
    assert game["tags"] == {"Event": "Club", "Date": "2026.11.30", "Black": "Ann",
                            "White": "Bob", "Result": "1-0"}
    assert (game["start_fen"], game["moves"]) == (STARTING_FEN, ["11-15", "23-19", "9-14",
                                                                 "22-17"])
    assert '[Black "Ann"]' in game["pdn"] and "1. 11-15 23-19 2. 9-14 22-17 1-0" in game["pdn"]
    annotated = client.get("/api/games-db/4").json()
    assert annotated["moves"] == ["11-15", "22-18", "15x22", "25x18"]
    assert "{the Old Fourteenth's start}" in annotated["pdn"] and annotated["result"] == "*"


def test_an_unknown_game_is_a_404(client: TestClient) -> None:
    assert error(client, "/api/games-db/5", 404) == ("no game has the id 5 in the game "
                                                      "database")


@pytest.mark.parametrize("game_id", ["0", "-1", "abc", "1.5", "1e3", str(2**63), "9" * 400,
                                     "%00"])
def test_a_game_id_that_is_not_a_positive_integer_is_a_422(client: TestClient,
                                                           game_id: str) -> None:
    assert error(client, f"/api/games-db/{game_id}", 422).startswith("game_id: ")


def test_a_database_that_cannot_be_read_is_a_500_that_hides_its_path(
        client: TestClient, games_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def damaged(*arguments: Any, **options: Any) -> None:
        raise sqlite3.DatabaseError(f"database disk image is malformed ({str(games_db)!r})")

    monkeypatch.setattr(doublecorner.web.explorer, "explore", damaged)
    message = error(client, "/api/explore", 500)
    assert message == "cannot read the game database: database disk image is malformed " \
                      "(the file)"


# -- without a game database, and a file that is none -------------------------------------


def test_without_a_game_database_both_routes_are_a_404(tmp_path: Path) -> None:
    with make_client(tmp_path, None) as client:
        assert error(client, "/api/explore", 404) == NO_GAMES_DB
        assert error(client, "/api/games-db/1", 404) == NO_GAMES_DB
        assert client.get("/api/health").json() == {"ok": True}


def test_a_missing_file_or_one_that_is_no_game_database_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 99, encoding="utf-8")
    for path in (tmp_path / "missing.sqlite3", text):
        with pytest.raises(GameDatabaseError):
            create_app(tmp_path / "games.sqlite3", games_db=path)
    assert not (tmp_path / "missing.sqlite3").exists()


# -- concurrency -------------------------------------------------------------------------


def test_threads_explore_at_once_each_with_the_right_answer(games_db: Path) -> None:
    explorer = GamesExplorer(games_db)
    fens = [Board().fen(), board_after("11-15").fen(), TRANSPOSED, board_after("9-14").fen()]
    expected = {fen: explorer.explore(fen, 10).to_json() for fen in fens}
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(lambda index: (fens[index % 4],
                                                   explorer.explore(fens[index % 4], 10)),
                                    range(400)))
            games = list(pool.map(lambda index: explorer.game(1 + index % 4).moves, range(80)))
    finally:
        explorer.close()
    assert all(found.to_json() == expected[fen] for fen, found in answers)
    assert {len(moves) for moves in games} == {4}


# -- serve --games-db ---------------------------------------------------------------------


@pytest.fixture
def no_serving(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """``uvicorn.Server.run`` replaced: the apps ``serve`` would have served."""
    import uvicorn

    served: list[Any] = []
    monkeypatch.setattr(uvicorn.Server, "run",
                        lambda server, sockets=None: served.append(server.config.app))
    return served


def test_serve_games_db_opens_the_explorer(no_serving: list[Any], tmp_path: Path,
                                           games_db: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "0", "--hash", "1", "--db", str(tmp_path / "g.sqlite3"),
                 "--games-db", str(games_db)]) == 0
    assert f"explorer on the game database {games_db}" in capsys.readouterr().out
    with TestClient(no_serving[0], base_url="http://localhost") as client:
        assert explore(client)["games"] == 4


@pytest.mark.parametrize(("name", "problem"), [
    ("missing.sqlite3", "does not exist"), ("", "is a folder"),
    ("notes.txt", "file is not a database"), ("empty.sqlite3", "not a doublecorner game")])
def test_serve_refuses_a_games_db_it_cannot_explore(no_serving: list[Any], tmp_path: Path,
                                                   name: str, problem: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("not a database\n" * 99, encoding="utf-8")
    (tmp_path / "empty.sqlite3").write_bytes(b"")
    status = main(["serve", "--port", "0", "--hash", "1", "--db", str(tmp_path / "g.sqlite3"),
                   "--games-db", str(tmp_path / name)])
    err = capsys.readouterr().err
    assert status == 2 and no_serving == []
    assert "--games-db" in err and problem in err and "Traceback" not in err
    assert not (tmp_path / "missing.sqlite3").exists()
