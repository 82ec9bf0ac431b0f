"""Accounts and sessions through the HTTP API: sign up, in and out, passwords, sessions, seats.

Each browser is a client of its own (its own cookie jar and address) over one
app. Password attempts are counted on a clock the test moves, and sessions
timed by another: no sleeps. Passwords are hashed with cheap Argon2id
parameters so that the tests run quickly; the defaults are the server's.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from argon2 import Parameters, PasswordHasher, extract_parameters
from fastapi import FastAPI
from fastapi.testclient import TestClient

from doublecorner.web import store as store_module
from doublecorner.web.http_protocol import server_config
from doublecorner.web.limits import ServerLimits
from doublecorner.web.store import GameStore
from doublecorner.web.tokens import token_hash
from tests.test_web_api import ORIGIN, assert_error, auth, make_app, new_game

EVIL = {"Origin": "http://evil.example"}
PASSWORD = "correct horse battery"
MONTH = 30 * 24 * 3600


def fast_hasher(memory_cost: int = 1024) -> PasswordHasher:
    """Argon2id with little work: the tests hash many passwords."""
    return PasswordHasher(time_cost=1, memory_cost=memory_cost, parallelism=1)


@dataclass
class Clocks:
    """The clock of the password attempts (monotonic) and the wall clock of sessions."""

    monotonic: float = 0.0
    wall: float = 1_800_000_000.0


@dataclass
class Server:
    """One app, and a browser per address and cookie jar."""

    app: FastAPI
    clocks: Clocks
    browsers: list[TestClient] = field(default_factory=list)

    def browser(self, address: str = "192.0.2.1", **headers: str) -> TestClient:
        """A new browser (its own cookies) on ``address``, sending the page's Origin."""
        browser = TestClient(self.app, client=(address, 50000), headers={**ORIGIN, **headers})
        self.browsers.append(browser)
        return browser

    @property
    def store(self) -> GameStore:
        store: GameStore = self.app.state.games.store
        return store


def serve(db_path: Path, clocks: Clocks, **options: Any) -> Iterator[Server]:
    options.setdefault("password_hasher", fast_hasher())
    app = make_app(db_path, limits_clock=lambda: clocks.monotonic, now=lambda: clocks.wall,
                   **options)
    with TestClient(app):  # the app's lifespan: started once, closed at the end
        yield Server(app, clocks)


@pytest.fixture
def clocks() -> Clocks:
    return Clocks()


@pytest.fixture
def server(tmp_path: Path, clocks: Clocks) -> Iterator[Server]:
    yield from serve(tmp_path / "games.sqlite3", clocks)


def sign_up(browser: TestClient, username: str = "Ann", password: str = PASSWORD,
            **headers: str) -> httpx.Response:
    answer = browser.post("/api/account/signup", json={"username": username,
                                                       "password": password},
                          headers=headers)
    return answer


def sign_in(browser: TestClient, username: str = "Ann", password: str = PASSWORD,
            **headers: str) -> httpx.Response:
    return browser.post("/api/account/signin", json={"username": username,
                                                     "password": password}, headers=headers)


def signed_up(server: Server, username: str, address: str = "192.0.2.1") -> TestClient:
    browser = server.browser(address)
    answer = sign_up(browser, username)
    assert answer.status_code == 201, answer.text
    return browser


def whoami(browser: TestClient) -> str | None:
    answer = browser.get("/api/account")
    if answer.status_code == 401:
        return None
    assert answer.status_code == 200, answer.text
    return str(answer.json()["username"])


def cookie_attributes(answer: httpx.Response) -> dict[str, str]:
    """The attributes of the session cookie the answer sets (lower-case names)."""
    (header,) = [value for value in answer.headers.get_list("set-cookie")
                 if value.startswith("doublecorner_session=")]
    parts = [part.strip() for part in header.split(";")]
    attributes = {name.lower(): value for name, _, value in
                  (part.partition("=") for part in parts[1:])}
    attributes["value"] = parts[0].partition("=")[2]
    return attributes


def move(browser: TestClient, game: dict[str, Any], text: str,
         headers: dict[str, str] | None = None) -> httpx.Response:
    return browser.post(f"/api/games/{game['id']}/moves", json={"move": text},
                        headers=headers or {})


# -- signing up, in and out ----------------------------------------------------


def test_a_sign_up_signs_the_browser_in_with_a_session_cookie(server: Server) -> None:
    browser = server.browser(**{"User-Agent": "Firefox/140"})
    assert whoami(browser) is None
    assert_error(browser.get("/api/account"), 401, "sign in", code="not_signed_in")
    answer = sign_up(browser, "Ann_1")
    assert answer.status_code == 201, answer.text
    assert answer.json()["username"] == "Ann_1" and answer.json()["claimed_games"] == 0
    cookie = cookie_attributes(answer)
    assert {"httponly", "path", "samesite", "max-age"} <= set(cookie) and "secure" not in cookie
    assert cookie["path"] == "/" and cookie["samesite"] == "Lax"
    assert cookie["max-age"] == str(MONTH) and len(cookie["value"]) == 43
    assert whoami(browser) == "Ann_1"
    (session,) = browser.get("/api/account/sessions").json()["sessions"]
    assert session["current"] and session["user_agent"] == "Firefox/140"
    assert session["address"] == "192.0.2.1"
    # The server keeps the secret's hash, not the secret.
    assert server.store.session(cookie["value"]) is None


def test_the_cookie_is_secure_when_served_over_https(tmp_path: Path, clocks: Clocks) -> None:
    for server in serve(tmp_path / "games.sqlite3", clocks):
        browser = TestClient(server.app, base_url="https://testserver",
                             headers={"Origin": "https://testserver"})
        answer = sign_up(browser)
        assert answer.status_code == 201, answer.text
        assert "secure" in cookie_attributes(answer)
        assert whoami(browser) == "Ann"


@pytest.mark.parametrize(("trusted", "secure"), [(None, False), ("127.0.0.1", True)])
def test_a_trusted_proxys_https_makes_the_cookie_secure(tmp_path: Path, trusted: str | None,
                                                        secure: bool) -> None:
    # As serve runs the app: X-Forwarded-Proto counts only from --forwarded-allow-ips.
    app = make_app(tmp_path / "games.sqlite3", password_hasher=fast_hasher(),
                   allowed_hosts=["127.0.0.1"])
    config = server_config(app, ServerLimits(), forwarded_allow_ips=trusted)
    config.load()

    async def sign_up_behind_the_proxy() -> httpx.Response:
        transport = httpx.ASGITransport(app=config.loaded_app, client=("127.0.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.post(
                "/api/account/signup", json={"username": "Ann", "password": PASSWORD},
                headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7",
                         "Origin": "https://127.0.0.1" if secure else "http://127.0.0.1"})

    answer = asyncio.run(sign_up_behind_the_proxy())
    assert answer.status_code == 201, answer.text
    assert ("secure" in cookie_attributes(answer)) is secure


@pytest.mark.parametrize(("username", "words"), [
    ("ab", "3 to 20"), ("a" * 21, "3 to 20"), ("Ann Smith", "3 to 20"), ("Ann!", "3 to 20"),
    ("", "3 to 20"), ("Ännie", "3 to 20"), ("admin", "reserved"), ("ENGINE", "reserved"),
    ("Anonymous", "reserved"), ("human", "reserved"), ("doublecorner", "reserved")])
def test_usernames_follow_the_rules(server: Server, username: str, words: str) -> None:
    browser = server.browser()
    assert_error(sign_up(browser, username), 400, words, code="invalid_username")
    assert whoami(browser) is None


def test_a_username_is_unique_ignoring_case_and_shown_as_typed(server: Server) -> None:
    assert whoami(signed_up(server, "Ann-Lee_3")) == "Ann-Lee_3"
    assert_error(sign_up(server.browser(), "ann-lee_3"), 409, "taken", code="username_taken")
    assert whoami(signed_up(server, "Bob")) == "Bob"
    assert sign_in(server.browser(), "ANN-LEE_3").json()["username"] == "Ann-Lee_3"


@pytest.mark.parametrize("password", ["short12", "x" * 257, "y" * 60_000])
def test_a_password_has_8_to_256_characters(server: Server, password: str) -> None:
    browser = server.browser()
    answer = sign_up(browser, "Ann", password)
    assert_error(answer, 400, "8 to 256 characters", f"not {len(password)}",
                 code="invalid_password")
    assert password not in answer.text
    assert server.store.account_named("Ann") is None


def test_sign_in_and_sign_out(server: Server) -> None:
    first = signed_up(server, "Ann")
    second = server.browser("198.51.100.2")
    answer = sign_in(second, "ann")
    assert answer.status_code == 200 and cookie_attributes(answer)["httponly"] == ""
    assert whoami(second) == "Ann"
    out = second.post("/api/account/signout")
    assert out.status_code == 204 and cookie_attributes(out)["max-age"] == "0"
    assert whoami(second) is None and whoami(first) == "Ann"
    assert second.post("/api/account/signout").status_code == 204  # already out: no harm


def test_no_such_user_and_a_wrong_password_get_the_same_answer_after_the_same_work(
        tmp_path: Path, clocks: Clocks) -> None:
    checks: list[Parameters] = []

    class CountingHasher(PasswordHasher):
        def verify(self, hash: str | bytes, password: str | bytes) -> bool:
            checks.append(extract_parameters(str(hash)))
            return bool(super().verify(hash, password))

    for server in serve(tmp_path / "games.sqlite3", clocks, password_hasher=CountingHasher(
            time_cost=1, memory_cost=1024, parallelism=1)):
        signed_up(server, "Ann")
        browser = server.browser()
        wrong = sign_in(browser, "Ann", "not the password")
        after_wrong = list(checks)
        nobody = sign_in(browser, "Nobody", "not the password")
        assert (wrong.status_code, wrong.json()) == (nobody.status_code, nobody.json())
        assert_error(wrong, 401, "wrong username or password", code="wrong_credentials")
        # One Argon2id check each, with the same parameters: the unknown name is checked
        # against a dummy hash rather than answered at once.
        assert len(after_wrong) == 1 and checks == [after_wrong[0], after_wrong[0]]
        assert whoami(browser) is None


def test_a_hash_made_with_older_parameters_is_remade_at_sign_in(tmp_path: Path,
                                                                clocks: Clocks) -> None:
    path = tmp_path / "games.sqlite3"
    for server in serve(path, clocks, password_hasher=fast_hasher(memory_cost=1024)):
        signed_up(server, "Ann")
    for server in serve(path, clocks, password_hasher=fast_hasher(memory_cost=2048)):
        account = server.store.account_named("Ann")
        assert account is not None
        assert extract_parameters(account.password_hash).memory_cost == 1024
        assert sign_in(server.browser()).status_code == 200
        account = server.store.account_named("Ann")
        assert account is not None
        assert extract_parameters(account.password_hash).memory_cost == 2048
        assert sign_in(server.browser()).status_code == 200


# -- rate limits ---------------------------------------------------------------


def test_sign_in_attempts_are_limited_per_address(server: Server) -> None:
    signed_up(server, "Ann", address="198.51.100.9")
    browser = server.browser("192.0.2.1")
    names = [f"user{n}" for n in range(10)]  # not one account: the address is what counts
    assert [sign_in(browser, name).status_code for name in names] == [401] * 10
    refused = sign_in(browser, "Ann")
    assert_error(refused, 429, "from this address", code="too_many_attempts")
    assert refused.headers["Retry-After"] == "6"  # 10 a minute: one every 6 s
    assert_error(sign_up(browser, "Newcomer"), 429)  # sign-ups count too
    assert sign_in(server.browser("192.0.2.2"), "Ann").status_code == 200  # another address
    server.clocks.monotonic += 6
    assert sign_in(browser, "Ann").status_code == 200
    assert whoami(browser) == "Ann"


def test_sign_in_attempts_are_limited_per_account_with_a_growing_lock(server: Server) -> None:
    signed_up(server, "Ann", address="198.51.100.9")
    addresses = iter(f"203.0.113.{n}" for n in range(1, 200))

    def attempt(password: str = "wrong password", name: str = "Ann") -> httpx.Response:
        return sign_in(server.browser(next(addresses)), name, password)

    # Five failures, each from another address: the fifth locks the name for a minute.
    assert [attempt().status_code for _ in range(5)] == [401] * 5
    locked = attempt(PASSWORD)  # even the right password waits
    assert_error(locked, 429, "for this account", code="too_many_attempts")
    assert locked.headers["Retry-After"] == "60"
    assert attempt(name="Bob").status_code == 401  # other names are not held up
    server.clocks.monotonic += 60
    assert attempt().status_code == 401  # the sixth failure in a row: two minutes
    assert attempt(PASSWORD).headers["Retry-After"] == "120"
    server.clocks.monotonic += 120
    assert attempt(PASSWORD).status_code == 200  # a success ends the run of failures
    assert attempt().status_code == 401
    assert attempt(PASSWORD).status_code == 200


def test_an_unknown_name_is_limited_like_an_account(server: Server) -> None:
    # Otherwise the limits would tell which names exist.
    addresses = iter(f"203.0.113.{n}" for n in range(1, 20))
    answers = [sign_in(server.browser(next(addresses)), "Nobody") for _ in range(6)]
    assert [answer.status_code for answer in answers] == [401] * 5 + [429]
    assert answers[-1].headers["Retry-After"] == "60"


# -- sessions ------------------------------------------------------------------


def test_a_session_slides_and_ends_after_30_days_unused(server: Server) -> None:
    browser = signed_up(server, "Ann")
    server.clocks.wall += 60
    assert "set-cookie" not in browser.get("/api/account").headers  # not written every request
    server.clocks.wall += 3600
    answer = browser.get("/api/account")
    assert cookie_attributes(answer)["max-age"] == str(MONTH)  # used again: a new month
    server.clocks.wall += MONTH - 1
    assert whoami(browser) == "Ann"
    server.clocks.wall += MONTH + 1
    answer = browser.get("/api/account")
    assert_error(answer, 401)
    assert cookie_attributes(answer)["max-age"] == "0"  # the browser forgets it


def test_sessions_are_listed_and_revoked(server: Server) -> None:
    first = signed_up(server, "Ann")
    second = server.browser("198.51.100.2", **{"User-Agent": "x" * 5000})
    sign_in(second)
    listed = first.get("/api/account/sessions").json()["sessions"]
    assert len(listed) == 2 and [one["current"] for one in listed].count(True) == 1
    other = next(one for one in listed if not one["current"])
    assert other["user_agent"] == "x" * 200 and other["address"] == "198.51.100.2"
    assert first.delete(f"/api/account/sessions/{other['id']}").status_code == 204
    answer = second.get("/api/account")
    assert_error(answer, 401)
    assert cookie_attributes(answer)["max-age"] == "0"
    assert_error(first.delete(f"/api/account/sessions/{other['id']}"), 404, "no session",
                 code="session_not_found")
    assert_error(second.delete(f"/api/account/sessions/{other['id']}"), 401)
    (mine,) = first.get("/api/account/sessions").json()["sessions"]
    answer = first.delete(f"/api/account/sessions/{mine['id']}")
    assert answer.status_code == 204 and cookie_attributes(answer)["max-age"] == "0"
    assert whoami(first) is None


def test_a_new_sign_in_ends_the_browsers_old_session(server: Server) -> None:
    browser = signed_up(server, "Ann")
    signed_up(server, "Bob")
    assert sign_in(browser, "Bob").status_code == 200
    assert whoami(browser) == "Bob"
    ann = server.store.account_named("Ann")
    assert ann is not None and server.store.sessions_of(ann.id) == []  # this browser's is gone


def test_a_password_change_ends_the_other_sessions(server: Server) -> None:
    first = signed_up(server, "Ann")
    second = server.browser("198.51.100.2")
    sign_in(second)
    change = "/api/account/password"
    assert_error(first.post(change, json={"current": "not it at all", "new": "n" * 12}), 403,
                 code="wrong_password")
    assert_error(first.post(change, json={"current": PASSWORD, "new": "short"}), 400,
                 "8 to 256")
    answer = first.post(change, json={"current": PASSWORD, "new": "a new password"})
    assert answer.status_code == 200 and answer.json() == {"ended_sessions": 1}
    assert whoami(first) == "Ann" and whoami(second) is None
    assert sign_in(second).status_code == 401
    assert sign_in(second, password="a new password").status_code == 200
    assert_error(server.browser().post(change, json={"current": PASSWORD, "new": "n" * 9}),
                 401)


# -- origins -------------------------------------------------------------------


def test_a_session_cookie_cannot_act_from_another_origin(server: Server) -> None:
    browser = signed_up(server, "Ann")
    game = new_game(browser, mode="two-player")
    cookie = {"Cookie": f"doublecorner_session={browser.cookies['doublecorner_session']}"}
    foreign = TestClient(server.app)  # no Origin unless given; the cookie only when given
    for headers in (EVIL, {}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"}):
        for answer in (move(foreign, game, "11-15", {**cookie, **headers}),
                       foreign.post("/api/games", json={"mode": "two-player"},
                                    headers={**cookie, **headers}),
                       foreign.post("/api/account/signout", headers={**cookie, **headers}),
                       foreign.request("DELETE", "/api/account", json={"password": PASSWORD},
                                       headers={**cookie, **headers})):
            assert_error(answer, 403)
    assert browser.get(f"/api/games/{game['id']}").json()["moves"] == []
    assert whoami(browser) == "Ann"
    assert move(browser, game, "11-15").status_code == 200  # from its own page: it acts


def test_signing_in_or_up_needs_the_servers_own_origin(server: Server) -> None:
    # Login CSRF: another site must not sign the browser into an account it chose.
    signed_up(server, "Ann")
    foreign = TestClient(server.app)
    for headers in (EVIL, {}, {"Origin": "null"}):
        assert_error(sign_in(foreign, **headers), 403)
        assert_error(sign_up(foreign, "Mallory", **headers), 403)
    assert "doublecorner_session" not in foreign.cookies
    assert server.store.account_named("Mallory") is None
    assert sign_in(foreign, **ORIGIN).status_code == 200


# -- seats ---------------------------------------------------------------------


def test_a_signed_in_players_seat_acts_with_its_session_or_its_token(server: Server) -> None:
    ann = signed_up(server, "Ann")
    game = new_game(ann, mode="engine", human="black", level=1)
    assert game["black"] == "Ann" and game["white"].startswith("doublecorner")
    answer = move(ann, game, "11-15")  # the session, no token
    assert answer.status_code == 200, answer.text
    anonymous = server.browser("198.51.100.5")  # the token, no session
    reply = move(anonymous, game, answer.json()["legal_moves"][0]["move"], auth(game, "black"))
    assert reply.status_code == 200 and reply.json()["ply"] == 4
    private = new_game(ann, mode="analysis", private=True)
    assert ann.get(f"/api/games/{private['id']}").status_code == 200  # a seat of the account
    assert_error(anonymous.get(f"/api/games/{private['id']}"), 403)


def test_a_seat_cannot_be_taken_by_another_account(server: Server) -> None:
    ann = signed_up(server, "Ann")
    bob = signed_up(server, "Bob", address="198.51.100.2")
    game = new_game(ann, mode="two-player")
    assert_error(move(bob, game, "11-15"), 403, "holds no seat", code="not_your_seat")
    assert_error(move(bob, game, "11-15", auth(game, "black")), 403, "another account",
                 code="not_your_seat")
    assert_error(bob.post(f"/api/games/{game['id']}/resign", headers=auth(game, "white")),
                 403, "another account", code="not_your_seat")
    # Bob signs in again with Ann's tokens: they stay Ann's.
    answer = bob.post("/api/account/signin", json={"username": "Bob", "password": PASSWORD},
                      headers=auth(game, "black"))
    assert answer.json()["claimed_games"] == 0
    assert_error(move(bob, game, "11-15"), 403)
    assert ann.get(f"/api/games/{game['id']}").json()["moves"] == []
    # Ann holds both sides of her two-player game: her session acts for the side to move.
    assert move(ann, game, "11-15").status_code == 200
    assert move(ann, game, "23-19").json()["moves"] == ["11-15", "23-19"]


def test_a_friend_game_seat_taken_by_an_account_is_its_own(server: Server) -> None:
    ann = signed_up(server, "Ann")
    bob = signed_up(server, "Bob", address="198.51.100.2")
    carol = signed_up(server, "Carol", address="198.51.100.3")
    game = new_game(ann, mode="friend", human="black")
    assert (game["black"], game["white"]) == ("Ann", "human")
    secret = game["invite"]["secret"]
    joined = bob.post(f"/api/games/{game['id']}/join", json={"secret": secret})
    assert joined.status_code == 200 and (joined.json()["black"], joined.json()["white"]) == (
        "Ann", "Bob")
    assert_error(carol.post(f"/api/games/{game['id']}/join", json={"secret": secret}), 403)
    assert move(ann, game, "11-15").status_code == 200
    assert_error(move(carol, game, "23-19"), 403)
    assert_error(move(carol, game, "23-19", auth(joined.json(), "white")), 403,
                 code="not_your_seat")
    assert_error(move(ann, game, "23-19"), 403)  # Ann's seat is black: not her turn
    assert move(bob, game, "23-19").status_code == 200


def test_a_signed_in_player_keeps_the_games_of_the_tokens_the_browser_holds(
        server: Server) -> None:
    browser = server.browser()
    games = [new_game(browser, mode="two-player"), new_game(browser, mode="analysis"),
             new_game(browser, mode="friend")]
    tokens = ", ".join(token for game in games for token in game["tokens"].values())
    answer = sign_up(browser, "Ann", Authorization=f"Bearer {tokens}")
    assert answer.status_code == 201 and answer.json()["claimed_games"] == 3
    listed = browser.get("/api/games").json()["games"]  # the session, no token
    assert {game["id"] for game in listed} == {game["id"] for game in games}
    assert move(browser, games[0], "11-15").status_code == 200
    assert server.browser("198.51.100.4").get("/api/games").json()["games"] == []
    assert_error(sign_in(browser, Authorization="Bearer " + ", ".join(["t"] * 201)),
                 400, "at most 200")


# -- deleting an account --------------------------------------------------------


def test_deleting_an_account_keeps_its_games(server: Server) -> None:
    ann = signed_up(server, "Ann")
    bob = signed_up(server, "Bob", address="198.51.100.2")
    engine_game = new_game(ann, mode="engine", human="black", level=1)
    friend_game = new_game(bob, mode="friend", human="white")
    joined = ann.post(f"/api/games/{friend_game['id']}/join",
                      json={"secret": friend_game["invite"]["secret"]}).json()
    assert (joined["black"], joined["white"]) == ("Ann", "Bob")
    moved = move(ann, engine_game, "11-15")
    assert moved.status_code == 200, moved.text
    ann_id = server.store.account_named("Ann").id  # type: ignore[union-attr]
    delete = "/api/account"
    assert_error(ann.request("DELETE", delete, json={"password": "not the password"}), 403,
                 code="wrong_password")
    answer = ann.request("DELETE", delete, json={"password": PASSWORD})
    assert answer.status_code == 204 and cookie_attributes(answer)["max-age"] == "0"
    reader = server.browser("198.51.100.7")
    kept = reader.get(f"/api/games/{engine_game['id']}").json()
    assert kept["black"] == "deleted player" and len(kept["moves"]) == 2
    friend = reader.get(f"/api/games/{friend_game['id']}").json()
    assert (friend["black"], friend["white"]) == ("deleted player", "Bob")
    for game in (engine_game, friend_game):  # no seat is Ann's any more
        assert ann_id not in server.store.seat_holders(game["id"]).values()
    assert whoami(ann) is None and sign_in(server.browser()).status_code == 401
    assert_error(sign_up(server.browser(), "ann"), 409, "taken")  # the name stays taken
    # The games go on: the seats' tokens still act, and Bob's session for his own.
    assert move(reader, friend_game, "11-15", auth(joined, "black")).status_code == 200
    assert move(bob, friend_game, "23-19").status_code == 200
    legal = moved.json()["legal_moves"][0]["move"]
    assert move(reader, engine_game, legal, auth(engine_game, "black")).status_code == 200


# -- passwords stay secret ------------------------------------------------------


def test_a_password_is_never_in_logs_or_answers(server: Server, tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    marker = "Marker-Secret-7f3a9c"
    browser = server.browser()
    answers: list[httpx.Response] = []
    with caplog.at_level(logging.DEBUG):
        answers.append(sign_up(browser, "Ann", marker))
        answers.append(sign_in(server.browser("198.51.100.2"), "Ann", marker + "x"))
        answers.append(sign_in(server.browser("198.51.100.3"), "Nobody", marker))
        for body in ({"username": "Ann", "password": marker, "remember": True},
                     {"username": 5, "password": marker},
                     {"username": "Ann", "password": [marker]},
                     {"username": "Ann", "password": marker * 40},
                     {"username": marker, "password": marker}):
            answers.append(browser.post("/api/account/signin", json=body))
        for text in (f'{{"username": "Ann", "password": "{marker}"',
                     f'{{"username": "Ann", "password": "{marker}", "password": "{marker}"}}',
                     f'{{"username": "Ann", "password": "{marker}\x01"}}'):
            answers.append(browser.post("/api/account/signin", content=text.encode(),
                                        headers={"Content-Type": "application/json"}))
        answers.append(browser.post("/api/account/password",
                                    json={"current": marker + "y", "new": marker + "z"}))
        answers.append(browser.post("/api/account/password",
                                    json={"current": marker, "new": "short"}))
        answers.append(browser.request("DELETE", "/api/account", json={"password": "x" + marker}))
    statuses = [answer.status_code for answer in answers]
    assert statuses == [201, 401, 401, 422, 422, 422, 400, 401, 422, 422, 422, 403, 400, 403]
    for answer in answers:
        assert marker not in answer.text and marker not in str(answer.headers)
    assert caplog.records  # the capture saw the app's and the libraries' messages
    assert marker not in caplog.text
    for file in tmp_path.iterdir():  # nor in the database, its journal or anything else
        assert marker.encode() not in file.read_bytes()


# -- the database ----------------------------------------------------------------


def test_a_database_of_the_previous_version_gains_accounts(tmp_path: Path,
                                                          clocks: Clocks) -> None:
    path = tmp_path / "games.sqlite3"
    connection = sqlite3.connect(path)
    connection.executescript(store_module._SCHEMA + store_module._MIGRATIONS[2])
    connection.executescript("""
        INSERT INTO games (id, mode, created, updated, black, white, start_fen, moves, tags,
                           result, creator)
            VALUES ('g_old', 'two-player', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z',
                    'human', 'human', 'B:W21-32:B1-12', '11-15', '{}', '*', '10.0.0.1');
        PRAGMA user_version = 2;
    """)
    token = "an old token"
    connection.execute("INSERT INTO seats (game_id, seat, token_hash) VALUES (?, ?, ?)",
                       ("g_old", "black", token_hash(token)))
    connection.commit()
    connection.close()
    for server in serve(path, clocks):
        browser = server.browser()
        answer = sign_up(browser, "Ann", Authorization=f"Bearer {token}")
        assert answer.status_code == 201 and answer.json()["claimed_games"] == 1
        assert [game["id"] for game in browser.get("/api/games").json()["games"]] == ["g_old"]
        account = server.store.account_named("Ann")
        assert account is not None and account.rating.rating == 1500.0
        assert account.rating.deviation == 350.0 and account.rating.volatility == 0.06
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == store_module.SCHEMA_VERSION
    connection.close()

