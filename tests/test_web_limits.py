"""What one client may ask: rate limits, caps on games, analyses at once, the fair engine queue.

Limits are set small in each test (``ServerLimits``) so that a few requests
reach them; the clock is never waited on: a refused request is checked for
its ``Retry-After``, not retried.
"""

from __future__ import annotations

import asyncio
import json
import threading
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from doublecorner.web import games as games_module
from doublecorner.web import limits as limits_module
from doublecorner.web.engine_pool import EnginePool
from doublecorner.web.engine_queue import FairQueue, Priority
from doublecorner.web.json_body import parse_json
from doublecorner.web.limits import ServerLimits
from doublecorner.web.pdn_games import ImportedGame, imported_games
from tests.test_web_api import (
    ENGINE_WINNING_FEN,
    ORIGIN,
    WAIT,
    Gate,
    assert_error,
    auth,
    make_app,
    mine,
    new_game,
    play,
    post,
    receive_until_done,
)


def app_with(tmp_path: Path, **limits: Any) -> TestClient:
    return TestClient(make_app(tmp_path / "games.sqlite3", limits=ServerLimits(**limits)))


def test_writes_over_the_rate_are_a_429_with_retry_after(tmp_path: Path) -> None:
    with app_with(tmp_path, write_rate=0.5, write_burst=3) as client:
        games = [new_game(client, mode="two-player") for _ in range(3)]
        answer = client.post("/api/games", json={"mode": "two-player"})
        assert_error(answer, 429, "too many requests")
        assert answer.headers["retry-after"] == "2"
        assert_error(play(client, games[0], "11-15", "black"), 429)
        # Reading is not limited.
        assert len(mine(client, *games)) == 3
        assert client.get(f"/api/games/{games[0]['id']}").json()["moves"] == []


def test_a_client_keeps_at_most_its_cap_of_games(tmp_path: Path) -> None:
    with app_with(tmp_path, max_games_per_client=3) as client:
        games = [new_game(client, mode="analysis") for _ in range(3)]
        assert_error(client.post("/api/games", json={"mode": "two-player"}), 429,
                     "at most 3 games")
        text = '[Event "a"]\n1. 11-15 *\n\n[Event "b"]\n1. 9-13 *\n'
        client.delete(f"/api/games/{games[0]['id']}", headers=auth(games[0], "owner"))
        assert_error(client.post("/api/games/import", json={"pdn": text}), 429,
                     "more games than the 1 there is room for")
        assert client.app.state.games.store.count() == 2  # all or nothing
        assert new_game(client, mode="two-player")["mode"] == "two-player"


def test_the_server_keeps_at_most_its_cap_of_games(tmp_path: Path) -> None:
    with app_with(tmp_path, max_games=2, max_games_per_client=None) as client:
        new_game(client, mode="analysis")
        new_game(client, mode="analysis")
        assert_error(client.post("/api/games", json={"mode": "analysis"}), 429,
                     "at most 2 games")


def test_a_pdn_file_of_some_megabytes_is_imported(tmp_path: Path) -> None:
    comment = "{" + "a long annotation " * 800 + "}"
    games = [f'[Event "game {number}"]\n1. 11-15 {comment} 23-19 *\n' for number in range(200)]
    text = "\n".join(games)
    assert len(text.encode()) > 2_800_000
    with app_with(tmp_path) as client:
        answer = client.post("/api/games/import", json={"pdn": text})
        assert answer.status_code == 201, answer.text[:200]
        body = answer.json()
        assert len(body["games"]) == 200 and body["errors"] == []
        assert body["games"][-1]["moves"] == ["11-15", "23-19"]
        too_big = client.post("/api/games/import", json={"pdn": text * 3})
        assert_error(too_big, 413, "limit of 8388608")


def test_a_client_runs_at_most_its_analyses_at_once(tmp_path: Path) -> None:
    gate = Gate()
    app = make_app(tmp_path / "games.sqlite3", new_engine=gate.engines(), engine_threads=2,
                   limits=ServerLimits(analyses_per_client=1))
    with TestClient(app) as client, \
            client.websocket_connect("/api/analysis", headers=ORIGIN) as first, \
            client.websocket_connect("/api/analysis", headers=ORIGIN) as second:
        first.send_json({"action": "start"})
        assert first.receive_json()["type"] == "info"
        second.send_json({"action": "start"})
        refused = second.receive_json()
        assert refused["type"] == "error" and "at most 1 analyses at once" in refused["error"]
        first.send_json({"action": "stop"})
        assert receive_until_done(first)[-1]["type"] == "done"
        second.send_json({"action": "start", "fen": "W:W18:B14"})  # the slot is free again
        assert receive_until_done(second)[-1] == {"type": "done", "bestmove": "18x9"}


def test_analysis_starts_over_the_rate_are_refused_with_retry_after(tmp_path: Path) -> None:
    with app_with(tmp_path, analysis_rate=0.25, analysis_burst=2) as client, \
            client.websocket_connect("/api/analysis", headers=ORIGIN) as socket:
        for _ in range(2):
            socket.send_json({"action": "start", "fen": "B:W9:B"})
            assert socket.receive_json() == {"type": "done", "bestmove": None}
        socket.send_json({"action": "start", "fen": "B:W9:B"})
        refused = socket.receive_json()
        assert refused["type"] == "error" and refused["retry_after"] == 4
        assert "too many analyses" in refused["error"]


@pytest.mark.parametrize("threads", [1, 2])
def test_analysis_cannot_starve_a_game(tmp_path: Path, threads: int) -> None:
    # Every engine thread runs an analysis that would go on until stopped; an engine
    # game's reply stops the oldest one and gets its thread.
    gate = Gate()
    app = make_app(tmp_path / "games.sqlite3", new_engine=gate.engines(),
                   engine_threads=threads, limits=ServerLimits(analyses_per_client=threads))
    with TestClient(app) as client:
        sockets = [client.websocket_connect("/api/analysis", headers=ORIGIN)
                   for _ in range(threads)]
        opened = [socket.__enter__() for socket in sockets]
        try:
            opened[0].send_json({"action": "start"})
            assert opened[0].receive_json()["type"] == "info"
            assert gate.started.wait(30)
            for socket in opened[1:]:  # the others run real searches, capped at 5 s
                socket.send_json({"action": "start"})
                assert socket.receive_json()["type"] == "info"
            game = new_game(client, mode="engine", human="black", level=1)
            answer = play(client, game, "11-15")
            assert answer.status_code == 200 and len(answer.json()["moves"]) == 2
            assert gate.was_stopped  # by the game's search, not by the test or the cap
            assert receive_until_done(opened[0])[-1]["type"] == "done"
        finally:
            for socket in sockets:
                socket.__exit__(None, None, None)


def test_websocket_handshakes_over_the_rate_are_refused(tmp_path: Path) -> None:
    with app_with(tmp_path, write_rate=0.1, write_burst=2) as client:
        for _ in range(2):
            with client.websocket_connect("/api/analysis", headers=ORIGIN):
                pass
        with pytest.raises(WebSocketDisconnect) as refused, \
                client.websocket_connect("/api/analysis", headers=ORIGIN):
            pass
        assert refused.value.code == 1013


def test_a_client_with_many_searches_waiting_does_not_hold_back_anothers() -> None:
    # One thread: client "a" has a search running and three more waiting (a move
    # in each of its games); client "b" asks for one. "b" is next, not after "a"'s.
    async def served_order() -> list[str]:
        queue = FairQueue(slots=1)
        running = await queue.acquire(Priority.GAME, "a", threading.Event())
        order: list[str] = []

        async def search(client: str) -> None:
            ticket = await queue.acquire(Priority.GAME, client, threading.Event())
            order.append(client)
            queue.release(ticket)

        waiting = [asyncio.create_task(search(client)) for client in ("a", "a", "a", "b")]
        await asyncio.sleep(0)  # let each task reach the queue
        queue.release(running)
        await asyncio.gather(*waiting)
        return order

    assert asyncio.run(served_order()) == ["b", "a", "a", "a"]


def test_engine_searches_wait_in_the_queue_as_the_client_that_asked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The queue takes turns by client: a game's search must come as its client's
    # (the address the limits count by), not as the game's own.
    clients: list[str] = []
    search = EnginePool.search

    async def recording(self: EnginePool, *args: Any, **options: Any) -> Any:
        clients.append(options["client"])
        return await search(self, *args, **options)

    monkeypatch.setattr(EnginePool, "search", recording)
    with TestClient(make_app(tmp_path / "games.sqlite3")) as client:
        first = new_game(client, mode="engine", human="white", level=1)  # the engine opens
        second = new_game(client, mode="engine", human="black", level=1)
        assert play(client, second, "11-15").status_code == 200
        drawn = new_game(client, mode="engine", human="black", level=1, fen=ENGINE_WINNING_FEN)
        assert post(client, drawn, "draw", {"action": "offer"}).status_code == 200
    assert first["id"] != second["id"]
    assert clients == ["testclient"] * 3


def pdn_of(games: int) -> str:
    return "\n".join(f'[Event "game {number}"]\n1. 11-15 23-19 *\n' for number in range(games))


TEN_GAMES = pdn_of(10)


class CountedReader:
    """Stands in for the import's reader: the real one, counting the games it gave; or,
    with ``hold``, one that tells ``entered`` and waits for ``hold`` before the first."""

    def __init__(self, hold: threading.Event | None = None) -> None:
        self.read = 0
        self.hold = hold
        self.entered = threading.Event()

    def __call__(self, text: str, **options: Any) -> Iterator[ImportedGame]:
        self.entered.set()
        if self.hold is not None:
            assert self.hold.wait(WAIT)
        for game in imported_games(text, **options):
            self.read += 1
            yield game


@pytest.fixture
def reader(monkeypatch: pytest.MonkeyPatch) -> CountedReader:
    counted = CountedReader()
    monkeypatch.setattr(games_module, "imported_games", counted)
    return counted


def test_an_import_at_the_cap_is_refused_before_reading(tmp_path: Path,
                                                        reader: CountedReader) -> None:
    with app_with(tmp_path, max_games_per_client=1) as client:
        new_game(client, mode="analysis")
        assert_error(client.post("/api/games/import", json={"pdn": TEN_GAMES}), 429,
                     "at most 1 games, and you have 1", "no room")
    assert not reader.entered.is_set()


@pytest.mark.parametrize(("limits", "words"), [
    ({"max_games_per_client": 3}, "one client may keep at most 3 games, and you have 1"),
    ({"max_games": 3, "max_games_per_client": None}, "the server keeps at most 3 games and has 1"),
])
def test_an_import_over_the_room_left_stops_reading_one_game_past_it(
        tmp_path: Path, reader: CountedReader, limits: dict[str, Any], words: str) -> None:
    with app_with(tmp_path, **limits) as client:
        new_game(client, mode="analysis")
        answer = client.post("/api/games/import", json={"pdn": TEN_GAMES})
        assert_error(answer, 429, words, "more games than the 2 there is room for")
        assert reader.read == 3  # of ten
        assert client.app.state.games.store.count() == 1  # nothing stored
        answer = client.post("/api/games/import", json={"pdn": pdn_of(2)})
        assert answer.status_code == 201 and len(answer.json()["games"]) == 2


def test_imports_run_one_per_client_and_two_at_once(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    hold = threading.Event()
    reader = CountedReader(hold)
    monkeypatch.setattr(games_module, "imported_games", reader)
    given_back: list[bool] = []
    monkeypatch.setattr(limits_module, "give_memory_back", lambda: given_back.append(True))
    app = make_app(tmp_path / "games.sqlite3")

    async def imports() -> list[httpx.Response]:
        def client(address: str) -> httpx.AsyncClient:
            transport = httpx.ASGITransport(app=app, client=(address, 50000))
            return httpx.AsyncClient(transport=transport, base_url="http://testserver")

        async with app.router.lifespan_context(app), client("10.0.0.1") as first, \
                client("10.0.0.2") as second, client("10.0.0.3") as third:
            body = {"pdn": TEN_GAMES}
            running = asyncio.create_task(first.post("/api/games/import", json=body))
            assert await asyncio.to_thread(reader.entered.wait, WAIT)  # it holds a slot
            answers = [await first.post("/api/games/import", json=body)]  # its second
            reader.entered.clear()
            other = asyncio.create_task(second.post("/api/games/import", json=body))
            assert await asyncio.to_thread(reader.entered.wait, WAIT)
            answers.append(await third.post("/api/games/import", json=body))  # a third in all
            hold.set()
            answers += [await running, await other]
            answers.append(await third.post("/api/games/import", json=body))  # room again
            return answers

    busy_own, busy_all, *done = asyncio.run(imports())
    for busy in (busy_own, busy_all):
        assert_error(busy, 429, "busy with other imports", "at most 1 per client and 2 at once")
        assert busy.headers["retry-after"] == "5"
    assert [answer.status_code for answer in done] == [201, 201, 201]
    assert len(given_back) == 3  # once after each import that ran


def test_a_big_import_body_is_read_in_memory_of_its_own_size() -> None:
    # The depth check once ran a regex over the whole PDN string: 145 MB of regex state
    # for this 1.3 MB body (8 MiB imports took a gigabyte).
    body = json.dumps({"pdn": '[Event "x"]\n1. 11-15 23-19 *\n' * 40_000}).encode()
    tracemalloc.start()
    try:
        assert parse_json(body)["pdn"].count("[Event") == 40_000
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(body)
