"""Load check of ``doublecorner serve``: many concurrent games over HTTP against real uvicorn.

Usage::

    python bench/web.py            # 50 games x 20 moves, 12 clients (well under a minute)
    python bench/web.py --quick    # 10 games x 6 moves, 4 clients: a smoke run
    python bench/web.py --json     # one JSON document on stdout instead of the table
    python bench/web.py --clients 50 --games 300 --kill-after 5   # kill -9 the server mid-run
    python bench/web.py people     # 300 rated games between accounts, 1,000 spectators
                                   # (bench/web_people.py; `people --help` for its options)

The server runs in a thread of this process (uvicorn on 127.0.0.1, a free
port, a temporary database), exactly as ``doublecorner serve`` builds it.
``--clients`` async HTTP clients (httpx) play the games between them, each
game from start to end by one client: two of every three games are against
the engine (level 1 by default, the human alternately Black and White), the
third is a two-player game. Every move is a random legal move taken from
the previous answer (seeded), sent with the token of the side that plays it.
Each answer is checked: the moves must be the ones before plus the one just
played (and the engine's reply). Every client comes from 127.0.0.1, so the
per-client write rate, game cap and connections per address are lifted: the
bench measures the server, not its limits.

Reported: move requests per second (and plies stored per second, engine
replies included) and the latency percentiles of each kind of request. Then
the server is shut down and the database file read back: every game must
hold exactly the moves the clients were told were played. Exit status 0, or
1 when a request failed, an answer was wrong or a game was lost.

With ``--kill-after S`` the server runs in a process of its own and gets
SIGKILL after S seconds, in the middle of the clients' requests; then the
database is read back: every game must begin with every move the clients
were answered for (a move in flight at the kill may or may not be there).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn

import web_people  # bench/ is the script's folder, so it is on the path
from doublecorner.web.app import create_app
from doublecorner.web.http_protocol import server_config
from doublecorner.web.limits import ServerLimits
from doublecorner.web.store import GameStore

HOST = "127.0.0.1"  # loopback only
# Every client is 127.0.0.1: the bench measures the server, not its limits.
LIFTED = ServerLimits(write_rate=1e9, write_burst=10**9, max_games_per_client=None,
                      max_connections_per_client=10**6)
SEED = 20261130
STARTUP_TIMEOUT = 30.0


@dataclass(frozen=True)
class Plan:
    games: int
    moves: int
    clients: int


FULL = Plan(games=50, moves=20, clients=12)
QUICK = Plan(games=10, moves=6, clients=4)


@dataclass
class Tally:
    """What the clients saw: latencies by kind of request, failures, and each game's moves."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    failures: list[str] = field(default_factory=list)
    played: dict[str, list[str]] = field(default_factory=dict)
    move_requests: int = 0
    killed: bool = False  # the server was killed on purpose: failures from then on are cuts
    cut: int = 0


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class ServerThread:
    """uvicorn serving ``app`` on a loopback socket in a background thread."""

    def __init__(self, app: Any, limits: ServerLimits) -> None:
        # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say
        # they are TCP, and without it every answer waits ~40 ms for a delayed ACK.
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.socket.bind((HOST, 0))
        self.url = f"http://{HOST}:{self.socket.getsockname()[1]}"
        config = server_config(app, limits, log_level="warning", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run,
                                       kwargs={"sockets": [self.socket]}, daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not self.server.started:  # a bench may poll: nothing else says "ready"
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join()
        self.socket.close()


async def timed(tally: Tally, kind: str, request: Any) -> dict[str, Any] | None:
    """Await ``request``; record its latency under ``kind``; ``None`` (and a failure) if not 2xx."""
    started = time.perf_counter()
    try:
        answer: httpx.Response = await request
    except httpx.HTTPError as error:
        if tally.killed:
            tally.cut += 1
        else:
            tally.failures.append(f"{kind}: {type(error).__name__}: {error}")
        return None
    tally.latencies[kind].append(time.perf_counter() - started)
    if not answer.is_success:
        tally.failures.append(f"{kind}: {answer.status_code} {answer.text[:200]}")
        return None
    body: dict[str, Any] = answer.json()
    return body


async def play_game(client: httpx.AsyncClient, tally: Tally, number: int, plan: Plan,
                    level: int) -> None:
    rng = random.Random(SEED + number)
    if number % 3 == 2:
        body: dict[str, Any] = {"mode": "two-player"}
        kind = "move (two-player)"
    else:
        body = {"mode": "engine", "human": "black" if number % 2 == 0 else "white",
                "level": level}
        kind = "move (engine reply)"
    game = await timed(tally, "new game", client.post("/api/games", json=body))
    if game is None:
        return
    game_id = game["id"]
    tokens = game["tokens"]
    tally.played[game_id] = list(game["moves"])
    for _ in range(plan.moves):
        if game["outcome"] is not None:
            break
        move = rng.choice(game["legal_moves"])["move"]
        tally.move_requests += 1
        token = tokens.get(game["turn"]) or next(iter(tokens.values()))
        answer = await timed(tally, kind, client.post(
            f"/api/games/{game_id}/moves", json={"move": move},
            headers={"Authorization": f"Bearer {token}"}))
        if answer is None:
            return
        expected = [*tally.played[game_id], move]
        if answer["engine_reply"] is not None:
            expected.append(answer["engine_reply"]["move"])
        if answer["moves"] != expected:
            tally.failures.append(f"{game_id}: answered {answer['moves']}, expected {expected}")
            return
        tally.played[game_id] = expected
        game = answer
    final = await timed(tally, "get game", client.get(f"/api/games/{game_id}"))
    if final is not None and final["moves"] != tally.played[game_id]:
        tally.failures.append(f"{game_id}: reads {final['moves']}, played {tally.played[game_id]}")


async def run_clients(url: str, plan: Plan, level: int,
                      kill: tuple[float, subprocess.Popen[bytes]] | None = None
                      ) -> tuple[Tally, float]:
    tally = Tally()
    queue: asyncio.Queue[int] = asyncio.Queue()
    for number in range(plan.games):
        queue.put_nowait(number)
    limits = httpx.Limits(max_connections=plan.clients, max_keepalive_connections=plan.clients)

    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60.0) as client:
        async def worker() -> None:
            while not queue.empty():
                number = queue.get_nowait()
                await play_game(client, tally, number, plan, level)
                if (number + 1) % 10 == 0:
                    progress(f"  {number + 1} games started and played")

        async def killer(after: float, process: subprocess.Popen[bytes]) -> None:
            await asyncio.sleep(after)
            tally.killed = True
            process.send_signal(signal.SIGKILL)
            progress(f"  server killed (SIGKILL) after {after:g} s")

        started = time.perf_counter()
        tasks = [worker() for _ in range(plan.clients)]
        if kill is not None:
            tasks.append(killer(*kill))
        await asyncio.gather(*tasks)
        return tally, time.perf_counter() - started


SERVE = """
import sys
import uvicorn
from doublecorner.web.app import create_app
from doublecorner.web.http_protocol import server_config
from doublecorner.web.limits import ServerLimits
limits = ServerLimits(write_rate=1e9, write_burst=10**9, max_games_per_client=None,
                      max_connections_per_client=10**6)
app = create_app(sys.argv[1], engine_threads=int(sys.argv[3]), max_seconds=5.0, hash_mb=8,
                 limits=limits)
uvicorn.Server(server_config(app, limits, host="127.0.0.1", port=int(sys.argv[2]),
                             log_level="warning")).run()
"""


def start_server_process(db_path: Path, engine_threads: int) -> tuple[str, subprocess.Popen[bytes]]:
    """The app under uvicorn in a process of its own (so that it can be killed), and its URL."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-c", SERVE, str(db_path), str(port),
                                str(engine_threads)])
    url = f"http://{HOST}:{port}"
    deadline = time.monotonic() + STARTUP_TIMEOUT * 10  # a first run compiles the kernel
    while True:  # a bench may poll: nothing else says "ready"
        try:
            if httpx.get(f"{url}/api/health").status_code == 200:
                return url, process
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise RuntimeError("the server did not start")
        time.sleep(0.1)


def lost_games(db_path: Path, played: dict[str, list[str]], *,
               killed: bool = False) -> list[str]:
    """Games whose stored moves differ from what the clients played (or that are missing);
    after a kill, games that do not begin with every move the clients were answered for."""
    store = GameStore(db_path)
    try:
        lost = []
        for game_id, moves in played.items():
            record = store.get(game_id)
            stored = None if record is None else list(record.moves)
            if stored is None or (stored[:len(moves)] if killed else stored) != moves:
                lost.append(game_id)
        if not killed and store.count() != len(played):
            lost.append(f"{store.count()} games stored, {len(played)} played")
        return lost
    finally:
        store.close()


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50, p95 and p99 in milliseconds."""
    if len(samples) < 2:
        value = samples[0] * 1000 if samples else float("nan")
        return {"p50": value, "p95": value, "p99": value}
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return {"p50": cuts[49] * 1000, "p95": cuts[94] * 1000, "p99": cuts[98] * 1000}


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if given[:1] == ["people"]:
        return web_people.main(given[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run of some seconds")
    parser.add_argument("--games", type=int, help=f"games to play (default: {FULL.games})")
    parser.add_argument("--moves", type=int,
                        help=f"move requests per game at most (default: {FULL.moves})")
    parser.add_argument("--clients", type=int,
                        help=f"concurrent HTTP clients (default: {FULL.clients})")
    parser.add_argument("--level", type=int, default=1, help="engine level (default: 1)")
    parser.add_argument("--engine-threads", type=int, default=2,
                        help="the server's engine threads (default: 2)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="give up after this many seconds (default: 120)")
    parser.add_argument("--kill-after", type=float, metavar="S",
                        help="run the server as a process and SIGKILL it after S seconds")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    arguments = parser.parse_args(argv)
    base = QUICK if arguments.quick else FULL
    plan = Plan(games=arguments.games or base.games, moves=arguments.moves or base.moves,
                clients=arguments.clients or base.clients)

    with tempfile.TemporaryDirectory(prefix="doublecorner-web-bench-") as folder:
        db_path = Path(folder) / "games.sqlite3"
        progress(f"{plan.games} games x {plan.moves} moves, {plan.clients} clients, "
                 f"engine level {arguments.level}, {arguments.engine_threads} engine threads")
        if arguments.kill_after is None:
            app = create_app(db_path, engine_threads=arguments.engine_threads,
                             max_seconds=5.0, hash_mb=8, limits=LIFTED)
            with ServerThread(app, LIFTED) as server:
                progress(f"server on {server.url}")
                tally, seconds = asyncio.run(asyncio.wait_for(
                    run_clients(server.url, plan, arguments.level), arguments.timeout))
        else:
            url, process = start_server_process(db_path, arguments.engine_threads)
            progress(f"server process {process.pid} on {url}")
            try:
                tally, seconds = asyncio.run(asyncio.wait_for(
                    run_clients(url, plan, arguments.level,
                                kill=(arguments.kill_after, process)), arguments.timeout))
            finally:
                process.kill()
                process.wait()
        lost = lost_games(db_path, tally.played, killed=tally.killed)

    plies = sum(len(moves) for moves in tally.played.values())
    report = {
        "games": len(tally.played), "move_requests": tally.move_requests, "plies_stored": plies,
        "clients": plan.clients, "engine_level": arguments.level,
        "engine_threads": arguments.engine_threads, "seconds": round(seconds, 3),
        "move_requests_per_second": round(tally.move_requests / seconds, 1),
        "plies_per_second": round(plies / seconds, 1),
        "latency_ms": {kind: {name: round(value, 2) for name, value in
                              percentiles(samples).items()} | {"count": len(samples)}
                       for kind, samples in sorted(tally.latencies.items())},
        "failed_requests": tally.failures, "lost_games": lost,
        "killed": tally.killed, "requests_cut_by_the_kill": tally.cut,
        "acknowledged_plies": plies,
    }
    if arguments.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{report['games']} games, {tally.move_requests} move requests, {plies} plies "
              f"stored in {seconds:.1f} s with {plan.clients} clients")
        print(f"{report['move_requests_per_second']} move requests/s, "
              f"{report['plies_per_second']} plies/s (engine replies included)")
        print(f"{'request':<22}{'count':>7}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}")
        for kind, row in report["latency_ms"].items():
            print(f"{kind:<22}{row['count']:>7}{row['p50']:>10.1f}{row['p95']:>10.1f}"
                  f"{row['p99']:>10.1f}")
        if tally.killed:
            print(f"server killed mid-run: {tally.cut} requests cut; {plies} acknowledged "
                  f"plies checked in the database")
        print(f"failed requests: {len(tally.failures)}; lost games: {len(lost)}")
        for problem in [*tally.failures, *lost][:10]:
            print(f"  {problem}")
    return 0 if not tally.failures and not lost else 1


if __name__ == "__main__":
    sys.exit(main())
