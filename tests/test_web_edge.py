"""The edge of the app: the Host allow-list, the Origin check and the JSON content type.

A hostile page in the user's browser (cross-site forms and fetches, DNS
rebinding) must not read or change anything; programs that send no Origin
still work with their own tokens.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from doublecorner.web.app import create_app
from tests.test_web_api import ORIGIN, assert_error, auth, get, make_app, new_game

EVIL = "http://evil.example"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path / "games.sqlite3")) as test_client:
        yield test_client


@pytest.mark.parametrize("host", ["evil.example", "evil.example:80", "127.0.0.1.nip.io",
                                  "", "testserver.evil.example"])
def test_a_host_that_is_not_allowed_is_a_421(client: TestClient, host: str) -> None:
    for answer in (client.get("/api/health", headers={"host": host}),
                   client.get("/", headers={"host": host}),
                   client.post("/api/games", json={"mode": "two-player"},
                               headers={"host": host})):
        assert_error(answer, 421, "--allowed-host")
    assert client.app.state.games.store.count() == 0


def test_the_loopback_names_are_allowed_by_default(tmp_path: Path) -> None:
    app = create_app(tmp_path / "games.sqlite3", hash_mb=1)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "LOCALHOST"):
            assert client.get("/api/health", headers={"host": host}).status_code == 200
        assert_error(client.get("/api/health", headers={"host": "testserver"}), 421)


def test_a_cross_site_form_post_changes_nothing(client: TestClient) -> None:
    game = new_game(client, mode="two-player")
    form = {"content-type": "application/x-www-form-urlencoded"}
    for headers, status in (({**form, "origin": EVIL}, 403),
                            ({**form, "origin": "null"}, 403),
                            ({**form, "sec-fetch-site": "cross-site"}, 403),
                            (form, 415),  # no Origin: still not JSON
                            ({**form, **ORIGIN}, 415)):
        for action in ("takeback", "resign"):
            answer = client.post(f"/api/games/{game['id']}/{action}", content=b"side=black",
                                 headers={**headers, **auth(game, "black")})
            assert_error(answer, status)
    assert get(client, game)["outcome"] is None


def test_a_cross_site_fetch_changes_nothing(client: TestClient) -> None:
    game = new_game(client, mode="two-player")
    headers = {**auth(game, "black"), "origin": EVIL}
    assert_error(client.post(f"/api/games/{game['id']}/moves", json={"move": "11-15"},
                             headers=headers), 403, "another site")
    assert_error(client.delete(f"/api/games/{game['id']}", headers=headers), 403)
    assert_error(client.post("/api/games", json={"mode": "analysis"},
                             headers={"origin": "http://testserver:9999"}), 403)
    assert get(client, game)["moves"] == []
    # The page's own origin, and a program that sends none, may.
    assert client.post(f"/api/games/{game['id']}/moves", json={"move": "11-15"},
                       headers={**auth(game, "black"), **ORIGIN}).status_code == 200
    assert client.post(f"/api/games/{game['id']}/moves", json={"move": "23-19"},
                       headers=auth(game, "white")).status_code == 200


def test_reading_needs_no_origin_check(client: TestClient) -> None:
    game = new_game(client, mode="two-player")
    answer = client.get(f"/api/games/{game['id']}", headers={"origin": EVIL})
    assert answer.status_code == 200  # a read; and no CORS header lets that page see it
    assert "access-control-allow-origin" not in answer.headers


@pytest.mark.parametrize("headers", [{}, {"origin": EVIL}, {"origin": "null"},
                                     {**ORIGIN, "host": "evil.example"}])
def test_a_websocket_handshake_needs_the_pages_origin(client: TestClient,
                                                      headers: dict[str, str]) -> None:
    with pytest.raises(WebSocketDisconnect) as refused, \
            client.websocket_connect("/api/analysis", headers=headers):
        pass
    assert refused.value.code == 1008
    with client.websocket_connect("/api/analysis", headers=ORIGIN) as socket:
        socket.send_json({"action": "start", "fen": "B:W9:B"})
        assert socket.receive_json() == {"type": "done", "bestmove": None}
