"""The routes of learning the rules, through an HTTP client: the course, the rules' check, the page.

``POST /api/rules/check`` answers a move in a position by the rules and stores
nothing; ``GET /api/learn`` serves the lessons with what the rules make of them;
``GET /learn`` is the page (its play in a browser: ``test_web_learn_e2e.py``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from doublecorner import Board
from doublecorner.learn import load_course
from doublecorner.web.app import create_app

CHECK = "/api/rules/check"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db_path, hash_mb=1, allowed_hosts=["testserver"])) as test_client:
        yield test_client


def check(client: TestClient, status: int, **body: Any) -> dict[str, Any]:
    answer = client.post(CHECK, json=body)
    assert answer.status_code == status, answer.text
    found: dict[str, Any] = answer.json()
    return found


def test_a_legal_move_is_answered_with_its_path_and_the_position_after(client: TestClient) -> None:
    assert check(client, 200, fen="B:W18:B9,14", move="14x23") == {
        "move": "14x23", "path": [14, 23], "captures": [18], "fen": "W:W:B9,23", "turn": "white",
        "outcome": {"result": "1-0", "reason": "no legal moves", "winner": "black"},
        "can_claim_draw": False}
    # A short capture in full, squares named a1-h8 too; the game goes on.
    answer = check(client, 200, fen="B:W14,23,30:B9", move="9x27")
    assert (answer["move"], answer["captures"], answer["outcome"]) == ("9x18x27", [14, 23], None)
    assert check(client, 200, fen="B:W21-32:B1-12", move="f6-e5")["move"] == "11-15"


def test_an_illegal_move_is_refused_with_the_reason_and_the_legal_moves(client: TestClient) -> None:
    assert check(client, 400, fen="B:W18,22,24:B9,11,14", move="9-13") == {
        "error": "illegal move '9-13' in B:W18,22,24:B9,11,14 (a capture is compulsory); "
                 "legal moves: 14x23",
        "code": "illegal_move", "reason": "a capture is compulsory", "legal_moves": ["14x23"]}
    # Stopping half way through a multi-jump is no legal move either.
    refused = check(client, 400, fen="B:W7,15,24:B3", move="3x10")
    assert (refused["code"], refused["reason"], refused["legal_moves"]) == (
        "illegal_move", "", ["3x10x19x28"])
    # A man moves only forwards.
    assert check(client, 400, fen="B:W30:B14", move="14-10")["legal_moves"] == ["14-17", "14-18"]


@pytest.mark.parametrize(("body", "code", "says"), [
    ({"fen": "B:W6,7,14,15:B2", "move": "2x18"}, "ambiguous_move", "2x18"),
    ({"fen": "B:W18:B14", "move": "fourteen"}, "invalid_move", "'fourteen'"),
    ({"fen": "B:W18:B14", "move": "14-33"}, "invalid_move", "'14-33'"),
    ({"fen": "X:W18:B14", "move": "14x23"}, "invalid_fen", "'X:W18:B14'"),
    ({"fen": "B:WK32:BK1", "moves": ["1-6", "6-1"], "move": "32-27"}, "invalid_input",
     "moves[1]: illegal move '6-1'"),
])
def test_input_the_rules_refuse_is_a_400_naming_it(client: TestClient, body: dict[str, Any],
                                                    code: str, says: str) -> None:
    refused = check(client, 400, **body)
    assert refused["code"] == code and says in refused["error"]


def test_the_history_before_the_move_counts_for_a_repetition(client: TestClient) -> None:
    history = ["1-6", "32-27", "6-1", "27-32", "1-6", "32-27", "6-1"]
    repeated = check(client, 200, fen="B:WK32:BK1", moves=history, move="27-32")
    assert (repeated["fen"], repeated["can_claim_draw"], repeated["outcome"]) == (
        "B:WK32:BK1", True, None)
    assert not check(client, 200, fen="B:WK32:BK1", moves=history, move="27-23")["can_claim_draw"]


@pytest.mark.parametrize("body", [
    {"fen": "B:W18:B14"},  # no move
    {"fen": "B:W18:B14", "move": 1423},
    {"fen": "B:W18:B14", "move": "14x23", "side": "black"},  # an unknown field
    {"fen": "B:W18:B" + ",".join(["14"] * 100), "move": "14x23"},  # a FEN over 200 characters
    {"fen": "B:W18:B14", "move": "1" * 201},
    {"fen": "B:WK32:BK1", "moves": ["1-6", "6-1"] * 101, "move": "1-6"},  # over 200 plies
])
def test_a_request_out_of_bounds_is_a_422_before_the_rules_see_it(client: TestClient,
                                                                   body: dict[str, Any]) -> None:
    assert check(client, 422, **body)["code"] == "invalid_request"


def test_a_check_stores_nothing(client: TestClient, db_path: Path) -> None:
    check(client, 200, fen="B:W18:B14", move="14x23")
    check(client, 400, fen="B:W18:B14", move="14-17")
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("SELECT count(*) FROM games").fetchone() == (0,)


def test_the_course_is_served_with_the_rules_answers(client: TestClient) -> None:
    answer = client.get("/api/learn")
    assert answer.status_code == 200
    served = answer.json()
    course = load_course()
    assert [lesson["id"] for lesson in served["lessons"]] == [
        lesson.id for lesson in course.lessons]
    assert served["quiz_size"] == course.quiz_size and len(served["quiz"]) == len(course.quiz)
    exercises = [exercise for lesson in served["lessons"] for exercise in lesson["exercises"]]
    for exercise in exercises + served["quiz"]:
        board = Board(exercise["start_fen"])
        for move in exercise["moves"]:
            board.push_str(move)
        assert exercise["fen"] == board.fen()
        assert exercise["turn"] == board.turn.name.lower()
        legal = sorted(board.legal_moves, key=lambda move: move.path)
        assert exercise["legal_moves"] == [
            {"move": str(move), "path": list(move.path), "captures": list(move.captures)}
            for move in legal]
        assert set(exercise["solutions"]) <= {str(move) for move in legal}
    repetition = served["lessons"][-1]["exercises"][0]
    assert (repetition["fen"], repetition["solutions"]) == ("W:WK27:BK1", ["27-32"])
    must = served["lessons"][8]["exercises"][0]
    assert must["wrong"][0] == {"move": "9-13", "reason": "learn.reason.captureCompulsory",
                                "params": {"move": "14x23"}}


def test_the_page_is_served_at_learn_and_the_routes_are_in_the_schema(client: TestClient) -> None:
    page = client.get("/learn")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="learn.js"></script>' in page.text
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/learn", CHECK} <= set(paths) and "/learn" not in paths


def test_without_a_static_folder_the_api_stays_and_the_page_goes(db_path: Path) -> None:
    with TestClient(create_app(db_path, hash_mb=1, allowed_hosts=["testserver"],
                               static_dir=None)) as client:
        assert client.get("/learn").status_code == 404
        assert check(client, 200, fen="B:W18:B14", move="14x23")["move"] == "14x23"
