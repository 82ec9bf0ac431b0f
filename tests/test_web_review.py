"""Reviews of games, the notes of imported games, and fair play, through the HTTP API.

A review is the analysis package's whole-game analysis run by the server:
the tests compare it with :func:`doublecorner.analysis.analyse_game` run here
on the same game at the same fixed depth, with a fresh engine like the
server's (a new app's engine thread has searched nothing before). Limits are
seen with engines that hold their searches until the test lets them go (no
sleeps, no timing). Fair play is checked through each door engine help
comes by: the explorer, the analysis stream and the review.
"""

from __future__ import annotations

import asyncio
import io
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from doublecorner import Board, Position
from doublecorner.analysis import MoveAnalysis, analyse_game, annotate, summary
from doublecorner.analysis.game import black_view
from doublecorner.db import GameDatabase
from doublecorner.engine import Engine, InfoCallback, Limit, Score, SearchResult
from doublecorner.pdn import Game, GameNode, nags, read_game
from doublecorner.web.engine_pool import capped
from doublecorner.web.pdn_games import MAX_NOTE_DEPTH
from doublecorner.web.review import ReviewLimits
from tests.test_web_accounts import PASSWORD, fast_hasher
from tests.test_web_api import (
    ORIGIN,
    WAIT,
    assert_error,
    auth,
    make_app,
    new_game,
    play,
    receive_until_done,
)
from tests.test_web_explorer import COLLECTION

# Black plays badly, White well: at depth 4 the analysis marks some of Black's moves
# (generation 10: 12-16 ? and 15-19 ?, each losing more than a man, and 16-19 ??,
# more than three) and nothing of White's. Which ones is the network's judgement: the
# tests compare the review with the analysis package rather than with a list.
LINE = ("12-16", "24-20", "16-19", "23x16", "11-15", "16-12", "15-19", "27-23")
DEPTH = 4
MAX_SECONDS = 5.0  # the app's cap on every search (make_app)
LIMITS = ReviewLimits(depth=DEPTH, seconds_per_position=MAX_SECONDS)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(db_path, review_limits=LIMITS)) as test_client:
        yield test_client


def played(client: TestClient, mode: str = "two-player", moves: Sequence[str] = LINE,
           *, resign: bool = True) -> dict[str, Any]:
    """A game of ``mode`` (two-player or friend: both seats held) with ``moves`` played, and
    resigned by the side to move if ``resign``."""
    game = new_game(client, mode=mode)
    if mode == "friend":
        joined = client.post(f"/api/games/{game['id']}/join",
                             json={"secret": game["invite"]["secret"]})
        game["tokens"].update(joined.json()["tokens"])
    for move in moves:
        answer = play(client, game, move)
        assert answer.status_code == 200, answer.text
    if resign:
        turn = client.get(f"/api/games/{game['id']}").json()["turn"]
        answer = client.post(f"/api/games/{game['id']}/resign", headers=auth(game, turn))
        assert answer.status_code == 200, answer.text
    return game


def review_path(game: dict[str, Any], suffix: str = "") -> str:
    return f"/api/games/{game['id']}/review{suffix}"


def reviewed(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    """Start the game's review and wait for its end."""
    started = client.post(review_path(game))
    assert started.status_code in (200, 202), started.text
    answer = client.get(review_path(game), params={"wait": WAIT})
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    assert found["status"] == "done", found
    return found


def analysed_here(client: TestClient, game: dict[str, Any]) -> tuple[Any, list[MoveAnalysis]]:
    """The game (read from its PDN) and the analysis package's analysis of it, at the
    review's limit, with an engine like the server's."""
    read = read_game(io.StringIO(client.get(f"/api/games/{game['id']}/pdn").text))
    assert read is not None
    limit = capped(LIMITS.limit(positions=len(read.mainline_moves()) + 1), MAX_SECONDS)
    return read, analyse_game(read, Engine(hash_mb=1, tables=None), limit)


# -- the review ------------------------------------------------------------------


def test_a_review_judges_every_move_as_the_analysis_package_does(client: TestClient) -> None:
    game = played(client)
    started = client.post(review_path(game))
    assert started.status_code == 202
    assert started.json()["status"] == "running"
    assert started.json()["positions"] == len(LINE) + 1
    found = reviewed(client, game)
    _, analyses = analysed_here(client, game)

    def judged(analysis: MoveAnalysis) -> tuple[Any, ...]:
        judgement = analysis.judgement
        return (analysis.ply, str(analysis.move), analysis.mover.name.lower(),
                str(analysis.black_after()), str(analysis.best), analysis.loss,
                None if judgement is None else judgement.name.lower(),
                None if judgement is None else nags.mark_of_nag(judgement.value))

    assert [(move["ply"], move["move"], move["side"], move["score"], move["best"],
             move["loss"], move["judgement"], move["mark"]) for move in found["moves"]] == [
        judged(analysis) for analysis in analyses]
    # Black plays badly (LINE): the review must mark some of its moves, or the
    # comparison above compares nothing but unmarked moves.
    assert any(move["mark"] is not None for move in found["moves"][::2])
    assert found["summary"] == {side.lower(): counts
                                for side, counts in summary(analyses).items()}
    # The chart's points: the start, then after each move, from Black's side.
    assert [(score["ply"], score["black"]) for score in found["scores"]] == [
        (0, black_view(analyses[0].before, analyses[0].mover)),
        *((analysis.ply, analysis.black_score()) for analysis in analyses)]
    assert found["limit"] == {"depth": DEPTH, "seconds": MAX_SECONDS}
    assert (found["searched"], found["positions"], found["error"]) == (9, 9, None)


def test_the_annotated_pdn_is_what_analyse_writes(client: TestClient) -> None:
    game = played(client)
    reviewed(client, game)
    answer = client.get(review_path(game, ".pdn"))
    assert answer.status_code == 200
    assert answer.headers["content-disposition"].endswith('-review.pdn"')
    read, analyses = analysed_here(client, game)
    annotate(read, analyses)
    assert answer.text == str(read)
    assert "16-19?" in answer.text and "[Annotator " in answer.text


def test_a_review_is_kept_with_the_game_and_answered_at_once(db_path: Path) -> None:
    with TestClient(make_app(db_path, review_limits=LIMITS)) as client:
        game = played(client)
        first = reviewed(client, game)
        again = client.post(review_path(game))
        assert again.status_code == 200 and again.json() == first
    # A server started again finds it in the store; its engine never searches.
    with TestClient(make_app(db_path, review_limits=LIMITS, new_engine=NoEngine)) as client:
        assert client.get(review_path(game)).json() == first
        assert client.post(review_path(game)).json() == first
        assert client.get(review_path(game, ".pdn")).status_code == 200


class NoEngine:
    """An engine that must not be asked."""

    def search(self, position: Position, limit: Limit | None = None, *,
               history: Sequence[Position] = (), halfmove_clock: int = 0,
               on_info: InfoCallback | None = None,
               stop: threading.Event | None = None) -> SearchResult:
        raise AssertionError("the engine searched")


def test_a_game_that_changed_since_its_review_is_reviewed_anew(client: TestClient) -> None:
    game = new_game(client, mode="analysis")
    for move in LINE[:4]:
        play(client, game, move)
    assert client.get(review_path(game)).json()["status"] == "none"
    assert_error(client.get(review_path(game, ".pdn")), 404, "no review", code="review_not_found")
    assert reviewed(client, game)["positions"] == 5
    play(client, game, LINE[4])
    assert client.get(review_path(game)).json()["status"] == "none"
    assert_error(client.get(review_path(game, ".pdn")), 404, code="review_not_found")
    assert [move["move"] for move in reviewed(client, game)["moves"]] == list(LINE[:5])


def test_a_game_between_people_is_reviewed_once_it_has_ended(client: TestClient) -> None:
    game = played(client, "friend", resign=False)
    for answer in (client.post(review_path(game)), client.get(review_path(game)),
                   client.get(review_path(game, ".pdn"))):
        assert_error(answer, 409, "opens when it ends", code="game_in_progress")
    client.post(f"/api/games/{game['id']}/resign", headers=auth(game, "black"))
    marks = [move["mark"] for move in reviewed(client, game)["moves"]]
    _, analyses = analysed_here(client, game)
    assert marks == [None if analysis.judgement is None
                     else nags.mark_of_nag(analysis.judgement.value) for analysis in analyses]
    assert any(mark is not None for mark in marks[::2])


def test_reviews_of_unknown_and_private_games(client: TestClient) -> None:
    for answer in (client.post("/api/games/g_nowhere/review"),
                   client.get("/api/games/g_nowhere/review"),
                   client.get("/api/games/g_nowhere/review.pdn")):
        assert_error(answer, 404, "g_nowhere", code="game_not_found")
    game = new_game(client, mode="analysis", private=True)
    assert_error(client.post(review_path(game)), 403, "private")
    assert client.post(review_path(game), headers=auth(game, "owner")).status_code == 202
    assert_error(client.get(review_path(game), params={"wait": 31}), 422, "wait")


class HeldEngine:
    """An engine whose searches wait until the test lets them go (``release``)."""

    def __init__(self, release: threading.Event, started: threading.Semaphore) -> None:
        self.release = release
        self.started = started

    def search(self, position: Position, limit: Limit | None = None, *,
               history: Sequence[Position] = (), halfmove_clock: int = 0,
               on_info: InfoCallback | None = None,
               stop: threading.Event | None = None) -> SearchResult:
        self.started.release()
        assert self.release.wait(WAIT)
        move = min(Board.from_position(position).legal_moves, key=lambda move: move.path)
        return SearchResult(move, Score(0), 1, 1, 1, 0.001, (move,))


async def _reviews_are_bounded(db_path: Path) -> None:
    release, started = threading.Event(), threading.Semaphore(0)
    app = make_app(db_path, engine_threads=2, new_engine=lambda: HeldEngine(release, started),
                   review_limits=ReviewLimits(per_client=1, at_once=2))

    def client_at(address: str) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(address, 5000)),
                                 base_url="http://test")

    async with app.router.lifespan_context(app), client_at("192.0.2.1") as first, \
            client_at("192.0.2.2") as second, client_at("192.0.2.3") as third:
        games = []
        for _ in range(4):
            answer = await first.post("/api/games", json={"mode": "analysis"})
            games.append(answer.json()["id"])
        answer = await first.post(f"/api/games/{games[0]}/review")
        assert answer.status_code == 202
        assert await asyncio.to_thread(started.acquire, timeout=WAIT)
        # One review a game: asking again answers the one that runs.
        again = await second.post(f"/api/games/{games[0]}/review")
        assert again.status_code == 202 and again.json()["status"] == "running"
        # One at a time per client, two on the server.
        assert_error(await first.post(f"/api/games/{games[1]}/review"), 429,
                     "reviews at once", code="too_many_reviews")
        assert (await second.post(f"/api/games/{games[1]}/review")).status_code == 202
        assert_error(await third.post(f"/api/games/{games[2]}/review"), 429,
                     code="too_many_reviews")
        release.set()
        for game in games[:2]:
            answer = await first.get(f"/api/games/{game}/review", params={"wait": WAIT})
            assert answer.json()["status"] == "done"
        assert (await first.post(f"/api/games/{games[2]}/review")).status_code == 202
        assert (await third.post(f"/api/games/{games[3]}/review")).status_code == 202


def test_reviews_run_one_a_game_one_a_client_and_two_in_all(db_path: Path) -> None:
    asyncio.run(_reviews_are_bounded(db_path))


class BrokenEngine:
    """An engine whose every search fails, as a fault of the server's would."""

    def search(self, position: Position, limit: Limit | None = None, *,
               history: Sequence[Position] = (), halfmove_clock: int = 0,
               on_info: InfoCallback | None = None,
               stop: threading.Event | None = None) -> SearchResult:
        raise RuntimeError("a bug")


def test_a_review_that_fails_says_so_and_is_asked_again(db_path: Path) -> None:
    with TestClient(make_app(db_path, new_engine=BrokenEngine)) as client:
        game = played(client, moves=LINE[:2])
        assert client.post(review_path(game)).status_code == 202
        failed = client.get(review_path(game), params={"wait": WAIT}).json()
        assert (failed["status"], failed["error"]) == (
            "failed", "the review failed on an error of the server")
        again = client.post(review_path(game))  # starts anew
        assert again.status_code == 202 and again.json()["status"] == "running"


def test_each_position_has_its_share_of_the_total_time(db_path: Path) -> None:
    seen: list[Limit | None] = []

    class Recorder:
        def search(self, position: Position, limit: Limit | None = None, *,
                   history: Sequence[Position] = (), halfmove_clock: int = 0,
                   on_info: InfoCallback | None = None,
                   stop: threading.Event | None = None) -> SearchResult:
            seen.append(limit)
            move = min(Board.from_position(position).legal_moves, key=lambda move: move.path)
            return SearchResult(move, Score(0), 1, 1, 1, 0.001, (move,))

    limits = ReviewLimits(seconds_per_position=0.5, total_seconds=2.25)
    with TestClient(make_app(db_path, new_engine=Recorder, review_limits=limits)) as client:
        short, long = played(client, moves=LINE[:2]), played(client)
        assert reviewed(client, short)["limit"] == {"depth": None, "seconds": 0.5}
        assert reviewed(client, long)["limit"] == {"depth": None, "seconds": 0.25}
    assert seen == [Limit(time=0.5)] * 3 + [Limit(time=0.25)] * 9


def test_deleting_a_game_deletes_its_review(client: TestClient) -> None:
    game = played(client)
    reviewed(client, game)
    assert client.delete(f"/api/games/{game['id']}", headers=auth(game, "black")).status_code == 204
    store = client.app.state.games.store  # type: ignore[attr-defined]
    assert store.review(game["id"]) is None


# -- the notes of imported games ------------------------------------------------------

ANNOTATED = """[Event "Club"]
[Black "Ann"]
[White "Bob"]
{A game of the club's} 1. 11-15 {the Old Fourteenth's start} 23-19 2. 8-11! (2. 9-13 $6
22-18 (22-17) 15x22) 22-17 3. 9-13?? 24-20 1-0
"""


def imported(client: TestClient, text: str = ANNOTATED) -> dict[str, Any]:
    answer = client.post("/api/games/import", json={"pdn": text})
    assert answer.status_code == 201, answer.text
    game: dict[str, Any] = answer.json()["games"][0]
    return game


def test_an_imported_game_keeps_its_comments_nags_and_variations(client: TestClient) -> None:
    game = imported(client)
    assert game["moves"] == ["11-15", "23-19", "8-11", "22-17", "9-13", "24-20"]
    notes = client.get(f"/api/games/{game['id']}/notes").json()
    assert notes["comment"] == "A game of the club's"
    moves = {move["ply"]: move for move in notes["moves"]}
    assert sorted(moves) == [1, 3, 5]
    assert (moves[1]["move"], moves[1]["comment"], moves[1]["nags"]) == (
        "11-15", "the Old Fourteenth's start", [])
    assert (moves[3]["move"], moves[3]["nags"]) == ("8-11", [nags.GOOD_MOVE])
    assert moves[5]["nags"] == [nags.BLUNDER]
    (line,) = moves[3]["variations"]
    assert [(move["ply"], move["move"], move["nags"]) for move in line] == [
        (3, "9-13", [nags.DUBIOUS_MOVE]), (4, "22-18", []), (5, "15x22", [])]
    board = Board()
    for text in ("11-15", "23-19", "9-13", "22-18"):
        board.push_str(text)
    assert line[1]["fen"] == board.fen()
    assert [[move["move"] for move in nested] for nested in line[1]["variations"]] == [
        ["22-17"]]
    # The PDN download keeps them.
    text = client.get(f"/api/games/{game['id']}/pdn").text
    assert "{the Old Fourteenth's start}" in text
    assert "(2. 9-13?! 22-18 (2... 22-17) 3. 15x22)" in text


def test_a_game_without_notes_has_none(client: TestClient) -> None:
    game = imported(client, "1. 11-15 23-19 *")
    assert client.get(f"/api/games/{game['id']}/notes").json() == {"comment": "", "moves": []}
    played_game = played(client, moves=LINE[:2])
    assert client.get(f"/api/games/{played_game['id']}/notes").json()["moves"] == []
    assert_error(client.get("/api/games/g_nowhere/notes"), 404, code="game_not_found")


def test_notes_follow_the_game_where_it_leaves_the_imported_line(client: TestClient) -> None:
    game = imported(client)
    owner = auth(game, "owner")
    for _ in range(3):  # back to before 2... 22-17; the game then takes 22-18 instead
        assert client.post(f"/api/games/{game['id']}/takeback", headers=owner).status_code == 200
    assert play(client, game, "22-18").status_code == 200
    notes = {move["ply"]: move for move in
             client.get(f"/api/games/{game['id']}/notes").json()["moves"]}
    assert sorted(notes) == [1, 3, 4]  # 9-13?? went with the line left behind
    (left,) = notes[4]["variations"]
    assert [(move["move"], move["nags"]) for move in left] == [
        ("22-17", []), ("9-13", [nags.BLUNDER]), ("24-20", [])]


def test_the_review_of_an_imported_game_keeps_its_own_notes(client: TestClient) -> None:
    game = imported(client)
    reviewed(client, game)
    text = " ".join(client.get(review_path(game, ".pdn")).text.split())  # lines as one
    assert "{the Old Fourteenth's start [" in text  # its comment, then the engine's note
    assert "(2. 9-13?! 22-18 (2... 22-17) 3. 15x22)" in text
    assert "9-13??" in text  # its own mark stays


def nested_variations(levels: int) -> str:
    """A game of one move whose variation holds a variation, and so on ``levels`` deep."""
    game = Game()
    board = Board()
    parent: GameNode = game
    main = parent.add_variation(sorted(board.legal_moves, key=lambda move: move.path)[1])
    for _ in range(levels):  # these moves never come to a forced one
        second, first = sorted(board.legal_moves, key=lambda move: move.path)[:2]
        if not parent.variations:
            parent.add_variation(first)
        parent = parent.add_variation(second)  # a variation, inside the one it is in
        board.push(second)
    assert main.is_mainline()
    return str(game)


def test_deep_variations_are_left_out_of_the_notes_not_the_pdn(client: TestClient) -> None:
    game = imported(client, nested_variations(12))
    (first,) = client.get(f"/api/games/{game['id']}/notes").json()["moves"]
    depth, lines = 0, first["variations"]
    while lines:
        depth += 1
        (line,) = lines
        lines = line[1]["variations"] if len(line) > 1 else []
    assert depth == MAX_NOTE_DEPTH
    assert client.get(f"/api/games/{game['id']}/pdn").text.count("(") == 12


# -- fair play --------------------------------------------------------------------


@pytest.fixture
def games_db(tmp_path: Path) -> Path:
    (tmp_path / "club.pdn").write_text(COLLECTION, encoding="utf-8")
    with GameDatabase(tmp_path / "games-db.sqlite3") as opened:
        opened.import_files([tmp_path / "club.pdn"])
    return opened.path


@pytest.fixture
def people_app(db_path: Path, games_db: Path) -> Iterator[FastAPI]:
    app = make_app(db_path, games_db=games_db, password_hasher=fast_hasher())
    with TestClient(app):
        yield app


def browser(app: FastAPI, address: str = "192.0.2.1") -> TestClient:
    """A browser of its own (its own cookies), sending the page's Origin."""
    return TestClient(app, client=(address, 50000), headers=ORIGIN)


def fen_of(client: TestClient, game: dict[str, Any]) -> str:
    return str(client.get(f"/api/games/{game['id']}").json()["fen"])


def explore(client: TestClient, fen: str, **options: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {options.pop('token')}"} if "token" in options else {}
    return client.get("/api/explore", params={"fen": fen, **options}, headers=headers)


def test_the_explorer_refuses_the_position_of_a_live_game_to_its_seats(
        people_app: FastAPI) -> None:
    client = browser(people_app)
    game = played(client, "friend", moves=["11-15"], resign=False)
    fen = fen_of(client, game)
    for seat in ("black", "white"):
        assert_error(explore(client, fen, token=game["tokens"][seat]), 403,
                     game["id"], "fair play", code="fair_play")
    # Anyone naming the game is refused; others, and other positions, are not.
    assert_error(explore(browser(people_app, "192.0.2.9"), fen, game=game["id"]), 403,
                 code="fair_play")
    assert explore(browser(people_app, "192.0.2.9"), fen).json()["games"] == 3
    before = Board().fen()
    assert explore(client, before, token=game["tokens"]["black"]).status_code == 200
    # It opens when the game ends.
    client.post(f"/api/games/{game['id']}/resign", headers=auth(game, "white"))
    assert explore(client, fen, token=game["tokens"]["black"]).json()["games"] == 3
    assert explore(client, fen, game=game["id"]).status_code == 200


def test_a_game_at_one_board_or_against_the_engine_is_no_game_between_people(
        people_app: FastAPI) -> None:
    client = browser(people_app)
    two_player = played(client, moves=["11-15"], resign=False)
    assert explore(client, fen_of(client, two_player), token=two_player["tokens"]["white"],
                   game=two_player["id"]).status_code == 200
    engine = new_game(client, mode="engine", human="white", level=1)
    assert explore(client, fen_of(client, engine), token=engine["tokens"]["white"],
                   game=engine["id"]).status_code == 200


def test_the_explorer_refuses_it_to_the_account_that_holds_a_seat(people_app: FastAPI) -> None:
    ann = browser(people_app)
    assert ann.post("/api/account/signup",
                    json={"username": "Ann", "password": PASSWORD}).status_code == 201
    game = new_game(ann, mode="friend")  # Ann's account holds the black seat
    bob = browser(people_app, "192.0.2.2")
    bob_seat = {"Authorization": "Bearer " + bob.post(
        f"/api/games/{game['id']}/join", json={"secret": game["invite"]["secret"]}
    ).json()["tokens"]["white"]}
    assert ann.post(f"/api/games/{game['id']}/moves", json={"move": "11-15"}).status_code == 200
    assert bob.post(f"/api/games/{game['id']}/moves", json={"move": "23-19"},
                    headers=bob_seat).status_code == 200
    fen = fen_of(ann, game)
    assert_error(explore(ann, fen), 403, code="fair_play")  # by the session alone
    assert explore(browser(people_app, "192.0.2.9"), fen).status_code == 200


def start_analysis(socket: Any, **fields: Any) -> dict[str, Any]:
    """Start an analysis: its refusal, or (stopped at its first depth) its ``done``."""
    socket.send_json({"action": "start", **fields})
    first: dict[str, Any] = socket.receive_json()
    if first["type"] == "info":
        socket.send_json({"action": "stop"})
        return receive_until_done(socket)[-1]
    return first


def test_the_analysis_stream_refuses_a_live_game_to_its_seats_and_spectators(
        people_app: FastAPI) -> None:
    ann = browser(people_app)
    assert ann.post("/api/account/signup",
                    json={"username": "Ann", "password": PASSWORD}).status_code == 201
    game = played(ann, "friend", moves=["11-15"], resign=False)
    position = {"fen": fen_of(ann, game)}
    token = {"Authorization": f"Bearer {game['tokens']['white']}"}
    watcher = browser(people_app, "192.0.2.9")
    with ann.websocket_connect("/api/analysis") as by_session, \
            watcher.websocket_connect("/api/analysis", headers=token) as by_token, \
            watcher.websocket_connect("/api/analysis") as spectator:
        for socket, fields in ((by_session, position), (by_token, position),
                               (spectator, {**position, "game": game["id"]}),
                               (spectator, {"game": game["id"]})):
            refused = start_analysis(socket, **fields)
            assert refused["type"] == "error" and refused["code"] == "fair_play", refused
            assert game["id"] in refused["error"]
        assert start_analysis(spectator, **position)["type"] == "done"  # it names nothing
        assert start_analysis(by_session, moves=["11-15", "22-18"])["type"] == "done"
        ann.post(f"/api/games/{game['id']}/resign", headers=auth(game, "white"))
        for socket, fields in ((by_session, position), (by_token, position),
                               (spectator, {**position, "game": game["id"]})):
            assert start_analysis(socket, **fields)["type"] == "done"
