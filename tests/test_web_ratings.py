"""Rated games and profiles: every way a rated game ends rates both players once, as Glicko-2 says.

The expected ratings are computed here with ``doublecorner.ratings`` (Glickman's
arithmetic, tested on his worked example in test_ratings.py) and compared with
what the server stored and shows. A rated game is rated in the same write as
its end, once: reading it again, offering a rematch or restarting the server
changes nothing, and a write that fails leaves neither the end nor the
ratings. Clocks are moved by the test (``time.time``), or made so short that
the referee's timer ends the game while the test waits on the live stream.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from doublecorner.board import Board
from doublecorner.ratings import PROVISIONAL_DEVIATION, Rating, rate_game
from doublecorner.web import store as store_module
from doublecorner.web.limits import ServerLimits
from doublecorner.web.record import GameMode, GameRecord
from doublecorner.web.store import GameStore
from doublecorner.web.tokens import Seat, new_token, token_hash
from tests.test_web_accounts import Clocks, signed_up
from tests.test_web_api import ORIGIN, assert_error, auth, new_game
from tests.test_web_lobby import Server, act, game_between, next_of, serve


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    yield from serve(tmp_path / "games.sqlite3", Clocks())


def rating_of(browser: TestClient, name: str) -> Rating:
    rating = browser.get(f"/api/users/{name}").json()["rating"]
    found = Rating(rating["rating"], rating["deviation"])
    assert rating["provisional"] is (found.deviation > PROVISIONAL_DEVIATION)
    return found


def assert_rated(server: Server, black: str, white: str, black_score: float,
                 game: dict[str, Any], before: tuple[Rating, Rating] = (Rating(), Rating())
                 ) -> None:
    """Both players' ratings, histories and the game's ratings are Glicko-2's for the score."""
    expected = rate_game(*before, black_score)
    reader = server.browser("198.51.100.1")
    for name, rating, old in zip((black, white), expected, before, strict=True):
        shown = reader.get(f"/api/users/{name}").json()
        assert shown["rating"]["rating"] == pytest.approx(rating.rating, abs=1e-9)
        assert shown["rating"]["deviation"] == pytest.approx(rating.deviation, abs=1e-9)
        assert [point["game"] for point in shown["history"]].count(game["id"]) == 1
        point = next(point for point in shown["history"] if point["game"] == game["id"])
        assert point["before"] == pytest.approx(old.rating)
        assert point["rating"] == pytest.approx(rating.rating)
    ratings = reader.get(f"/api/games/{game['id']}").json()["ratings"]
    for side, rating in zip(("black", "white"), expected, strict=True):
        assert ratings[side]["after"]["rating"] == pytest.approx(rating.rating)


def rated_game_from(server: Server, fen: str, black: str, white: str) -> dict[str, Any]:
    """A rated game between two accounts from the position ``fen``, stored as the lobby would
    (the lobby starts from the usual start; the rules' endings need a shorter way)."""
    store = server.store
    holders = {Seat.BLACK: store.account_named(black), Seat.WHITE: store.account_named(white)}
    record = GameRecord(id=f"g_{new_token()[:16]}", mode=GameMode.FRIEND, created="2026-01-01",
                        updated="2026-01-01", black=black, white=white,
                        start_fen=Board(fen).fen(), rated=True)
    store.insert([record], seats=[(record.id, seat, token_hash(new_token())) for seat in holders],
                 holders={seat: account.id for seat, account in holders.items() if account})
    return {"id": record.id}


# -- each ending -------------------------------------------------------------------


@pytest.mark.parametrize(("ending", "black_score"), [
    ("black resigns", 0.0), ("white resigns", 1.0), ("a draw agreed", 0.5)])
def test_an_ending_by_the_players_rates_both(server: Server, ending: str,
                                             black_score: float) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    game = game_between(server, ann, bob, rated=True)  # Ann Black, Bob White
    act(ann, game, "moves", {"move": "11-15"})
    if ending == "black resigns":
        over = act(ann, game, "resign")
    elif ending == "white resigns":
        over = act(bob, game, "resign")
    else:
        act(bob, game, "draw", {"action": "offer"})
        over = act(ann, game, "draw", {"action": "accept"})
    assert over.status_code == 200, over.text
    assert over.json()["ratings"]["black"]["after"] is not None  # the answer shows it at once
    assert_rated(server, "Ann", "Bob", black_score, game)


def test_a_win_on_the_board_rates_both(server: Server) -> None:
    signed_up(server, "Ann")
    bob = signed_up(server, "Bob", "192.0.2.2")
    game = rated_game_from(server, "W:W18:B14", "Ann", "Bob")
    over = act(bob, game, "moves", {"move": "18x9"})
    assert over.json()["outcome"]["reason"] == "no legal moves"
    assert_rated(server, "Ann", "Bob", 0.0, game)


def test_a_claimed_repetition_rates_both_as_a_draw(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    game = rated_game_from(server, "B:WK32:BK1", "Ann", "Bob")
    for move, player in zip(["1-6", "32-27", "6-1", "27-32"] * 2, [ann, bob] * 4, strict=True):
        assert act(player, game, "moves", {"move": move}).status_code == 200
    over = act(ann, game, "claim-draw")
    assert over.json()["outcome"]["reason"] == "threefold repetition", over.text
    assert_rated(server, "Ann", "Bob", 0.5, game)


def test_a_flag_that_falls_is_rated_at_the_next_read(server: Server,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    now = [time.time()]
    monkeypatch.setattr(time, "time", lambda: now[0])
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    game = game_between(server, ann, bob, rated=True, minutes=1, increment=0)
    act(ann, game, "moves", {"move": "11-15"})  # White's clock runs
    now[0] += 61
    read = server.browser("192.0.2.3").get(f"/api/games/{game['id']}").json()
    assert read["outcome"] == {"result": "1-0", "reason": "time forfeit", "winner": "black"}
    assert read["ratings"]["white"]["after"] is not None
    assert_rated(server, "Ann", "Bob", 1.0, game)


def test_the_referee_ends_a_game_whose_flag_falls_with_nobody_reading(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    game = game_between(server, ann, bob, rated=True, minutes=0.001, increment=0)
    with server.browser("192.0.2.3").websocket_connect(
            f"/api/games/{game['id']}/live", headers=ORIGIN) as stream:
        next_of(stream, "game")
        act(ann, game, "moves", {"move": "11-15"})  # White has 0.06 s
        assert next_of(stream, "game")["game"]["moves"] == ["11-15"]
        flagged = next_of(stream, "game")["game"]
    assert flagged["outcome"]["reason"] == "time forfeit"
    assert_rated(server, "Ann", "Bob", 1.0, game)


def test_a_player_who_leaves_a_rated_game_loses_by_abandonment(tmp_path: Path) -> None:
    for server in serve(tmp_path / "games.sqlite3", Clocks(),
                        limits=ServerLimits(abandon_seconds=0)):
        ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
        game = game_between(server, ann, bob, rated=True)
        casual = game_between(server, ann, bob)
        path = f"/api/games/{casual['id']}/live"
        with ann.websocket_connect(path, headers=ORIGIN) as stream:  # casual: nobody loses
            with bob.websocket_connect(path, headers=ORIGIN) as bob_stream:
                next_of(bob_stream, "spectators")
            next_of(stream, "spectators")
        path = f"/api/games/{game['id']}/live"
        with ann.websocket_connect(path, headers=ORIGIN) as stream:
            assert next_of(stream, "game")["event"] == "sync"
            with bob.websocket_connect(path, headers=ORIGIN) as bob_stream:
                next_of(bob_stream, "game")
                act(ann, game, "moves", {"move": "11-15"})
                assert next_of(stream, "game")["game"]["moves"] == ["11-15"]
            # Bob has left while Ann is there: after the timeout, he has lost.
            over = next_of(stream, "game")["game"]
        assert over["outcome"] == {"result": "1-0", "reason": "abandonment", "winner": "black"}
        assert_rated(server, "Ann", "Bob", 1.0, game)
        assert bob.get(f"/api/games/{casual['id']}").json()["outcome"] is None


def test_a_player_not_yet_seen_has_not_left(tmp_path: Path) -> None:
    for server in serve(tmp_path / "games.sqlite3", Clocks(),
                        limits=ServerLimits(abandon_seconds=0)):
        ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
        game = game_between(server, ann, bob, rated=True)
        path = f"/api/games/{game['id']}/live"
        with bob.websocket_connect(path, headers=ORIGIN) as bob_stream:
            assert next_of(bob_stream, "game")["event"] == "sync"
            # Ann's page is on its way: she was never here, so she has not left.
            with ann.websocket_connect(path, headers=ORIGIN) as ann_stream:
                next_of(ann_stream, "game")
                act(ann, game, "moves", {"move": "11-15"})
                moved = next_of(bob_stream, "game")["game"]
                assert (moved["moves"], moved["outcome"]) == (["11-15"], None)


# -- exactly once --------------------------------------------------------------------


def test_a_rated_game_is_rated_once_whatever_follows(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    for server in serve(path, Clocks()):
        ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
        game = game_between(server, ann, bob, rated=True)
        act(bob, game, "resign")
        for _ in range(3):
            ann.get(f"/api/games/{game['id']}")
        act(ann, game, "rematch")  # a write of the finished game
        assert_error(act(ann, game, "resign"), 409)
        assert_rated(server, "Ann", "Bob", 1.0, game)
    for server in serve(path, Clocks()):  # a restart
        assert_rated(server, "Ann", "Bob", 1.0, game)


def test_a_flag_that_fell_while_the_server_was_down_is_rated_when_it_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "games.sqlite3"
    now = [time.time()]
    monkeypatch.setattr(time, "time", lambda: now[0])
    for server in serve(path, Clocks()):
        ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
        game = game_between(server, ann, bob, rated=True, minutes=1, increment=0)
        act(ann, game, "moves", {"move": "11-15"})
    now[0] += 3600
    for server in serve(path, Clocks()):
        # No request reads the game: the referee found it at start.
        assert server.store.get(game["id"]).result == "1-0"
        assert_rated(server, "Ann", "Bob", 1.0, game)


def test_a_write_that_fails_leaves_neither_the_end_nor_the_ratings(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "games.sqlite3")
    ann, bob = (store.add_account(name, "hash", "2026-01-01") for name in ("Ann", "Bob"))
    record = GameRecord(id="g_1", mode=GameMode.FRIEND, created="", updated="", black="Ann",
                        white="Bob", start_fen=Board().fen(), rated=True)
    store.insert([record], seats=[("g_1", Seat.BLACK, "b"), ("g_1", Seat.WHITE, "w")],
                 holders={Seat.BLACK: ann.id, Seat.WHITE: bob.id})
    ended = GameRecord(**{**{name: getattr(record, name) for name in record.__slots__},
                          "result": "1-0"})

    def broken(black: Rating, white: Rating) -> tuple[Rating, Rating]:
        raise OSError("disk full")

    with pytest.raises(OSError):
        store.update_rated(ended, broken, black_score=1.0, played="2026-01-02")
    assert store.get("g_1").result == "*"
    assert store.account_named("Ann").rating == Rating() and store.rating_history(ann.id, 9) == []

    def rate(black: Rating, white: Rating) -> tuple[Rating, Rating]:
        return rate_game(black, white, 1.0)

    first = store.update_rated(ended, rate, black_score=1.0, played="2026-01-02")
    again = store.update_rated(ended, rate, black_score=1.0, played="2026-01-03")
    assert first.ratings is not None and again.ratings is None  # the second write rates nothing
    assert store.account_named("Ann").rating == rate_game(Rating(), Rating(), 1.0)[0]
    assert [change.game_id for change in store.rating_history(bob.id, 9)] == ["g_1"]
    store.close()


# -- what rated games forbid, and casual ones ------------------------------------------------


def test_a_rated_game_takes_no_takeback_and_is_not_deleted(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    game = game_between(server, ann, bob, rated=True)
    act(ann, game, "moves", {"move": "11-15"})
    assert_error(act(ann, game, "takeback"), 409, "rated", code="not_allowed_now")
    assert_error(ann.delete(f"/api/games/{game['id']}"), 409, "rated", code="not_allowed_now")


def test_a_casual_game_changes_no_rating(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    game = game_between(server, ann, bob)
    over = act(ann, game, "resign").json()
    assert over["rated"] is False and over["ratings"]["black"]["after"] is None
    assert rating_of(bob, "Bob") == Rating() and rating_of(bob, "Ann") == Rating()
    assert bob.get("/api/users/Bob").json()["wins"] == 1


def test_a_second_game_starts_from_the_first_ones_ratings(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    first = game_between(server, ann, bob, rated=True)
    act(ann, first, "resign")
    after_first = rate_game(Rating(), Rating(), 0.0)
    second = game_between(server, bob, ann, rated=True)  # Bob Black now
    started = ann.get(f"/api/games/{second['id']}").json()["ratings"]
    assert started["black"]["rating"] == pytest.approx(after_first[1].rating)
    act(ann, second, "resign")
    assert_rated(server, "Bob", "Ann", 1.0, second, before=(after_first[1], after_first[0]))


# -- profiles ---------------------------------------------------------------------------


def test_a_profile_shows_the_rating_results_and_history(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    fresh = server.browser().get("/api/users/ann").json()
    assert (fresh["username"], fresh["rating"], fresh["history"]) == (
        "Ann", {"rating": 1500.0, "deviation": 350.0, "provisional": True}, [])
    assert (fresh["wins"], fresh["draws"], fresh["losses"], fresh["games"]) == (0, 0, 0, 0)
    games = [game_between(server, ann, bob, rated=True) for _ in range(3)]
    act(bob, games[0], "resign")
    act(ann, games[1], "draw", {"action": "offer"})
    act(bob, games[1], "draw", {"action": "accept"})
    shown = server.browser().get("/api/users/Ann").json()
    assert (shown["wins"], shown["draws"], shown["losses"], shown["games"]) == (1, 1, 0, 3)
    assert [(point["game"], point["opponent"], point["score"]) for point in shown["history"]] == [
        (games[0]["id"], "Bob", 1.0), (games[1]["id"], "Bob", 0.5)]
    assert_error(server.browser().get("/api/users/Nobody"), 404, code="user_not_found")
    assert_error(server.browser().get(f"/api/users/{'x' * 101}"), 422)


def test_a_profile_lists_its_games_a_page_at_a_time_and_all_as_pdn(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    games = [game_between(server, ann, bob, rated=number == 0) for number in range(3)]
    act(bob, games[0], "resign")
    new_game(ann, mode="engine", level=1)  # her own business: not on her profile
    new_game(ann, mode="friend", private=True)
    reader = server.browser()
    page = reader.get("/api/users/Ann/games?limit=2").json()
    assert page["total"] == 3
    assert [game["id"] for game in page["games"]] == [games[2]["id"], games[1]["id"]]
    rest = reader.get("/api/users/Ann/games?limit=2&offset=2").json()["games"]
    assert [(game["id"], game["rated"], game["result"]) for game in rest] == [
        (games[0]["id"], True, "1-0")]
    assert_error(reader.get("/api/users/Ann/games?limit=101"), 422)
    download = reader.get("/api/users/Ann/games.pdn")
    assert download.headers["content-disposition"] == 'attachment; filename="Ann-games.pdn"'
    assert download.text.count('[Black "Ann"]') == 3 and "1-0" in download.text
    assert_error(reader.get("/api/users/Nobody/games.pdn"), 404, code="user_not_found")


def test_a_profile_has_a_page(server: Server) -> None:
    page = server.browser().get("/u/Ann")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'src="/profile.js"' in page.text


def test_the_players_ratings_are_in_the_game_and_in_the_lobby(server: Server) -> None:
    ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
    first = game_between(server, ann, bob, rated=True)
    act(bob, first, "resign")
    won = rate_game(Rating(), Rating(), 1.0)[0]
    posted = ann.post("/api/seeks", json={"minutes": 5}).json()
    assert posted["author"] == {"name": "Ann", "rating": pytest.approx(won.rating),
                                "provisional": True}
    game = ann.get(f"/api/games/{first['id']}", headers=auth(first, "black")
                   if first.get("tokens") else {}).json()
    assert game["ratings"]["black"]["after"]["rating"] == pytest.approx(won.rating)


def test_a_database_of_the_previous_version_gains_ratings(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    connection = sqlite3.connect(path)
    connection.executescript(store_module._SCHEMA + store_module._MIGRATIONS[2]
                             + store_module._MIGRATIONS[3])
    connection.executescript("""
        INSERT INTO games (id, mode, created, updated, black, white, start_fen, moves, tags,
                           result, creator)
            VALUES ('g_old', 'friend', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z',
                    'human', 'human', 'B:W21-32:B1-12', '11-15', '{}', '*', '10.0.0.1');
        PRAGMA user_version = 3;
    """)
    connection.commit()
    connection.close()
    for server in serve(path, Clocks()):
        old = server.browser().get("/api/games/g_old").json()
        assert (old["moves"], old["rated"], old["ratings"], old["rematch"]) == (
            ["11-15"], False, None, None)
        ann, bob = signed_up(server, "Ann"), signed_up(server, "Bob", "192.0.2.2")
        game = game_between(server, ann, bob, rated=True)
        act(bob, game, "resign")
        assert_rated(server, "Ann", "Bob", 1.0, game)
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == store_module.SCHEMA_VERSION
    connection.close()
