"""Who may change a game: the tokens of its seats, through the HTTP API.

Every change needs ``Authorization: Bearer TOKEN`` with the token of the seat
that makes it; without one, with another game's, or with the other side's it
is a ``403`` and nothing changes. Lists show only the games of the tokens sent.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.test_web_api import assert_error, auth, get, make_app, mine, new_game, post


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(db_path)) as test_client:
        yield test_client


def changes(client: TestClient, game: dict[str, Any],
            headers: dict[str, str]) -> list[httpx.Response]:
    """Every kind of change to ``game``, each sent with ``headers``."""
    path = f"/api/games/{game['id']}"
    return [client.post(f"{path}/moves", json={"move": "11-15"}, headers=headers),
            client.post(f"{path}/takeback", headers=headers),
            client.post(f"{path}/resign", headers=headers),
            client.post(f"{path}/draw", json={"action": "offer"}, headers=headers),
            client.delete(path, headers=headers)]


def test_each_mode_hands_out_the_tokens_of_the_creators_seats(client: TestClient) -> None:
    assert set(new_game(client, mode="engine", human="white", level=1)["tokens"]) == {"white"}
    assert set(new_game(client, mode="two-player")["tokens"]) == {"black", "white"}
    assert set(new_game(client, mode="analysis")["tokens"]) == {"owner"}
    tokens = new_game(client, mode="two-player")["tokens"]
    assert tokens["black"] != tokens["white"]
    assert all(len(token) >= 43 for token in tokens.values())  # 256 random bits


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "Bearer"},
    {"Authorization": "Bearer not-a-token"},
    {"Authorization": "Basic YWxhZGRpbjpvcGVuc2VzYW1l"},
    {"Authorization": "Bearer " + "x" * 5000},
])
def test_a_change_without_the_right_token_is_a_403(client: TestClient,
                                                   headers: dict[str, str]) -> None:
    game = new_game(client, mode="engine", human="black", level=1)
    for answer in changes(client, game, headers):
        assert_error(answer, 403, game["id"])
    assert get(client, game)["moves"] == [] and get(client, game)["outcome"] is None


def test_another_games_token_is_a_403(client: TestClient) -> None:
    mine_game = new_game(client, mode="two-player")
    other = new_game(client, mode="two-player")
    for answer in changes(client, other, auth(mine_game, "black")):
        assert_error(answer, 403, "not one of")
    assert get(client, other)["moves"] == []


def test_a_player_acts_only_for_their_own_side(client: TestClient) -> None:
    game = new_game(client, mode="two-player")
    assert_error(post(client, game, "moves", {"move": "11-15"}, "white"), 403, "black's turn")
    assert_error(post(client, game, "resign", {"side": "black"}, "white"), 403)
    assert_error(post(client, game, "draw", {"side": "black", "action": "offer"}, "white"), 403)
    assert get(client, game)["moves"] == [] and get(client, game)["draw_offer"] is None
    assert post(client, game, "moves", {"move": "11-15"}, "black").status_code == 200
    assert post(client, game, "moves", {"move": "23-19"}, "white").status_code == 200


def test_the_list_holds_only_the_games_of_the_tokens_sent(client: TestClient) -> None:
    first = new_game(client, mode="two-player")
    second = new_game(client, mode="analysis")
    stranger = new_game(client, mode="engine", level=1)
    assert client.get("/api/games").json() == {"games": []}  # no token: nobody's games
    assert [game["id"] for game in mine(client, first)] == [first["id"]]
    assert [game["id"] for game in mine(client, first, second)] == [second["id"], first["id"]]
    one_seat = {"tokens": {"white": first["tokens"]["white"]}}
    assert [game["id"] for game in mine(client, one_seat)] == [first["id"]]
    assert stranger["id"] not in {game["id"] for game in mine(client, first, second)}
    many = ", ".join(["t"] * 201)
    assert_error(client.get("/api/games", headers={"Authorization": f"Bearer {many}"}), 400,
                 "at most 200")


def test_a_private_game_is_shown_only_to_its_seats(client: TestClient) -> None:
    game = new_game(client, mode="two-player", private=True)
    assert game["private"] is True
    path = f"/api/games/{game['id']}"
    for answer in (client.get(path), client.get(f"{path}/pdn")):
        assert_error(answer, 403, "private")
    assert_error(client.get(path, headers={"Authorization": "Bearer wrong"}), 403)
    assert client.get(path, headers=auth(game, "white")).json()["id"] == game["id"]
    assert client.get(f"{path}/pdn", headers=auth(game, "black")).status_code == 200
    public = new_game(client, mode="two-player")
    assert client.get(f"/api/games/{public['id']}").status_code == 200  # no token needed


def test_tokens_are_stored_only_as_hashes(client: TestClient, db_path: Path) -> None:
    game = new_game(client, mode="two-player")
    imported = client.post("/api/games/import", json={"pdn": "1. 11-15 *\n"}).json()
    tokens = [*game["tokens"].values(), imported["games"][0]["tokens"]["owner"]]
    content = db_path.read_bytes() + (db_path.parent / "games.sqlite3-wal").read_bytes()
    for token in tokens:
        assert token.encode() not in content
    with sqlite3.connect(db_path) as connection:
        hashes = {row[0] for row in connection.execute("SELECT token_hash FROM seats")}
    assert len(hashes) == 3 and all(len(digest) == 64 for digest in hashes)


def test_a_deleted_game_takes_its_seats_with_it(client: TestClient) -> None:
    game = new_game(client, mode="analysis")
    assert client.delete(f"/api/games/{game['id']}", headers=auth(game, "owner")).status_code == 204
    assert mine(client, game) == []
    assert client.app.state.games.store.seats(game["id"]) == {}


def test_the_openapi_schema_declares_the_seat_tokens(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["seat token"]["scheme"] == "bearer"
    move = schema["paths"]["/api/games/{game_id}/moves"]["post"]
    assert move["security"] == [{"seat token": []}] and "403" in move["responses"]
    assert "/api/games/{game_id}/join" in schema["paths"]
