"""The lobby, challenges, rematches and watching, through the HTTP API and the sockets.

Each person is a browser of their own (a cookie jar and an address) over one
app, as in test_web_accounts. Seeks and challenges live in memory and are
shown on the lobby socket (``WS /api/lobby``); the tests read its messages in
order and wait on them, never on the clock: the grace of a seek whose author
left, a challenge's life and the abandonment timeout are set to 0 where a
test needs them to pass. Every browser's requests run on the app's own event
loop, as under uvicorn, so that the timers a request sets go off (a
TestClient outside its ``with`` would run each request on a loop of its own,
closed with it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from doublecorner.web.limits import ServerLimits
from tests import test_web_accounts
from tests.test_web_accounts import Clocks, signed_up
from tests.test_web_api import ORIGIN, assert_error, auth, new_game

FIVE_PLUS_THREE = {"minutes": 5, "increment": 3}


@dataclass
class Server(test_web_accounts.Server):
    """The app, and browsers whose requests and sockets run on its event loop."""

    portal: Any = None

    def browser(self, address: str = "192.0.2.1", **headers: str) -> TestClient:
        browser = super().browser(address, **headers)
        browser.portal = self.portal
        return browser


def serve(db_path: Path, clocks: Clocks, **options: Any) -> Iterator[Server]:
    """The app over ``db_path`` with the accounts' test options, started once."""
    options.setdefault("password_hasher", test_web_accounts.fast_hasher())
    app = test_web_accounts.make_app(db_path, limits_clock=lambda: clocks.monotonic,
                                     now=lambda: clocks.wall, **options)
    with TestClient(app) as started:
        yield Server(app, clocks, portal=started.portal)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    yield from serve(tmp_path / "games.sqlite3", Clocks())


def lobby(browser: TestClient) -> Any:
    """The browser's lobby socket (its session goes with it)."""
    return browser.websocket_connect("/api/lobby", headers=ORIGIN)


def next_of(socket: Any, kind: str) -> dict[str, Any]:
    """The socket's next message of type ``kind`` (the others are passed by)."""
    while True:
        message: dict[str, Any] = socket.receive_json()
        if message["type"] == kind:
            return message


def seek(browser: TestClient, **body: Any) -> dict[str, Any]:
    answer = browser.post("/api/seeks", json={**FIVE_PLUS_THREE, **body})
    assert answer.status_code == 201, answer.text
    posted: dict[str, Any] = answer.json()
    return posted


def accept(browser: TestClient, seek_id: str) -> dict[str, Any]:
    answer = browser.post(f"/api/seeks/{seek_id}/accept")
    assert answer.status_code == 201, answer.text
    game: dict[str, Any] = answer.json()
    return game


def game_between(server: Server, black: TestClient, white: TestClient,
                 **body: Any) -> dict[str, Any]:
    """A game from a seek of White's (as White chose) that Black accepted."""
    return accept(black, seek(white, color="white", **body)["id"])


def act(browser: TestClient, game: dict[str, Any], action: str,
        body: Any = None) -> httpx.Response:
    """A change to ``game`` with the browser's session (no token)."""
    return browser.post(f"/api/games/{game['id']}/{action}", json=body)


# -- seeks ---------------------------------------------------------------------


def test_a_seek_is_seen_live_and_accepting_it_starts_the_game_for_both(
        server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    eve = server.browser("192.0.2.3")  # not signed in: she watches
    with lobby(ann) as ann_lobby, lobby(eve) as eve_lobby:
        hello = ann_lobby.receive_json()
        assert hello == {"type": "lobby", "games": [], "seeks": [], "challenges": [],
                         "you": {"name": "Ann", "rating": 1500.0, "provisional": True}}
        assert eve_lobby.receive_json()["you"] is None
        posted = seek(ann, color="white", rated=True)
        assert posted["author"] == {"name": "Ann", "rating": 1500.0, "provisional": True}
        assert {key: posted[key] for key in ("minutes", "increment", "rated", "color")} == {
            "minutes": 5.0, "increment": 3.0, "rated": True, "color": "white"}
        added = next_of(eve_lobby, "seek")
        assert (added["event"], added["seek"]) == ("added", posted)
        assert server.browser("192.0.2.4").get("/api/seeks").json() == {"seeks": [posted]}

        game = accept(bob, posted["id"])
        assert (game["mode"], game["black"], game["white"], game["rated"]) == (
            "friend", "Bob", "Ann", True)
        assert game["clock"] == {"initial": 300.0, "increment": 3.0, "black": 300.0,
                                 "white": 300.0, "running": None}
        assert game["seats"] == ["black"] and game["tokens"] is None
        assert game["ratings"]["white"] == {"rating": 1500.0, "deviation": 350.0,
                                            "provisional": True, "after": None}
        # The author hears of it: her page goes to the game.
        started = next_of(ann_lobby, "started")
        assert started == {"type": "started", "game": game["id"], "color": "white",
                           "rated": True}
        removed = next_of(eve_lobby, "seek")
        assert (removed["event"], removed["seek"]["id"]) == ("removed", posted["id"])
        assert next_of(eve_lobby, "games")["games"][0]["id"] == game["id"]
    assert ann.get(f"/api/games/{game['id']}").json()["seats"] == ["white"]
    # Each acts for their own seat with their session; not for the other's.
    assert_error(act(ann, game, "moves", {"move": "11-15"}), 403, code="not_your_seat")
    assert act(bob, game, "moves", {"move": "11-15"}).status_code == 200
    assert act(ann, game, "moves", {"move": "23-19"}).status_code == 200
    assert_error(server.browser("192.0.2.5").post(f"/api/games/{game['id']}/resign"), 403)


def test_the_author_cancels_a_seek_and_nobody_else_may(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    with lobby(ann) as ann_lobby, lobby(bob) as bob_lobby:
        posted = seek(ann)
        assert next_of(bob_lobby, "seek")["event"] == "added"
        assert_error(bob.delete(f"/api/seeks/{posted['id']}"), 403, code="not_your_seek")
        assert ann.delete(f"/api/seeks/{posted['id']}").status_code == 204
        removed = next_of(bob_lobby, "seek")
        assert (removed["event"], removed["seek"]["id"]) == ("removed", posted["id"])
        assert next_of(ann_lobby, "seek")["event"] == "added"
    assert_error(bob.post(f"/api/seeks/{posted['id']}/accept"), 404, code="seek_not_found")
    assert_error(ann.delete(f"/api/seeks/{posted['id']}"), 404, code="seek_not_found")


@pytest.mark.parametrize(("body", "status"), [
    ({"minutes": 0}, 422), ({"minutes": 181}, 422), ({"minutes": "5"}, 422),
    ({"minutes": 5, "increment": 61}, 422), ({"minutes": 5, "color": "red"}, 422),
    ({"minutes": 5, "rated": 1}, 422), ({"minutes": 5, "level": 3}, 422), ({}, 422),
])
def test_a_seek_that_does_not_fit_is_refused(server: Server, body: dict[str, Any],
                                             status: int) -> None:
    ann = signed_up(server, "Ann")
    assert_error(ann.post("/api/seeks", json=body), status, code="invalid_request")
    assert ann.get("/api/seeks").json() == {"seeks": []}


def test_the_lobby_is_for_accounts(server: Server) -> None:
    visitor, ann = server.browser(), signed_up(server, "Ann", "192.0.2.2")
    posted = seek(ann)
    for answer in (visitor.post("/api/seeks", json=FIVE_PLUS_THREE),
                   visitor.post(f"/api/seeks/{posted['id']}/accept"),
                   visitor.delete(f"/api/seeks/{posted['id']}"),
                   visitor.post("/api/challenges", json={"username": "Ann", **FIVE_PLUS_THREE}),
                   visitor.get("/api/challenges")):
        assert_error(answer, 401, code="not_signed_in")
    assert_error(ann.post(f"/api/seeks/{posted['id']}/accept"), 409, code="own_seek")
    assert_error(ann.post("/api/seeks/s_nope/accept"), 404, code="seek_not_found")
    assert_error(ann.post(f"/api/seeks/{'s' * 101}/accept"), 422)


def test_seeks_are_bounded_per_account_per_address_and_in_rate(tmp_path: Path) -> None:
    limits = ServerLimits(seeks_per_account=2, seeks_per_address=3, lobby_post_rate=1.0,
                          lobby_post_burst=3)
    for server in serve(tmp_path / "games.sqlite3", Clocks(), limits=limits):
        ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob")  # one address
        seek(ann), seek(ann)
        assert_error(ann.post("/api/seeks", json=FIVE_PLUS_THREE), 429, "2 open seeks",
                     code="too_many_seeks")
        seek(bob)
        assert_error(bob.post("/api/seeks", json=FIVE_PLUS_THREE), 429, "one address",
                     code="too_many_seeks")
        carl = signed_up(server, "Carl", "192.0.2.9")
        for posted in [seek(carl), seek(carl)]:
            carl.delete(f"/api/seeks/{posted['id']}")
        seek(carl)  # the third of the burst
        carl.delete(f"/api/seeks/{carl.get('/api/seeks').json()['seeks'][-1]['id']}")
        refused = carl.post("/api/seeks", json=FIVE_PLUS_THREE)
        assert_error(refused, 429, "try again", code="too_many_seeks")
        assert refused.headers["Retry-After"] == "1"


def test_a_seek_goes_when_its_author_leaves_the_lobby(tmp_path: Path) -> None:
    for server in serve(tmp_path / "games.sqlite3", Clocks(),
                        limits=ServerLimits(seek_grace_seconds=0)):
        ann, eve = signed_up(server, "Ann"), server.browser("192.0.2.3")
        with lobby(eve) as eve_lobby:
            eve_lobby.receive_json()
            with lobby(ann) as ann_lobby:
                ann_lobby.receive_json()
                posted = seek(ann)
                assert next_of(eve_lobby, "seek")["event"] == "added"
                with lobby(ann) as second:  # a second tab: closing one is not leaving
                    second.receive_json()
                assert ann.get("/api/seeks").json()["seeks"] == [posted]
            removed = next_of(eve_lobby, "seek")  # her last socket closed: after the grace
            assert (removed["event"], removed["seek"]["id"]) == ("removed", posted["id"])
            # Posted with no lobby socket open, a seek has only the grace to live.
            unattended = seek(ann)
            assert next_of(eve_lobby, "seek")["seek"]["id"] == unattended["id"]
            assert next_of(eve_lobby, "seek") == {"type": "seek", "event": "removed",
                                                  "seek": unattended}
        assert ann.get("/api/seeks").json() == {"seeks": []}


def test_a_seek_stays_while_its_author_is_in_the_lobby(server: Server) -> None:
    ann = signed_up(server, "Ann")
    with lobby(ann) as ann_lobby:
        ann_lobby.receive_json()
        posted = seek(ann)
        with lobby(ann) as again:  # a reload, within the 5 s grace
            assert again.receive_json()["seeks"] == [posted]


def test_a_players_other_seeks_go_when_their_game_starts(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    carl = signed_up(server, "Carl", "192.0.2.3")
    first, second = seek(ann), seek(ann, minutes=10)
    bobs = seek(bob)
    carls = seek(carl)
    accept(bob, first["id"])
    assert [one["id"] for one in bob.get("/api/seeks").json()["seeks"]] == [carls["id"]]
    assert second["id"] != bobs["id"]


def test_the_lobby_socket_takes_only_pings(tmp_path: Path) -> None:
    for server in serve(tmp_path / "games.sqlite3", Clocks(),
                        limits=ServerLimits(lobby_message_bytes=100)):
        browser = server.browser()
        with lobby(browser) as socket:
            socket.receive_json()
            socket.send_json({"type": "ping"})
            assert socket.receive_json() == {"type": "pong"}
            for _ in range(20):
                socket.send_text("seek please")
                assert socket.receive_json()["type"] == "error"
            with pytest.raises(WebSocketDisconnect) as closed:
                socket.receive_json()
            assert closed.value.code == 1008
        with lobby(browser) as socket:
            socket.receive_json()
            socket.send_text("x" * 101)
            with pytest.raises(WebSocketDisconnect) as closed:
                socket.receive_json()
            assert closed.value.code == 1009
        evil = {"Origin": "http://evil.example"}  # a socket from another site
        with pytest.raises(WebSocketDisconnect) as refused, \
                browser.websocket_connect("/api/lobby", headers=evil):
            pass
        assert refused.value.code == 1008


# -- challenges ------------------------------------------------------------------


def test_a_challenge_is_seen_by_the_challenged_and_accepted(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    with lobby(ann) as ann_lobby, lobby(bob) as bob_lobby:
        ann_lobby.receive_json(), bob_lobby.receive_json()
        answer = ann.post("/api/challenges", json={"username": "bob", "minutes": 3,
                                                   "color": "black", "rated": True})
        assert answer.status_code == 201, answer.text
        made = answer.json()
        assert (made["challenger"]["name"], made["challenged"]["name"], made["color"]) == (
            "Ann", "Bob", "black")
        seen = next_of(bob_lobby, "challenge")
        assert (seen["event"], seen["challenge"], seen["reason"]) == ("added", made, None)
        assert bob.get("/api/challenges").json() == {"challenges": [made]}
        assert_error(ann.post(f"/api/challenges/{made['id']}/accept"), 403,
                     code="not_your_challenge")
        game = bob.post(f"/api/challenges/{made['id']}/accept")
        assert game.status_code == 201, game.text
        body = game.json()
        assert (body["black"], body["white"], body["rated"], body["seats"]) == (
            "Ann", "Bob", True, ["white"])
        assert next_of(ann_lobby, "challenge")["event"] == "added"
        closed = next_of(ann_lobby, "challenge")
        assert (closed["event"], closed["reason"]) == ("removed", "accepted")
        assert next_of(ann_lobby, "started") == {"type": "started", "game": body["id"],
                                                 "color": "black", "rated": True}
    assert bob.get("/api/challenges").json() == {"challenges": []}


def test_a_challenge_is_declined_or_cancelled(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    body = {"username": "Bob", **FIVE_PLUS_THREE}
    with lobby(ann) as ann_lobby:
        ann_lobby.receive_json()
        first = ann.post("/api/challenges", json=body).json()
        assert_error(ann.post(f"/api/challenges/{first['id']}/decline"), 403,
                     code="not_your_challenge")
        assert bob.post(f"/api/challenges/{first['id']}/decline").status_code == 204
        assert next_of(ann_lobby, "challenge")["event"] == "added"
        declined = next_of(ann_lobby, "challenge")
        assert (declined["event"], declined["reason"]) == ("removed", "declined")
        second = ann.post("/api/challenges", json=body).json()
        assert_error(bob.delete(f"/api/challenges/{second['id']}"), 403,
                     code="not_your_challenge")
        assert ann.delete(f"/api/challenges/{second['id']}").status_code == 204
        next_of(ann_lobby, "challenge")
        assert next_of(ann_lobby, "challenge")["reason"] == "cancelled"
    for answer in (bob.post(f"/api/challenges/{first['id']}/accept"),
                   bob.post(f"/api/challenges/{second['id']}/decline"),
                   ann.delete(f"/api/challenges/{second['id']}")):
        assert_error(answer, 404, code="challenge_not_found")


def test_a_challenge_needs_another_player_who_exists(server: Server) -> None:
    ann = signed_up(server, "Ann")
    for username, status, code in (("Nobody", 404, "user_not_found"),
                                   ("ANN", 400, "cannot_challenge")):
        assert_error(ann.post("/api/challenges", json={"username": username,
                                                       **FIVE_PLUS_THREE}),
                     status, code=code)
    assert_error(ann.post("/api/challenges", json={"username": "x" * 101, "minutes": 5}), 422)


def test_a_challenge_expires(tmp_path: Path) -> None:
    for server in serve(tmp_path / "games.sqlite3", Clocks(),
                        limits=ServerLimits(challenge_seconds=0)):
        ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
        with lobby(bob) as bob_lobby:
            bob_lobby.receive_json()
            made = ann.post("/api/challenges", json={"username": "Bob", **FIVE_PLUS_THREE})
            assert next_of(bob_lobby, "challenge")["event"] == "added"
            expired = next_of(bob_lobby, "challenge")
            assert (expired["event"], expired["reason"]) == ("removed", "expired")
        assert_error(bob.post(f"/api/challenges/{made.json()['id']}/accept"), 404,
                     code="challenge_not_found")


def test_challenges_are_bounded(tmp_path: Path) -> None:
    for server in serve(tmp_path / "games.sqlite3", Clocks(),
                        limits=ServerLimits(challenges_per_account=1)):
        ann, _ = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
        body = {"username": "Bob", **FIVE_PLUS_THREE}
        assert ann.post("/api/challenges", json=body).status_code == 201
        assert_error(ann.post("/api/challenges", json=body), 429, code="too_many_challenges")


# -- rematches -------------------------------------------------------------------


def test_a_rematch_is_offered_and_accepted_with_colours_swapped(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    game = game_between(server, bob, ann, rated=True)  # Bob Black, Ann White
    assert_error(act(ann, game, "rematch"), 409, "goes on", code="not_allowed_now")
    assert act(bob, game, "resign").status_code == 200
    with server.browser("192.0.2.3").websocket_connect(
            f"/api/games/{game['id']}/live", headers=ORIGIN) as stream:
        offered = act(ann, game, "rematch")
        assert offered.status_code == 200 and offered.json()["rematch_offer"] == "white"
        assert_error(act(ann, game, "rematch", {"action": "accept"}), 409,
                     code="not_allowed_now")  # her own offer is not hers to answer
        accepted = act(bob, game, "rematch", {"action": "accept"})
        assert accepted.status_code == 200, accepted.text
        new = accepted.json()
        assert (new["black"], new["white"], new["rated"], new["seats"]) == (
            "Ann", "Bob", True, ["white"])
        assert new["clock"] == {"initial": 300.0, "increment": 3.0, "black": 300.0,
                                "white": 300.0, "running": None}
        assert [new["ratings"][side]["rating"] for side in ("black", "white")] != [1500.0] * 2
        # The old game's stream tells both pages where to go.
        told = stream.receive_json()
        while told.get("game", {}).get("rematch") is None:
            told = stream.receive_json()
        assert told["game"]["rematch"] == new["id"]
    assert ann.get(f"/api/games/{new['id']}").json()["seats"] == ["black"]
    assert act(ann, new, "moves", {"move": "11-15"}).status_code == 200
    assert_error(act(bob, game, "rematch"), 409, "has had its rematch")


def test_a_rematch_offer_is_declined(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    game = game_between(server, bob, ann)
    act(ann, game, "resign")
    assert_error(act(bob, game, "rematch", {"action": "decline"}), 409, code="not_allowed_now")
    act(bob, game, "rematch")
    declined = act(ann, game, "rematch", {"action": "decline"})
    assert declined.json()["rematch_offer"] is None and declined.json()["rematch"] is None
    assert_error(act(bob, game, "rematch", {"action": "dance"}), 422)


def test_friends_by_invite_rematch_with_the_tokens_they_hold(server: Server) -> None:
    browser = server.browser()
    game = new_game(browser, mode="friend", clock={"minutes": 1})
    joined = browser.post(f"/api/games/{game['id']}/join",
                          json={"secret": game["invite"]["secret"]}).json()
    assert browser.post(f"/api/games/{game['id']}/resign",
                        headers=auth(game, "black")).status_code == 200
    browser.post(f"/api/games/{game['id']}/rematch", headers=auth(game, "black"))
    new = browser.post(f"/api/games/{game['id']}/rematch", json={"action": "accept"},
                       headers=auth(joined, "white")).json()
    assert new["rated"] is False and new["human"] == "white" and new["clock"]["initial"] == 60
    # The friend who played White plays Black with the token he holds, and she the other way.
    moved = browser.post(f"/api/games/{new['id']}/moves", json={"move": "11-15"},
                         headers=auth(joined, "white"))
    assert moved.status_code == 200, moved.text
    assert_error(browser.post(f"/api/games/{new['id']}/moves", json={"move": "22-18"},
                              headers=auth(joined, "white")), 403)
    assert browser.post(f"/api/games/{new['id']}/moves", json={"move": "22-18"},
                        headers=auth(game, "black")).status_code == 200


@pytest.mark.parametrize("mode", ["engine", "two-player", "analysis"])
def test_only_games_between_two_people_have_rematches(server: Server, mode: str) -> None:
    browser = server.browser()
    game = new_game(browser, mode=mode, **({"level": 1} if mode == "engine" else {}))
    seat = "owner" if mode == "analysis" else "black"
    browser.post(f"/api/games/{game['id']}/resign", headers=auth(game, seat))
    assert_error(browser.post(f"/api/games/{game['id']}/rematch", headers=auth(game, seat)),
                 409, code="not_allowed_now")


def test_a_friend_game_nobody_joined_has_no_rematch(server: Server) -> None:
    browser = server.browser()
    game = new_game(browser, mode="friend")
    browser.post(f"/api/games/{game['id']}/resign", headers=auth(game, "black"))
    assert_error(browser.post(f"/api/games/{game['id']}/rematch", headers=auth(game, "black")),
                 409, "not between two people")


# -- watching --------------------------------------------------------------------


def test_the_watch_list_puts_rated_games_first_then_the_stronger(server: Server) -> None:
    players = [signed_up(server, name, f"192.0.2.{number}")
               for number, name in enumerate(["Ann", "Bob", "Carl", "Dora", "Eve", "Finn"], 1)]
    ann, bob, carl, dora, eve, finn = players
    strong = game_between(server, ann, bob, rated=True)
    act(ann, strong, "resign")  # Bob wins: both ratings move apart from 1500
    winner_game = game_between(server, bob, carl, rated=True)  # Bob 1662 and Carl 1500
    casual = game_between(server, dora, eve)
    rated = game_between(server, ann, finn, rated=True)  # Ann 1338 and Finn 1500
    private = new_game(ann, mode="friend", private=True)
    invite = new_game(ann, mode="friend")  # nobody joined it
    listed = server.browser().get("/api/watch").json()["games"]
    assert [game["id"] for game in listed] == [winner_game["id"], rated["id"], casual["id"]]
    assert listed[0]["black"] == {"name": "Bob", "rating": pytest.approx(1662.31, abs=0.01),
                                  "provisional": True}
    assert listed[0]["clock"] == {"minutes": 5.0, "increment": 3.0}
    assert {private["id"], invite["id"], strong["id"]}.isdisjoint(game["id"] for game in listed)


def test_spectators_are_counted_on_the_board_and_in_the_list(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    game = game_between(server, bob, ann)
    path = f"/api/games/{game['id']}/live"
    with ann.websocket_connect(path, headers=ORIGIN) as player:
        assert player.receive_json()["event"] == "sync"
        assert player.receive_json() == {"type": "spectators", "count": 0}  # she plays
        eve, finn = server.browser("192.0.2.3"), server.browser("192.0.2.4")
        with eve.websocket_connect(path, headers=ORIGIN) as watcher:
            assert watcher.receive_json()["event"] == "sync"
            assert watcher.receive_json() == {"type": "spectators", "count": 1}
            assert player.receive_json() == {"type": "spectators", "count": 1}
            with finn.websocket_connect(path, headers=ORIGIN) as second:
                second.receive_json()
                assert player.receive_json() == {"type": "spectators", "count": 2}
                assert finn.get("/api/watch").json()["games"][0]["spectators"] == 2
            assert player.receive_json() == {"type": "spectators", "count": 1}
            # A move reaches the spectators too.
            act(bob, game, "moves", {"move": "11-15"})
            assert next_of(watcher, "game")["game"]["moves"] == ["11-15"]


def test_the_lobby_socket_is_told_when_games_start_and_end(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    with lobby(server.browser("192.0.2.3")) as watcher:
        watcher.receive_json()
        game = game_between(server, bob, ann)
        assert [one["id"] for one in next_of(watcher, "games")["games"]] == [game["id"]]
        act(ann, game, "resign")
        assert next_of(watcher, "games")["games"] == []


def test_a_private_games_stream_opens_with_the_session_of_a_seat(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    game = new_game(ann, mode="friend", private=True)
    with ann.websocket_connect(f"/api/games/{game['id']}/live", headers=ORIGIN) as stream:
        assert stream.receive_json()["game"]["id"] == game["id"]
    with pytest.raises(WebSocketDisconnect) as refused, \
            bob.websocket_connect(f"/api/games/{game['id']}/live", headers=ORIGIN) as stream:
        stream.receive_json()
    assert refused.value.code == 1008
