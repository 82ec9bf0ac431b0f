"""Malformed input, through the real interface: each is a JSON 4xx, never a 500 or a dropped socket.

Wrong types (no text or boolean for a number), duplicate keys, invalid
UTF-8, deep nesting and unreadable lengths are refused with the contract's
status and ``{"error": ...}``; the analysis stream answers an ``error`` and
stays open, and closes with 1008 only a client that sends nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from doublecorner.web.analysis_ws import MAX_ERRORS_IN_A_ROW
from tests.test_web_api import ORIGIN, assert_error, auth, get, make_app, new_game

JSON = {"content-type": "application/json"}
DEEP = b"[" * 30_000 + b"]" * 30_000


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path / "games.sqlite3")) as test_client:
        yield test_client


@pytest.mark.parametrize(("body", "field"), [
    ({"mode": "engine", "level": "6"}, "level"),
    ({"mode": "engine", "level": True}, "level"),
    ({"mode": "engine", "level": 6.0}, "level"),
    ({"mode": "engine", "seconds": "1"}, "seconds"),
    ({"mode": "engine", "seconds": False}, "seconds"),
    ({"mode": "two-player", "private": "yes"}, "private"),
    ({"mode": "two-player", "private": 1}, "private"),
    ({"mode": "analysis", "fen": 5}, "fen"),
    ({"mode": ["engine"]}, "mode"),
])
def test_a_value_of_the_wrong_type_is_a_422(client: TestClient, body: dict[str, Any],
                                            field: str) -> None:
    assert_error(client.post("/api/games", json=body), 422, field)
    assert client.app.state.games.store.count() == 0


def test_a_float_may_be_written_as_an_integer(client: TestClient) -> None:
    assert new_game(client, mode="engine", seconds=1)["engine"] == {"seconds": 1.0}


@pytest.mark.parametrize(("content", "words"), [
    (b'{"mode": "engine", "level": 3, "level": 9}', ("duplicate key 'level'",)),
    (b'{"mode": "two-player\xff"}', ("UTF-8", "0xff")),
    (b'{"mode": "analysis", "fen": "\xc3"}', ("UTF-8",)),
    (DEEP, ("nested deeper than 32",)),
    (b'{"mode": "engine", "seconds": NaN}', ("NaN",)),
    (b'{"mode": "engine", "seconds": Infinity}', ("Infinity",)),
    (b'{"mode": ', ("not valid JSON",)),
])
def test_a_body_that_is_not_strict_json_is_a_422(client: TestClient, content: bytes,
                                                 words: tuple[str, ...]) -> None:
    answer = client.post("/api/games", content=content, headers=JSON)
    assert_error(answer, 422, "the body", *words)
    assert client.app.state.games.store.count() == 0


def test_a_deep_body_on_a_move_changes_nothing(client: TestClient) -> None:
    game = new_game(client, mode="two-player")
    answer = client.post(f"/api/games/{game['id']}/moves", content=DEEP,
                         headers={**JSON, **auth(game, "black")})
    assert_error(answer, 422, "nested")
    assert get(client, game)["moves"] == []


@pytest.mark.parametrize("length", ["ten", "-1", "1e3", ""])
def test_a_content_length_that_is_not_a_number_is_a_400(client: TestClient,
                                                        length: str) -> None:
    # The ASGI layer's own check (uvicorn's parser is covered in test_cli_serve).
    answer = client.post("/api/games", content=b'{"mode": "two-player"}',
                         headers={**JSON, "content-length": length})
    assert_error(answer, 400, "Content-Length")


def test_the_analysis_stream_answers_bad_messages_and_stays_open(client: TestClient) -> None:
    with client.websocket_connect("/api/analysis", headers=ORIGIN) as socket:
        for message, words in ((DEEP.decode(), ("nested",)),
                               ('{"action": "start", "action": "stop"}', ("duplicate",)),
                               ('{"action": "start", "moves": "11-15"}', ("moves",)),
                               ('{"action": "start", "fen": 1}', ("fen",)),
                               ('{"action": true}', ("action",))):
            socket.send_text(message)
            answer = socket.receive_json()
            assert answer["type"] == "error", answer
            for word in words:
                assert word in answer["error"]
        socket.send_bytes(b"\x00\x01")
        assert "binary" in socket.receive_json()["error"]
        socket.send_json({"action": "start", "fen": "B:W9:B"})
        assert socket.receive_json() == {"type": "done", "bestmove": None}


def test_a_client_that_sends_only_bad_messages_is_closed_with_1008(client: TestClient) -> None:
    with client.websocket_connect("/api/analysis", headers=ORIGIN) as socket:
        for _ in range(MAX_ERRORS_IN_A_ROW):
            socket.send_text("{")
        for _ in range(MAX_ERRORS_IN_A_ROW):
            assert socket.receive_json()["type"] == "error"
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
    assert closed.value.code == 1008
