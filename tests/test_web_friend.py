"""Play a friend: a game by invite link, its live stream, takebacks asked and answered, a clock.

The creator gets their side's token and a one-time invite; the first to join
with it gets the other side's token. Both follow the game on its live
stream, which sends the whole game on connecting (resync) and after each change.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests.test_web_api import ORIGIN, assert_error, auth, get, make_app, new_game, post


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path / "games.sqlite3")) as test_client:
        yield test_client


def join(client: TestClient, game: dict[str, Any], secret: str | None = None) -> Any:
    secret = game["invite"]["secret"] if secret is None else secret
    return client.post(f"/api/games/{game['id']}/join", json={"secret": secret})


def friend_game(client: TestClient, **options: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A friend game as its creator (Black) and its friend (White) hold it."""
    game = new_game(client, mode="friend", **options)
    answer = join(client, game)
    assert answer.status_code == 200, answer.text
    friend: dict[str, Any] = answer.json()
    return game, friend


def live(client: TestClient, game: dict[str, Any], query: str = "") -> Any:
    return client.websocket_connect(f"/api/games/{game['id']}/live{query}", headers=ORIGIN)


def receive(stream: Any) -> Any:
    """The stream's next message but the spectators' counts (they come as people come
    and go: test_web_lobby.py has them)."""
    while True:
        message = stream.receive_json()
        if message.get("type") != "spectators":
            return message


def test_the_invite_gives_the_other_side_once(client: TestClient) -> None:
    game = new_game(client, mode="friend", human="white")
    assert set(game["tokens"]) == {"white"} and game["human"] == "white"
    invite = game["invite"]
    assert invite["path"] == f"/#join={game['id']}.{invite['secret']}"
    assert get(client, game)["invite"] is None  # shown only to the creator, once
    assert_error(join(client, game, "not the secret"), 403, "not valid")
    answer = join(client, game)
    assert answer.status_code == 200
    assert set(answer.json()["tokens"]) == {"black"}
    assert answer.json()["invite"] is None
    assert_error(join(client, game), 403, "used")  # a third browser is refused
    assert_error(join(client, new_game(client, mode="two-player"), "x"), 403)


def test_each_friend_moves_only_their_own_side(client: TestClient) -> None:
    game, friend = friend_game(client)
    assert_error(post(client, friend, "moves", {"move": "11-15"}, "white"), 403)
    assert post(client, game, "moves", {"move": "11-15"}, "black").status_code == 200
    assert_error(post(client, game, "moves", {"move": "23-19"}, "black"), 403)
    assert post(client, friend, "moves", {"move": "23-19"}, "white").json()["moves"] == [
        "11-15", "23-19"]


def test_both_streams_see_every_change_and_a_new_one_resyncs(client: TestClient) -> None:
    game, friend = friend_game(client)
    with live(client, game) as black, live(client, game) as white:
        for stream in (black, white):
            first = receive(stream)
            assert (first["type"], first["event"], first["game"]["moves"]) == ("game", "sync", [])
            assert first["game"]["tokens"] is None
        post(client, game, "moves", {"move": "11-15"}, "black")
        post(client, friend, "draw", {"action": "offer"}, "white")
        for stream in (black, white):
            changed = receive(stream)
            assert (changed["event"], changed["game"]["moves"]) == ("changed", ["11-15"])
            assert receive(stream)["game"]["draw_offer"] == "white"
        black.send_json({"type": "ping"})
        assert receive(black) == {"type": "pong"}
        black.send_text("[" * 5000)
        assert receive(black)["type"] == "error"  # and the stream goes on
    with live(client, game) as again:  # a reload
        synced = receive(again)["game"]
        assert synced["moves"] == ["11-15"] and synced["draw_offer"] == "white"


def test_a_takeback_is_asked_and_answered(client: TestClient) -> None:
    game, friend = friend_game(client)
    post(client, game, "moves", {"move": "11-15"}, "black")
    post(client, friend, "moves", {"move": "23-19"}, "white")
    post(client, game, "moves", {"move": "8-11"}, "black")
    assert_error(post(client, friend, "takeback", {"action": "accept"}, "white"), 409,
                 "has not asked")
    asked = post(client, friend, "takeback", None, "white").json()  # White's 23-19, and after
    assert asked["takeback_request"] == "white" and len(asked["moves"]) == 3
    assert_error(post(client, friend, "takeback", {"action": "accept"}, "white"), 409)
    declined = post(client, game, "takeback", {"action": "decline"}, "black").json()
    assert declined["takeback_request"] is None and len(declined["moves"]) == 3
    post(client, friend, "takeback", {"action": "ask"}, "white")
    accepted = post(client, game, "takeback", {"action": "accept"}, "black").json()
    assert accepted["moves"] == ["11-15"] and accepted["turn"] == "white"
    assert accepted["takeback_request"] is None
    assert_error(post(client, new_game(client, mode="two-player"), "takeback",
                      {"action": "ask"}, "black"), 400, "friend")


def test_a_friend_game_ends_by_resignation_or_agreement(client: TestClient) -> None:
    game, friend = friend_game(client)
    post(client, friend, "draw", {"action": "offer"}, "white")
    agreed = post(client, game, "draw", {"action": "accept"}, "black").json()
    assert agreed["outcome"]["reason"] == "draw agreed"
    game, friend = friend_game(client)
    over = post(client, friend, "resign", None, "white").json()
    assert over["outcome"] == {"result": "1-0", "reason": "resignation", "winner": "black"}


def test_the_clock_runs_for_the_side_to_move_and_flags(client: TestClient,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1_000_000.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    game, friend = friend_game(client, clock={"minutes": 1, "increment": 2})
    assert game["clock"] == {"initial": 60.0, "increment": 2.0, "black": 60.0,
                             "white": 60.0, "running": None}
    post(client, game, "moves", {"move": "11-15"}, "black")  # the first move starts it
    now[0] += 10
    after = post(client, friend, "moves", {"move": "23-19"}, "white").json()
    assert after["clock"] == {"initial": 60.0, "increment": 2.0, "black": 60.0,
                              "white": 52.0, "running": "black"}
    now[0] += 59.5
    assert get(client, game)["clock"]["black"] == pytest.approx(0.5)
    now[0] += 1
    flagged = get(client, game)
    assert flagged["outcome"] == {"result": "0-1", "reason": "time forfeit", "winner": "white"}
    assert flagged["clock"]["running"] is None and flagged["clock"]["black"] == 0.0
    assert_error(post(client, game, "moves", {"move": "8-11"}, "black"), 409, "time forfeit")


@pytest.mark.parametrize(("body", "status"), [
    ({"mode": "two-player", "clock": {"minutes": 5}}, 400),
    ({"mode": "friend", "clock": {"minutes": 0}}, 422),
    ({"mode": "friend", "clock": {"minutes": "5"}}, 422),
    ({"mode": "friend", "level": 3}, 400),
])
def test_bad_friend_options_are_refused(client: TestClient, body: dict[str, Any],
                                        status: int) -> None:
    assert_error(client.post("/api/games", json=body), status)


def test_a_private_games_stream_needs_its_token(client: TestClient) -> None:
    game = new_game(client, mode="friend", private=True)
    for query in ("", "?token=wrong"):
        with pytest.raises(WebSocketDisconnect) as refused, live(client, game, query):
            pass
        assert refused.value.code == 1008
    with live(client, game, f"?token={game['tokens']['black']}") as stream:
        assert receive(stream)["game"]["id"] == game["id"]
    with pytest.raises(WebSocketDisconnect), \
            client.websocket_connect("/api/games/g_nope/live", headers=ORIGIN):
        pass
    assert client.get(f"/api/games/{game['id']}", headers=auth(game, "black")).status_code == 200


def test_a_stream_that_gets_only_bad_messages_is_closed(client: TestClient) -> None:
    game = new_game(client, mode="friend")
    with live(client, game) as stream:
        receive(stream)
        for _ in range(20):
            stream.send_text("hello")
            assert receive(stream)["type"] == "error"
        with pytest.raises(WebSocketDisconnect) as closed:
            receive(stream)
    assert closed.value.code == 1008


def test_a_friend_claims_a_repetition_with_their_own_token(client: TestClient) -> None:
    game, friend = friend_game(client, fen="B:WK32:BK1")  # the creator is Black
    holders = {"black": game, "white": friend}
    for move in ["1-6", "32-27", "6-1", "27-32"] * 2:
        turn = get(client, game)["turn"]
        answer = post(client, holders[turn], "moves", {"move": move}, turn).json()
    assert answer["outcome"] is None and answer["can_claim_draw"] is True
    assert_error(post(client, friend, "claim-draw", None, "white"), 403, "black's turn")
    over = post(client, game, "claim-draw", None, "black").json()
    assert over["outcome"]["reason"] == "threefold repetition"
