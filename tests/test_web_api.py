"""The web API through an HTTP client: games, moves, the engine, PDN, limits, analysis, concurrency.

Most tests use Starlette's ``TestClient`` (the app's lifespan runs, as under
uvicorn); the concurrency tests drive the app from one event loop with
``httpx.AsyncClient`` so that requests really overlap. A scripted engine
(:class:`GatedEngine`) holds a search until the test lets it go: no sleeps,
no timing.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from doublecorner import STARTING_FEN, Board, Color, Position
from doublecorner.egtb import Tables
from doublecorner.engine import Engine, InfoCallback, Limit, Score, SearchResult
from doublecorner.web.app import create_app
from doublecorner.web.engine_pool import Searcher
from doublecorner.web.record import GameMode, GameRecord
from doublecorner.web.state import GameState

WAIT = 30.0  # seconds: only a broken server makes a test wait this long, and then it fails
MULTI_JUMP_FEN = "B:W14,23:B9"  # the only move is 9x18x27
TWO_ROUTES_FEN = "B:W6,7,14,15:B2"  # 2x9x18 and 2x11x18
ENGINE_WINNING_FEN = "B:WK18,K22,K26:B5"  # the human (Black) has one man against three kings
ENGINE_LOSING_FEN = "B:W32:BK1,K5,K9"  # the engine (White) has one man against three kings


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


ORIGIN = {"Origin": "http://testserver"}  # the page's own: what a browser sends


def make_app(db_path: Path, **options: Any) -> FastAPI:
    options.setdefault("hash_mb", 1)
    options.setdefault("max_seconds", 5.0)
    options.setdefault("allowed_hosts", ["testserver", "test"])
    return create_app(db_path, **options)


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(db_path)) as test_client:
        yield test_client


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.text
    game: dict[str, Any] = answer.json()
    return game


def auth(game: dict[str, Any], seat: str) -> dict[str, str]:
    """The header that acts for ``seat`` with the token the game gave it."""
    return {"Authorization": f"Bearer {game['tokens'][seat]}"}


def seat_to_move(client: TestClient, game: dict[str, Any]) -> str:
    """The seat that acts now: the owner of an analysis, the one player, or the side to move."""
    tokens = game["tokens"]
    if len(tokens) == 1:
        (seat,) = tokens
        return str(seat)
    return str(get(client, game)["turn"])


def post(client: TestClient, game: dict[str, Any], action: str, body: Any = None,
         seat: str | None = None) -> httpx.Response:
    """POST to the game's ``action`` with the token of ``seat`` (default: the one to move)."""
    seat = seat_to_move(client, game) if seat is None else seat
    return client.post(f"/api/games/{game['id']}/{action}", json=body, headers=auth(game, seat))


def play(client: TestClient, game: dict[str, Any], move: str,
         seat: str | None = None) -> httpx.Response:
    return post(client, game, "moves", {"move": move}, seat)


def get(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    answer = client.get(f"/api/games/{game['id']}")
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def mine(client: TestClient, *games: dict[str, Any], query: str = "") -> list[dict[str, Any]]:
    """The games listed for the tokens of ``games``."""
    tokens = ", ".join(dict.fromkeys(token for game in games
                                     for token in game["tokens"].values()))
    answer = client.get(f"/api/games{query}", headers={"Authorization": f"Bearer {tokens}"})
    assert answer.status_code == 200, answer.text
    listed: list[dict[str, Any]] = answer.json()["games"]
    return listed


def without_tokens(game: dict[str, Any]) -> dict[str, Any]:
    """The game as a GET shows it: ``tokens`` are only in the answer that made it."""
    return {**game, "tokens": None}


MOVE_PARTS = {"reason", "legal_moves", "routes"}  # a refused move's parts, beside its error


def assert_error(answer: httpx.Response, status: int, *words: str, code: str | None = None) -> None:
    """A refusal: ``status``, an English ``error`` holding ``words``, and a ``code`` (this one)."""
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert "error" in body and set(body) - {"error", "code"} <= MOVE_PARTS
    assert isinstance(body.get("code"), str) and body["code"], body  # every error has one
    if code is not None:
        assert body["code"] == code, body
    for word in words:
        assert word in body["error"]


# -- new games -----------------------------------------------------------------


def test_a_new_two_player_game_is_at_the_start(client: TestClient) -> None:
    game = new_game(client, mode="two-player")
    assert game["id"].startswith("g_")
    assert (game["mode"], game["black"], game["white"]) == ("two-player", "human", "human")
    assert game["human"] is game["engine"] is game["outcome"] is game["last_move"] is None
    assert game["fen"] == game["start_fen"] == STARTING_FEN
    assert (game["moves"], game["ply"], game["turn"]) == ([], 0, "black")
    assert [move["move"] for move in game["legal_moves"]] == [
        "9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    assert game["legal_moves"][0] == {"move": "9-13", "path": [9, 13], "captures": []}
    assert game["must_capture"] == []
    assert game["created"].endswith("Z") and game["updated"] == game["created"]
    assert set(game["tokens"]) == {"black", "white"} and game["private"] is False
    assert get(client, game) == without_tokens(game)


def test_the_engine_moves_first_when_the_human_plays_white(client: TestClient) -> None:
    game = new_game(client, mode="engine", human="white", level=1)
    assert (game["black"], game["white"]) == ("doublecorner (level 1)", "human")
    assert game["engine"] == {"level": 1}
    assert game["ply"] == 1 and game["turn"] == "white"
    assert game["engine_reply"]["move"] == game["moves"][0] == game["last_move"]["move"]
    assert get(client, game)["moves"] == game["moves"]


def test_engine_games_default_to_black_and_level_6(client: TestClient) -> None:
    game = new_game(client, mode="engine")
    assert (game["human"], game["engine"], game["ply"]) == ("black", {"level": 6}, 0)
    assert game["white"] == "doublecorner (level 6)"


def test_an_engine_game_can_give_seconds_per_move(client: TestClient) -> None:
    game = new_game(client, mode="engine", human="black", seconds=0.5)
    assert game["engine"] == {"seconds": 0.5}
    assert game["white"] == "doublecorner (0.5 s per move)"


@pytest.mark.parametrize(("body", "status", "words", "code"), [
    ({"mode": "engine", "level": 3, "seconds": 1.0}, 400, ("not both",), "bad_request"),
    ({"mode": "engine", "seconds": 60.0}, 400, ("at most 5",), "bad_request"),
    ({"mode": "two-player", "level": 3}, 400, ("'level'", "engine mode only"), "bad_request"),
    ({"mode": "analysis", "fen": "B:W99:B1"}, 400, ("B:W99:B1",), "invalid_fen"),
    ({"mode": "engine", "level": 11}, 422, ("level",), "invalid_request"),
    ({"mode": "chess"}, 422, ("mode",), "invalid_request"),
    ({"mode": "two-player", "colour": "black"}, 422, ("colour",), "invalid_request"),
])
def test_bad_new_games_are_refused(client: TestClient, body: dict[str, Any], status: int,
                                   words: Sequence[str], code: str) -> None:
    assert_error(client.post("/api/games", json=body), status, *words, code=code)
    assert client.app.state.games.store.count() == 0


# -- moves -----------------------------------------------------------------------


def test_a_short_capture_is_stored_as_its_full_path(client: TestClient) -> None:
    game = new_game(client, mode="analysis", fen=MULTI_JUMP_FEN)
    assert game["must_capture"] == [9]
    assert game["legal_moves"] == [{"move": "9x18x27", "path": [9, 18, 27], "captures": [14, 23]}]
    answer = play(client, game, "9x27")
    assert answer.status_code == 200
    after = answer.json()
    assert after["moves"] == ["9x18x27"]
    assert after["last_move"] == {"move": "9x18x27", "path": [9, 18, 27]}
    # White has nothing left: the game is over by the rules.
    assert after["outcome"] == {"result": "1-0", "reason": "no legal moves", "winner": "black"}
    assert after["legal_moves"] == []


START_MOVES = ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]


@pytest.mark.parametrize(("fen", "move", "words", "parts"), [
    # White's man, Black's turn: no reason the board names, the legal moves listed
    (STARTING_FEN, "22-18", ("22-18",),
     {"code": "illegal_move", "reason": "", "legal_moves": START_MOVES}),
    (STARTING_FEN, "11-19", ("11-19",),
     {"code": "illegal_move", "reason": "", "legal_moves": START_MOVES}),
    (STARTING_FEN, "eleven", ("eleven",), {"code": "invalid_move"}),  # not a move at all
    (STARTING_FEN, "a2-b3", ("square a2 is a light square",), {"code": "invalid_move"}),
    (TWO_ROUTES_FEN, "2x18", ("2x18",),  # ambiguous
     {"code": "ambiguous_move", "routes": ["2x11x18", "2x9x18"]}),
    (MULTI_JUMP_FEN, "9-13", ("9-13",),  # the capture is compulsory
     {"code": "illegal_move", "reason": "a capture is compulsory", "legal_moves": ["9x18x27"]}),
])
def test_a_refused_move_is_a_400_and_changes_nothing(client: TestClient, fen: str, move: str,
                                                      words: Sequence[str],
                                                      parts: dict[str, Any]) -> None:
    game = new_game(client, mode="two-player", fen=fen)
    answer = play(client, game, move)
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body == {"error": body["error"], **parts}  # the code, and parts a page words its own way
    assert all(word in body["error"] for word in words)
    assert get(client, game) == without_tokens(game)


def test_a_move_may_name_its_squares_a1_to_h8(client: TestClient) -> None:
    game = new_game(client, mode="two-player")
    answer = play(client, game, "f6-e5")
    assert answer.status_code == 200, answer.text
    assert answer.json()["moves"] == ["11-15"]


@pytest.mark.parametrize("body", [{}, {"move": 1115}, {"move": "11-15", "side": "black"},
                                  {"move": "1" * 201}])
def test_a_malformed_move_request_is_a_422(client: TestClient, body: dict[str, Any]) -> None:
    game = new_game(client, mode="two-player")
    assert_error(post(client, game, "moves", body), 422)
    assert get(client, game) == without_tokens(game)


def test_a_body_that_is_not_json_is_a_422(client: TestClient) -> None:
    game = new_game(client, mode="two-player")
    answer = client.post(f"/api/games/{game['id']}/moves", content=b"{11-15",
                         headers={"content-type": "application/json", **auth(game, "black")})
    assert_error(answer, 422, "JSON")


def test_an_unknown_game_is_a_404(client: TestClient) -> None:
    token = {"Authorization": f"Bearer {new_game(client, mode='analysis')['tokens']['owner']}"}
    for answer in (client.get("/api/games/g_nope"),
                   client.post("/api/games/g_nope/moves", json={"move": "11-15"},
                               headers=token),
                   client.post("/api/games/g_nope/takeback", headers=token),
                   client.get("/api/games/g_nope/pdn"),
                   client.delete("/api/games/g_nope", headers=token)):
        assert_error(answer, 404, "g_nope", code="game_not_found")


def test_the_engine_replies_to_each_move(client: TestClient) -> None:
    game = new_game(client, mode="engine", human="black", level=1)
    answer = play(client, game, "11-15")
    assert answer.status_code == 200, answer.text
    after = answer.json()
    reply = after["engine_reply"]
    assert after["moves"] == ["11-15", reply["move"]]
    assert reply["depth"] == 1 and isinstance(reply["score"], str)
    board = Board()
    board.push_str("11-15")
    assert board.parse_move(reply["move"]) in board.legal_moves
    assert after["turn"] == "black"
    stored = get(client, game)
    assert stored["engine_reply"] is None  # set in the answer to the move only
    assert stored["moves"] == after["moves"]


def test_a_move_for_the_engines_side_is_refused(client: TestClient) -> None:
    game = new_game(client, mode="engine", human="white", level=1)
    assert_error(play(client, game, "9-13"), 400, "9-13")  # a Black man; White to move
    assert set(game["tokens"]) == {"white"}  # the engine's side has no token
    assert get(client, game)["moves"] == game["moves"]


# -- takeback, resignation, draws -------------------------------------------------


def test_takeback_in_engine_mode_goes_back_to_the_humans_turn(client: TestClient) -> None:
    game = new_game(client, mode="engine", human="white", level=1)
    assert_error(post(client, game, "takeback"), 409, "take back", code="not_allowed_now")
    legal = game["legal_moves"][0]["move"]
    assert len(play(client, game, legal).json()["moves"]) == 3
    answer = post(client, game, "takeback")
    assert answer.status_code == 200
    assert answer.json()["moves"] == game["moves"]  # the engine's first move stays
    assert get(client, game)["moves"] == game["moves"]


def test_takeback_in_two_player_mode_takes_one_ply(client: TestClient) -> None:
    game = new_game(client, mode="two-player")
    assert_error(post(client, game, "takeback"), 409)
    play(client, game, "11-15")
    play(client, game, "23-19")
    answer = post(client, game, "takeback", seat="black")  # either player may
    assert answer.json()["moves"] == ["11-15"]
    assert answer.json()["turn"] == "white"


def test_resigning_ends_the_game_until_taken_back(client: TestClient) -> None:
    game = new_game(client, mode="two-player")
    play(client, game, "11-15")
    assert_error(post(client, game, "resign", {"side": "red"}, "white"), 422)
    assert_error(post(client, game, "resign", {"side": "black"}, "white"), 403, "not black")
    over = post(client, game, "resign", None, "white").json()  # the token says who
    assert over["outcome"] == {"result": "1-0", "reason": "resignation", "winner": "black"}
    assert over["legal_moves"] == [] and over["must_capture"] == []
    assert_error(play(client, game, "23-19", "white"), 409, "over")
    assert_error(post(client, game, "resign", {"side": "black"}, "black"), 409)
    assert mine(client, game)[0]["result"] == "1-0"
    back = post(client, game, "takeback", seat="white").json()
    assert back["outcome"] is None and back["moves"] == []


def test_the_human_resigns_in_engine_mode(client: TestClient) -> None:
    game = new_game(client, mode="engine", human="black", level=1)
    assert_error(post(client, game, "resign", {"side": "white"}), 403, "not white")
    over = post(client, game, "resign").json()
    assert over["outcome"]["winner"] == "white"


def test_nobody_resigns_or_offers_a_draw_in_an_analysis(client: TestClient) -> None:
    game = new_game(client, mode="analysis")
    assert_error(post(client, game, "resign", {"side": "black"}), 409)
    assert_error(post(client, game, "draw", {"side": "black", "action": "offer"}), 409)


def test_two_player_draw_offers(client: TestClient) -> None:
    game = new_game(client, mode="two-player")
    def draw(side: str, action: str) -> httpx.Response:
        return post(client, game, "draw", {"side": side, "action": action}, side)

    assert_error(draw("white", "accept"), 409, "no draw offer")
    assert draw("black", "offer").json()["draw_offer"] == "black"
    assert_error(draw("black", "accept"), 409)  # one's own offer
    assert play(client, game, "11-15").json()["draw_offer"] == "black"  # the offer stands
    declined = draw("white", "decline").json()
    assert declined["draw_offer"] is None and declined["outcome"] is None
    draw("white", "offer")
    assert play(client, game, "10-14", "white").status_code == 400  # nothing changes
    assert play(client, game, "10-14", "black").status_code == 403  # not Black's turn
    assert play(client, game, "23-19").json()["draw_offer"] == "white"
    assert play(client, game, "9-13").json()["draw_offer"] is None  # Black played on: declined
    draw("black", "offer")
    agreed = draw("white", "accept").json()
    assert agreed["outcome"] == {"result": "1/2-1/2", "reason": "draw agreed", "winner": None}
    assert agreed["draw_offer"] is None


def test_the_engine_declines_a_draw_when_ahead_and_accepts_when_behind(
        client: TestClient) -> None:
    ahead = new_game(client, mode="engine", human="black", level=2, fen=ENGINE_WINNING_FEN)
    answer = post(client, ahead, "draw", {"action": "offer"})
    assert answer.status_code == 200
    assert answer.json()["outcome"] is None
    behind = new_game(client, mode="engine", human="black", level=2, fen=ENGINE_LOSING_FEN)
    answer = post(client, behind, "draw", {"action": "offer"})
    assert answer.json()["outcome"] == {"result": "1/2-1/2", "reason": "draw agreed",
                                        "winner": None}
    assert_error(post(client, ahead, "draw", {"action": "accept"}), 409)


# -- draws by the rules are claimed (issue 27) -----------------------------------------

# Kings shuffling 1-6 / 32-27 and back: the start position (Black to move) recurs
# every four plies; White's 27-32 at ply 8 brings it back a third time.
SHUFFLE_FEN = "B:WK32:BK1"
SHUFFLE = ["1-6", "32-27", "6-1", "27-32"] * 2


def claim(client: TestClient, game: dict[str, Any], seat: str) -> httpx.Response:
    return post(client, game, "claim-draw", None, seat)


def test_people_claim_a_repetition_rather_than_the_game_ending_by_itself(
        client: TestClient) -> None:
    game = new_game(client, mode="two-player", fen=SHUFFLE_FEN)
    assert game["can_claim_draw"] is False
    assert_error(claim(client, game, "black"), 409, "no draw can be claimed")
    for move in SHUFFLE[:7]:
        answer = play(client, game, move).json()
    # White's next move would make the third occurrence: White may claim (WCDF), Black not.
    assert answer["can_claim_draw"] is True and answer["turn"] == "white"
    assert_error(claim(client, game, "black"), 403, "white's turn", code="not_your_seat")
    answer = play(client, game, SHUFFLE[7]).json()
    # The third occurrence is on the board: nobody claimed, so the game goes on.
    assert answer["outcome"] is None and answer["legal_moves"]
    assert answer["can_claim_draw"] is True
    assert_error(client.post(f"/api/games/{game['id']}/claim-draw"), 403,  # no token
                 code="forbidden")
    over = claim(client, game, "black").json()
    assert over["outcome"] == {"result": "1/2-1/2", "reason": "threefold repetition",
                               "winner": None}
    assert over["can_claim_draw"] is False and over["legal_moves"] == []
    assert get(client, game)["outcome"] == over["outcome"]
    assert mine(client, game)[0]["result"] == "1/2-1/2"
    assert_error(claim(client, game, "black"), 409, "over")
    assert '[Result "1/2-1/2"]' in client.get(f"/api/games/{game['id']}/pdn").text


def test_a_game_goes_on_past_a_draw_nobody_claims(client: TestClient) -> None:
    game = new_game(client, mode="two-player", fen=SHUFFLE_FEN)
    for move in SHUFFLE * 2 + ["1-6"]:
        answer = play(client, game, move)
        assert answer.status_code == 200, answer.text
    assert answer.json()["outcome"] is None


def test_an_analysis_reads_on_past_a_repetition_and_nobody_claims(client: TestClient) -> None:
    game = new_game(client, mode="analysis", fen=SHUFFLE_FEN)
    for move in SHUFFLE:
        answer = play(client, game, move).json()
    assert answer["outcome"] is None and answer["can_claim_draw"] is False
    assert_error(claim(client, game, "owner"), 409, "analysis")


def test_an_import_reads_on_past_a_repetition_and_keeps_its_result(client: TestClient) -> None:
    moves = " ".join(SHUFFLE)
    text = (f'[FEN "{SHUFFLE_FEN}"]\n[Result "1/2-1/2"]\n{moves} 1/2-1/2\n\n'
            f'[FEN "{SHUFFLE_FEN}"]\n[Result "1-0"]\n{moves} 1-6 1-0\n')
    answer = client.post("/api/games/import", json={"pdn": text})
    assert answer.status_code == 201, answer.text
    stopped, went_on = answer.json()["games"]
    assert answer.json()["errors"] == []
    # Stopped on the draw: claimed there. Went on past it: all moves, and the tag's result.
    assert stopped["outcome"]["reason"] == "threefold repetition"
    assert went_on["ply"] == 9
    assert went_on["outcome"] == {"result": "1-0", "reason": "resignation", "winner": "black"}


def test_against_the_engine_the_server_claims_a_draw_on_the_board() -> None:
    engine_game = GameRecord(id="g_1", mode=GameMode.ENGINE, created="", updated="",
                             black="human", white="doublecorner", start_fen=SHUFFLE_FEN,
                             human=Color.BLACK, level=1, moves=tuple(SHUFFLE))
    state = GameState.of(engine_game)
    assert state.ending is not None and state.ending.reason == "threefold repetition"
    two_player = GameState.of(replace(engine_game, mode=GameMode.TWO_PLAYER))
    assert two_player.ending is None


# -- lists, deletion, PDN -----------------------------------------------------------


def test_games_are_listed_newest_first(client: TestClient) -> None:
    made = [new_game(client, mode="two-player") for _ in range(3)]
    ids = [game["id"] for game in made]
    games = mine(client, *made)
    assert [game["id"] for game in games] == ids[::-1]
    assert set(games[0]) == {"id", "mode", "created", "updated", "black", "white", "ply",
                             "result"}
    assert games[0]["result"] == "*"
    assert [game["id"] for game in mine(client, *made, query="?limit=2")] == ids[:0:-1]
    assert_error(client.get("/api/games?limit=0"), 422, "limit")


def test_a_deleted_game_is_gone(client: TestClient) -> None:
    game = new_game(client, mode="two-player")
    answer = client.delete(f"/api/games/{game['id']}", headers=auth(game, "white"))
    assert answer.status_code == 204 and answer.content == b""
    assert_error(client.get(f"/api/games/{game['id']}"), 404)
    assert mine(client, game) == []


def test_a_game_goes_to_pdn_and_back(client: TestClient) -> None:
    game = new_game(client, mode="engine", human="white", level=1, fen="W:W21-32:B1-12")
    moves: list[str] = []
    for _ in range(3):
        after = play(client, game, get(client, game)["legal_moves"][-1]["move"]).json()
        moves = after["moves"]
    answer = client.get(f"/api/games/{game['id']}/pdn")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    date = answer.text.split('[Date "')[1][:10].replace(".", "-")  # players and date, not id
    assert answer.headers["content-disposition"] == (
        f'attachment; filename="doublecorner-level-1-vs-human-{date}.pdn"')
    text = answer.text
    assert '[White "human"]' in text and '[Black "doublecorner (level 1)"]' in text
    assert f'[FEN "{game["start_fen"]}"]' in text and Board(game["start_fen"]).turn.name == "WHITE"
    imported = client.post("/api/games/import", json={"pdn": text})
    assert imported.status_code == 201
    body = imported.json()
    assert body["errors"] == []
    (copy,) = body["games"]
    assert copy["mode"] == "analysis" and copy["id"] != game["id"]
    assert copy["moves"] == moves and copy["start_fen"] == game["start_fen"]
    assert (copy["black"], copy["white"]) == ("doublecorner (level 1)", "human")
    assert set(copy["tokens"]) == {"owner"}
    assert client.get(f"/api/games/{copy['id']}/pdn").text == text


def test_an_import_keeps_the_games_it_can_read_and_lists_the_errors(client: TestClient) -> None:
    text = ('[Event "one"]\n1. 11-15 23-19 2. 8-11 1-0\n\n'
            '[Event "two"]\n1. 11-15 23-19 2. 15-11 *\n')
    body = client.post("/api/games/import", json={"pdn": text}).json()
    first, second = body["games"]
    assert first["outcome"] == {"result": "1-0", "reason": "resignation", "winner": "black"}
    assert second["moves"] == ["11-15", "23-19"] and second["outcome"] is None
    (error,) = body["errors"]
    assert error.startswith("line 5, column ") and "15-11" in error
    assert first["tokens"] == second["tokens"]  # one owner token for the games of one text
    assert len(mine(client, first)) == 2


@pytest.mark.parametrize("text", ["", "hello", '[GameType "20"]\n1. 32-28 *\n'])
def test_an_import_without_a_game_is_refused(client: TestClient, text: str) -> None:
    assert_error(client.post("/api/games/import", json={"pdn": text}), 400, "no game",
                 code="bad_request")
    assert client.app.state.games.store.count() == 0


@pytest.mark.parametrize(("method", "path", "status", "code"), [
    ("GET", "/api/explore", 404, "games_db_not_found"),  # a server without a game database
    ("GET", "/api/games-db/1", 404, "games_db_not_found"),
    ("GET", "/api/nothing-here", 404, "not_found"),  # no such route: Starlette's 404
    ("PUT", "/api/games", 405, "method_not_allowed"),
    ("GET", "/api/games?limit=0", 422, "invalid_request"),
])
def test_every_refusal_has_a_code(client: TestClient, method: str, path: str, status: int,
                                  code: str) -> None:
    assert_error(client.request(method, path, headers=ORIGIN), status, code=code)


# -- limits, schema, persistence ------------------------------------------------------


def test_a_body_over_64_kib_is_refused(client: TestClient) -> None:
    text = "B:W21-32:B1-12 " * 5000
    assert_error(client.post("/api/games", json={"mode": "analysis", "fen": text}), 413,
                 "limit of 65536", code="too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: the server counts as it reads
        yield b'{"mode": "analysis", "fen": "'
        for _ in range(100):
            yield b"1. 11-15 23-19 * " * 50
        yield b'"}'

    assert_error(client.post("/api/games", content=chunks(),
                             headers={"content-type": "application/json"}), 413, "limit")
    assert client.app.state.games.store.count() == 0


def test_the_api_is_described_by_an_openapi_schema(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    for path in ("/api/games", "/api/games/{game_id}", "/api/games/{game_id}/moves",
                 "/api/games/{game_id}/takeback", "/api/games/{game_id}/resign",
                 "/api/games/{game_id}/draw", "/api/games/{game_id}/claim-draw",
                 "/api/games/{game_id}/pdn",
                 "/api/games/import", "/api/health"):
        assert path in paths
    assert "ErrorBody" in schema["components"]["schemas"]
    assert set(schema["components"]["schemas"]["ErrorBody"]["properties"]) >= MOVE_PARTS


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_no_documentation_page_that_needs_a_cdn(client: TestClient, page: str) -> None:
    """FastAPI's /docs and /redoc load their scripts from a CDN: blank offline, so not served."""
    assert client.get(page).status_code == 404
    assert client.get("/openapi.json").status_code == 200
    assert client.get("/api/health").json() == {"ok": True}


def test_games_survive_a_restart(db_path: Path) -> None:
    with TestClient(make_app(db_path)) as first:
        game = new_game(first, mode="engine", human="black", level=1)
        moves = play(first, game, "11-15").json()["moves"]
        resigned = new_game(first, mode="two-player")
        post(first, resigned, "resign", {"side": "black"}, "black")
    with TestClient(make_app(db_path)) as second:
        again = get(second, game)
        assert again["moves"] == moves
        summaries = mine(second, game, resigned)
        assert [summary["result"] for summary in summaries] == ["0-1", "*"]
        legal = again["legal_moves"][0]["move"]
        assert play(second, game, legal).json()["moves"][:3] == [*moves, legal]


def test_the_page_is_served_at_the_root_when_present(db_path: Path, tmp_path: Path) -> None:
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<title>doublecorner</title>", encoding="utf-8")
    with TestClient(make_app(db_path, static_dir=static)) as client:
        answer = client.get("/")
        assert answer.status_code == 200 and "doublecorner" in answer.text
        assert client.get("/api/health").json() == {"ok": True}


# -- live analysis -------------------------------------------------------------------


def receive_until_done(socket: Any) -> list[dict[str, Any]]:
    messages = []
    while True:
        message: dict[str, Any] = socket.receive_json()
        messages.append(message)
        if message["type"] in ("done", "error"):
            return messages


def test_analysis_streams_infos_until_stopped(client: TestClient) -> None:
    with client.websocket_connect("/api/analysis", headers=ORIGIN) as socket:
        socket.send_json({"action": "start", "fen": STARTING_FEN, "moves": ["11-15", "23-19"]})
        info = socket.receive_json()
        assert info["type"] == "info" and info["depth"] == 1
        assert set(info) == {"type", "depth", "seldepth", "score", "score_cp", "nodes", "nps",
                             "pv"}
        board = Board()
        board.push_str("11-15")
        board.push_str("23-19")
        assert board.parse_move(info["pv"][0]) in board.legal_moves
        socket.send_json({"action": "stop"})
        messages = receive_until_done(socket)
        assert all(message["type"] == "info" for message in messages[:-1])
        assert [message["depth"] for message in messages[:-1]] == list(
            range(2, len(messages) + 1))
        assert board.parse_move(messages[-1]["bestmove"]) in board.legal_moves


def test_analysis_reports_bad_input_and_goes_on(client: TestClient) -> None:
    with client.websocket_connect("/api/analysis", headers=ORIGIN) as socket:
        for message, words in (("{", ("not JSON",)),
                               ('{"action": "go"}', ("action",)),
                               ('{"action": "start", "fen": "X"}', ("'X'",)),
                               ('{"action": "start", "moves": ["11-15", "11-15"]}',
                                ("moves[1]", "11-15"))):
            socket.send_text(message)
            answer = socket.receive_json()
            assert answer["type"] == "error"
            for word in words:
                assert word in answer["error"]
        socket.send_json({"action": "start", "fen": "W:W18:B14"})  # a win in one for White
        messages = receive_until_done(socket)
        assert messages[-1] == {"type": "done", "bestmove": "18x9"}
        assert messages[0]["score"] == "win in 1" and messages[0]["score_cp"] == 10000
        socket.send_json({"action": "start", "fen": "B:W9:B"})  # Black has nothing left
        assert socket.receive_json() == {"type": "done", "bestmove": None}


class GatedEngine:
    """A real engine whose first search holds on until it is stopped.

    The first search reports depth 1 to ``on_info``, tells ``gate.started``
    and waits for its stop event (kept as ``gate.stop``, so that the test can
    let it go); later searches run at once.
    """

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.engine = Engine(hash_mb=1)

    def search(self, position: Position, limit: Limit | None = None, *,
               history: Sequence[Position] = (), halfmove_clock: int = 0,
               on_info: InfoCallback | None = None,
               stop: threading.Event | None = None) -> SearchResult:
        if not self.gate.take_first():
            return self.engine.search(position, limit, history=history,
                                      halfmove_clock=halfmove_clock, on_info=on_info, stop=stop)
        result = self.engine.search(position, Limit(depth=1), history=history,
                                    halfmove_clock=halfmove_clock)
        if on_info is not None:
            on_info(result)
        self.gate.stop = threading.Event() if stop is None else stop
        self.gate.started.set()
        self.gate.was_stopped = self.gate.stop.wait(WAIT)
        self.gate.finished.set()
        return result


class Gate:
    """What a test and its :class:`GatedEngine` share."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.stop = threading.Event()
        self.finished = threading.Event()
        self.was_stopped = False
        self._first = True
        self._lock = threading.Lock()

    def take_first(self) -> bool:
        with self._lock:
            first, self._first = self._first, False
            return first

    def engines(self) -> Callable[[], Searcher]:
        return lambda: GatedEngine(self)


def test_a_stop_reaches_the_search(db_path: Path) -> None:
    gate = Gate()
    with TestClient(make_app(db_path, new_engine=gate.engines())) as client, \
            client.websocket_connect("/api/analysis", headers=ORIGIN) as socket:
        socket.send_json({"action": "start"})
        assert socket.receive_json()["type"] == "info"
        assert gate.started.wait(WAIT)
        socket.send_json({"action": "stop"})
        done = socket.receive_json()
        assert done["type"] == "done" and Board().parse_move(done["bestmove"])
        assert gate.was_stopped  # by the server: the test never set the event


def test_closing_the_socket_stops_its_search(db_path: Path) -> None:
    gate = Gate()
    with TestClient(make_app(db_path, new_engine=gate.engines())) as client:
        with client.websocket_connect("/api/analysis", headers=ORIGIN) as socket:
            socket.send_json({"action": "start"})
            assert socket.receive_json()["type"] == "info"
            assert gate.started.wait(WAIT)
        # Still inside the app's lifespan: only the closed connection can stop it.
        assert gate.finished.wait(WAIT)
        assert gate.was_stopped


async def _slow_search_blocks_no_other_game(db_path: Path, gate: Gate) -> None:
    app = make_app(db_path, new_engine=gate.engines(), engine_threads=2)
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), \
            httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        headers: dict[str, dict[str, str]] = {}

        async def create(**body: Any) -> str:
            answer = await client.post("/api/games", json=body)
            game: dict[str, Any] = answer.json()
            headers[game["id"]] = auth(game, "black")
            return str(game["id"])

        def move(game_id: str, text: str) -> Any:
            return client.post(f"/api/games/{game_id}/moves", json={"move": text},
                               headers=headers[game_id])

        slow = await create(mode="engine", human="black", level=1)
        other_engine = await create(mode="engine", human="black", level=1)
        two_player = await create(mode="two-player")

        slow_move = asyncio.create_task(move(slow, "11-15"))
        assert await asyncio.to_thread(gate.started.wait, WAIT)
        # The same move again on the same game waits for the first to finish, then
        # finds the man gone from 11.
        same_game = asyncio.create_task(move(slow, "11-15"))

        answer = await move(two_player, "11-15")
        assert answer.status_code == 200 and answer.json()["moves"] == ["11-15"]
        answer = await move(other_engine, "9-13")
        assert answer.status_code == 200 and len(answer.json()["moves"]) == 2
        # Meanwhile the slow game is as it was: nothing half done is visible.
        answer = await client.get(f"/api/games/{slow}")
        assert answer.json()["moves"] == []
        assert not slow_move.done() and not same_game.done()

        gate.stop.set()  # the search ends as if the server had stopped it
        answer = await slow_move
        assert answer.status_code == 200 and len(answer.json()["moves"]) == 2
        assert_error(await same_game, 400, "11-15")
        answer = await client.get(f"/api/games/{slow}")
        assert answer.json()["moves"] == (await slow_move).json()["moves"]


def test_a_slow_search_blocks_no_other_game(db_path: Path) -> None:
    asyncio.run(_slow_search_blocks_no_other_game(db_path, Gate()))


def test_engine_searches_are_capped_in_time(db_path: Path) -> None:
    seen: list[Limit | None] = []

    class Recorder:
        def search(self, position: Position, limit: Limit | None = None, *,
                   history: Sequence[Position] = (), halfmove_clock: int = 0,
                   on_info: InfoCallback | None = None,
                   stop: threading.Event | None = None) -> SearchResult:
            seen.append(limit)
            move = next(iter(Board.from_position(position).legal_moves))
            return SearchResult(move, Score(0), 1, 1, 1, 0.001, (move,))

    with TestClient(make_app(db_path, new_engine=Recorder, max_seconds=2.5)) as client:
        game = new_game(client, mode="engine", human="black", level=10)
        play(client, game, "11-15")
        with client.websocket_connect("/api/analysis", headers=ORIGIN) as socket:
            socket.send_json({"action": "start"})
            receive_until_done(socket)
    assert seen == [Limit(depth=18, time=2.5), Limit(time=2.5)]


def test_analysis_answers_from_the_endgame_tables_when_given(db_path: Path,
                                                            egtb4: Tables) -> None:
    with TestClient(make_app(db_path, tables=egtb4)) as client, \
            client.websocket_connect("/api/analysis", headers=ORIGIN) as socket:
        socket.send_json({"action": "start", "fen": "B:W22,K5:BK15,K6"})
        messages = receive_until_done(socket)
    assert messages[0]["score"] == "table win" and messages[0]["pv"] == ["15-10"]
    assert messages[-1]["bestmove"] == "15-10"  # the only winning move
