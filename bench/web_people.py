"""The people scenario of ``bench/web.py``: rated games between accounts, watched live, at scale.

Usage::

    python bench/web.py people                    # 300 games, 1,000 spectators, 120 s
    python bench/web.py people --kill-at 60       # the same, with a kill -9 of the server at 60 s
    python bench/web.py people --games 4 --spectators 10 --seconds 5 --kill-at 2 --json

The server is ``create_app`` under uvicorn with :func:`server_config`, as ``doublecorner
serve`` runs it, in a process of its own (so that it can be killed) over a fresh database.
Every client comes from 127.0.0.1, so the server is started with the per-address limits
lifted (:data:`SERVE`: writes, connections, sign-ups, seeks per address); every other limit,
the Argon2id parameters and the database's ``synchronous=FULL`` are the defaults.

Before the clock starts, one client process (asyncio, httpx, websockets) makes two
accounts per game, each signed in: in the database before the server starts (as sign-up
does, one Argon2id hash of the password for all), or with ``--sign-up-through-api``
through ``POST /api/account/signup`` (Argon2id at its default cost: minutes for 600);
then it pairs them through the lobby (one posts a rated seek, the other accepts it; the
author finds the game in its own list), and opens the live streams: each player's, with
its session (as the page does), and the spectators', without one, spread over the games,
and ``--lobby`` signed-out sockets on the lobby, which get the watch list whenever a game
starts or ends. Each player has HTTP connections of its own, as a browser has. Then for
``--seconds`` each game is played by its two sessions, a random legal move of the side to
move (seeded) ``--think`` seconds (1 to 3) after the answer to the move before; a game
that ends is followed by its rematch (offered and accepted), and the streams of the old
game move to the new one, as the page does.

Measured: each move's round trip (POST sent, answer received); for each move, when each
spectator of its game got it on its stream, so the lag until every spectator had it;
deliveries over a second (late), plies a stream skipped without a reconnect (messages
lost), plies a stream never had by the end (lost: a stream that reconnects gets the game
again in its ``sync``, and counts the plies it learns that way as resynced); the memory of
the server (VmRSS, VmHWM) and of the client, the server's open connections, and the CPU
of both (the client must not be the bottleneck: it reports its event loop's lag too).

With ``--kill-at S`` the server gets SIGKILL S seconds into the run and is started again
on the same database and port at once; the players and streams reconnect with backoff
and go on. At the end the server stops and the database is read back: every move the
server answered, before the kill or after, must be in its game. Exit status 0, or 1 when
a move answered was lost, a stream lost a ply, or a request failed other than by the kill.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import http.cookiejar
import json
import os
import random
import re
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import websockets
from argon2 import PasswordHasher
from websockets.asyncio.client import connect
from websockets.typing import Origin

from doublecorner.web.account_record import SessionRecord
from doublecorner.web.store import GameStore
from doublecorner.web.tokens import new_token, token_hash

HOST = "127.0.0.1"
SEED = 20261130
PASSWORD = "bench password 2026"
STARTUP_SECONDS = 120.0  # a first run may compile the kernel
LATE_SECONDS = 1.0
SETTLE_SECONDS = 15.0  # after the last move: for the streams to catch up
BACKOFF_FIRST, BACKOFF_MOST = 0.05, 1.0  # seconds between reconnection attempts
SIGN_UPS_AT_ONCE = 4  # the server hashes two passwords at a time
SETUP_AT_ONCE = 32  # seeks, acceptances and stream handshakes in flight while setting up
SESSION_COOKIE = "doublecorner_session"

# The app as `doublecorner serve` builds it, with the limits of one address lifted: every
# client of the bench is 127.0.0.1. Arguments: the database, the port.
SERVE = """
import sys
import uvicorn
from doublecorner.web.app import create_app
from doublecorner.web.http_protocol import server_config
from doublecorner.web.limits import ServerLimits
limits = ServerLimits(write_rate=1e9, write_burst=10**9, max_games_per_client=None,
                      max_connections_per_client=10**6, sign_in_rate=1e9, sign_in_burst=10**9,
                      seeks_per_address=10**6, challenges_per_address=10**6)
app = create_app(sys.argv[1], engine_threads=1, hash_mb=8, limits=limits)
uvicorn.Server(server_config(app, limits, host="127.0.0.1", port=int(sys.argv[2]),
                             log_level="warning", access_log=False)).run()
"""

_T = TypeVar("_T")


@dataclass(frozen=True)
class PeoplePlan:
    """What to run: games, spectators, seconds of play, the kill, the clock, the pace."""

    games: int = 300
    spectators: int = 1000
    seconds: float = 120.0
    kill_at: float | None = None
    minutes: float = 10.0
    increment: float = 5.0
    think: tuple[float, float] = (1.0, 3.0)
    seed: int = SEED
    lobby: int = 100  # visitors with the lobby open (signed out)
    sign_up_through_api: bool = False


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def now() -> float:
    return time.perf_counter()


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50, p99 and the largest, in milliseconds (NaN without samples)."""
    if not samples:
        return {"p50": float("nan"), "p99": float("nan"), "max": float("nan"), "count": 0}
    if len(samples) == 1:
        cuts = [samples[0]] * 99
    else:
        cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return {"p50": round(cuts[49] * 1000, 1), "p99": round(cuts[98] * 1000, 1),
            "max": round(max(samples) * 1000, 1), "count": len(samples)}


# -- the server ---------------------------------------------------------------------------


def _proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in kB (empty once it is gone)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    return {name: int(value) for name, value in re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB",
                                                           text, re.MULTILINE)}


def _cpu_seconds(pid: int) -> float:
    """User and system CPU seconds a process has used (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _open_sockets(pid: int) -> int:
    """How many sockets a process holds open (the listening one among them)."""
    count = 0
    with contextlib.suppress(OSError):
        for name in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                count += os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:")
    return count


class Server:
    """The app in a process of its own on ``port`` over ``db_path``, logging to ``log``."""

    def __init__(self, db_path: Path, log: Path) -> None:
        with socket.socket() as probe:
            probe.bind((HOST, 0))
            self.port = probe.getsockname()[1]
        self.url = f"http://{HOST}:{self.port}"
        self.db_path = db_path
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.cpu_before = 0.0  # CPU seconds of the processes killed before this one

    async def start(self) -> float:
        """Start the server and wait until it answers; the seconds that took."""
        started = now()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-c", SERVE, str(self.db_path), str(self.port)],
                stdout=log, stderr=log)
        deadline = started + STARTUP_SECONDS
        async with httpx.AsyncClient(timeout=5.0) as client:
            while True:  # a bench may poll: nothing else says "ready"
                with contextlib.suppress(httpx.HTTPError):
                    if (await client.get(f"{self.url}/api/health")).status_code == 200:
                        return now() - started
                if now() > deadline or self.process.poll() is not None:
                    self.stop()
                    tail = self.log.read_text(errors="replace")[-2000:]
                    raise RuntimeError(f"the server did not start:\n{tail}")
                await asyncio.sleep(0.05)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def memory(self) -> dict[str, int]:
        return _proc_status(self.pid)

    def cpu_seconds(self) -> float:
        return self.cpu_before + _cpu_seconds(self.pid)

    def open_sockets(self) -> int:
        return _open_sockets(self.pid)

    async def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would."""
        assert self.process is not None
        self.cpu_before += _cpu_seconds(self.pid)
        self.process.send_signal(signal.SIGKILL)
        await asyncio.to_thread(self.process.wait)

    def stop(self) -> None:
        """Stop the server as an operator would (SIGTERM: it finishes and closes)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# -- what the clients saw ------------------------------------------------------------------


@dataclass
class Move:
    """A move a player sent: its game, its ply (1-based), when it was sent and answered."""

    game: str
    ply: int
    sent: float
    answered: float | None = None


@dataclass
class Receipt:
    """When a stream first had a ply, and how: ``live`` (its own message) or by a ``sync``."""

    at: float
    is_live: bool


@dataclass
class Follower:
    """One live stream, following a game and then its rematches: a spectator's (no session)
    or a player's (``cookie``)."""

    number: int
    game: str
    cookie: str | None = None
    moves: dict[str, list[str]] = field(default_factory=dict)  # what it knows of each game
    receipts: dict[str, dict[int, Receipt]] = field(default_factory=lambda: defaultdict(dict))
    skipped: int = 0  # plies a live message jumped over without a reconnect
    diverged: int = 0  # messages whose moves contradict what the stream had
    connects: int = 0
    closed_by_server: int = 0  # closed with 1013 (fell behind)
    synced_at: list[float] = field(default_factory=list)
    is_open: bool = False

    @property
    def is_spectator(self) -> bool:
        return self.cookie is None

    def saw(self, game: str, moves: list[str], *, is_live: bool, at: float) -> None:
        known = self.moves.setdefault(game, [])
        if moves[:len(known)] != known:
            self.diverged += 1
            return
        if is_live and len(moves) > len(known) + 1:
            self.skipped += len(moves) - len(known) - 1
        for ply in range(len(known) + 1, len(moves) + 1):
            self.receipts[game][ply] = Receipt(at, is_live)
        self.moves[game] = list(moves)


@dataclass
class Tally:
    """Everything the clients measured and checked."""

    moves: list[Move] = field(default_factory=list)
    acknowledged: dict[str, list[str]] = field(default_factory=dict)  # moves answered, by game
    failures: list[str] = field(default_factory=list)
    cut: int = 0  # requests cut by the kill (no answer)
    killed_at: float | None = None
    back_at: float | None = None  # when the restarted server answered its health check
    first_move_after_kill: float | None = None
    rematches: int = 0
    resynced_moves: int = 0  # the plies a player's client found out by reading its game again
    memory_before_kill: dict[str, int] = field(default_factory=dict)
    loop_lag: list[float] = field(default_factory=list)
    watch_lists: int = 0  # the watch lists the lobby's sockets received

    def fail(self, what: str) -> None:
        if len(self.failures) < 1000:
            self.failures.append(what)


class Web:
    """HTTP to the server as the page sends it: same origin, the session in a cookie."""

    def __init__(self, url: str, tally: Tally) -> None:
        self.url = url
        self.tally = tally
        # One client (its own connections) per session, as each player is a browser of
        # their own: one pool shared by 600 players made requests wait in httpx's pool
        # for up to seconds, which measured the bench's client rather than the server.
        self.clients: dict[str | None, httpx.AsyncClient] = {}
        self.tls = ssl.create_default_context()  # one for all: plain HTTP never uses it

    def _client(self, cookie: str | None) -> httpx.AsyncClient:
        if cookie not in self.clients:
            # The client keeps no cookies: each request sends its session's.
            jar = http.cookiejar.CookieJar(policy=http.cookiejar.DefaultCookiePolicy(
                allowed_domains=[]))
            self.clients[cookie] = httpx.AsyncClient(
                base_url=self.url, timeout=30.0, cookies=jar, headers={"Origin": self.url},
                limits=httpx.Limits(max_connections=6, max_keepalive_connections=2,
                                    # Below the server's 5 s: a connection the server is
                                    # closing as idle is never picked for a move.
                                    keepalive_expiry=4.0),
                verify=self.tls)
        return self.clients[cookie]

    async def close(self) -> None:
        for client in self.clients.values():
            await client.aclose()

    async def call(self, method: str, path: str, *, cookie: str | None = None,
                   body: Any = None) -> httpx.Response:
        headers = {} if cookie is None else {"Cookie": f"{SESSION_COOKIE}={cookie}"}
        return await self._client(cookie).request(method, path, json=body, headers=headers)

    async def until_answered(self, method: str, path: str, *, cookie: str | None = None,
                             body: Any = None) -> httpx.Response:
        """The answer to a request sent again, with backoff, until the server answers it
        (across a restart)."""
        wait = BACKOFF_FIRST
        while True:
            try:
                answer = await self.call(method, path, cookie=cookie, body=body)
                if answer.status_code < 500:
                    return answer
            except httpx.HTTPError:
                pass
            await asyncio.sleep(wait * random.uniform(0.5, 1.0))
            wait = min(wait * 2, BACKOFF_MOST)


def _answer_json(answer: httpx.Response, what: str) -> dict[str, Any]:
    if not answer.is_success:
        raise RuntimeError(f"{what}: {answer.status_code} {answer.text[:300]}")
    body: dict[str, Any] = answer.json()
    return body


async def _at_most(limit: int, jobs: list[Callable[[], Awaitable[_T]]]) -> list[_T]:
    """Run ``jobs``, at most ``limit`` at once, and return their results in order."""
    turns = asyncio.Semaphore(limit)

    async def run(job: Callable[[], Awaitable[_T]]) -> _T:
        async with turns:
            return await job()

    return await asyncio.gather(*(run(job) for job in jobs))


# -- setting up: accounts, games, streams ---------------------------------------------------


def accounts_in_store(db_path: Path, names: list[str]) -> list[str]:
    """New accounts written to the database before the server starts, each signed in; the
    secrets of their session cookies.

    The store does what sign-up does, but hashes the one password once: Argon2id at its
    default cost takes over a second a hash on this 2-core machine when it is busy, so 600
    sign-ups through the API would take minutes. The accounts can sign in with
    :data:`PASSWORD`.
    """
    digest = PasswordHasher().hash(PASSWORD)
    store = GameStore(db_path)
    try:
        secrets = []
        for name in names:
            account = store.add_account(name, digest, time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                    time.gmtime()))
            secret = new_token()
            stamp = time.time()
            store.add_session(SessionRecord(id=token_hash(secret), account_id=account.id,
                                            created=stamp, last_seen=stamp,
                                            user_agent="bench/web.py people", address=HOST))
            secrets.append(secret)
        return secrets
    finally:
        store.close()


async def sign_up(web: Web, username: str) -> str:
    """A new account through the API; the secret of its session cookie."""
    answer = await web.call("POST", "/api/account/signup",
                            body={"username": username, "password": PASSWORD})
    _answer_json(answer, f"sign-up of {username}")
    for value in answer.headers.get_list("set-cookie"):
        found = re.match(rf"{SESSION_COOKIE}=([^;]+)", value)
        if found:
            return found.group(1)
    raise RuntimeError(f"sign-up of {username}: no session cookie")


@dataclass
class Pair:
    """Two accounts that play each other: their names and session secrets."""

    names: tuple[str, str]
    cookies: tuple[str, str]

    def cookie_of(self, name: str) -> str:
        return self.cookies[self.names.index(name)]


async def pair_up(web: Web, pair: Pair, plan: PeoplePlan) -> dict[str, Any]:
    """The first game of ``pair``, through the lobby: the first posts a rated seek as Black,
    the second accepts it, and the first finds it among its games."""
    seek = _answer_json(await web.call(
        "POST", "/api/seeks", cookie=pair.cookies[0],
        body={"minutes": plan.minutes, "increment": plan.increment, "rated": True,
              "color": "black"}), "seek")
    game = _answer_json(await web.call("POST", f"/api/seeks/{seek['id']}/accept",
                                       cookie=pair.cookies[1]), "accept")
    listed = _answer_json(await web.call("GET", "/api/games?limit=1", cookie=pair.cookies[0]),
                          "games")
    if [one["id"] for one in listed["games"]] != [game["id"]]:
        raise RuntimeError(f"{pair.names[0]} does not find game {game['id']} in its list")
    return game


# -- playing and following -----------------------------------------------------------------


class Run:
    """The clients of one run: players' drivers, streams, and the server's kill and restart."""

    def __init__(self, server: Server, web: Web, plan: PeoplePlan, tally: Tally) -> None:
        self.server = server
        self.web = web
        self.plan = plan
        self.tally = tally
        self.playing = True  # the drivers send moves while this holds
        self.following = True  # the streams stay open (and reconnect) while this holds
        self.origin = Origin(server.url)

    async def drive(self, number: int, pair: Pair, game: dict[str, Any]) -> None:
        """Play ``pair``'s games: the side to move's session moves after thinking."""
        rng = random.Random(self.plan.seed + number)
        tally = self.tally
        tally.acknowledged.setdefault(game["id"], list(game["moves"]))
        while self.playing:
            if game["outcome"] is not None:
                game = await self._rematch(pair, game)
                tally.acknowledged.setdefault(game["id"], list(game["moves"]))
                continue
            await asyncio.sleep(rng.uniform(*self.plan.think))
            if not self.playing:
                return
            move = rng.choice(game["legal_moves"])["move"]
            mover = game["black"] if game["turn"] == "black" else game["white"]
            sent = Move(game["id"], len(game["moves"]) + 1, now())
            tally.moves.append(sent)
            try:
                answer = await self.web.call("POST", f"/api/games/{game['id']}/moves",
                                             cookie=pair.cookie_of(mover), body={"move": move})
            except httpx.HTTPError as error:
                if tally.killed_at is None:
                    tally.fail(f"move in {game['id']}: {type(error).__name__}: {error}")
                tally.cut += 1
                game = await self._read_again(pair, game)
                continue
            if not answer.is_success:
                tally.fail(f"move {move} in {game['id']}: {answer.status_code} "
                           f"{answer.text[:200]}")
                game = await self._read_again(pair, game)
                continue
            sent.answered = now()
            if tally.killed_at is not None and tally.first_move_after_kill is None:
                tally.first_move_after_kill = sent.answered
            body = answer.json()
            expected = [*tally.acknowledged[game["id"]], move]
            if body["moves"] != expected:
                tally.fail(f"{game['id']}: answered {body['moves']}, expected {expected}")
            tally.acknowledged[game["id"]] = list(body["moves"])
            game = body

    async def _read_again(self, pair: Pair, game: dict[str, Any]) -> dict[str, Any]:
        """The game as the server has it now (after a cut request: maybe after a restart)."""
        answer = await self.web.until_answered("GET", f"/api/games/{game['id']}",
                                               cookie=pair.cookies[0])
        body = _answer_json(answer, f"read {game['id']}")
        acknowledged = self.tally.acknowledged[game["id"]]
        if body["moves"][:len(acknowledged)] != acknowledged:
            self.tally.fail(f"{game['id']}: reads {body['moves']} after the cut, answered "
                            f"{acknowledged}")
        self.tally.resynced_moves += len(body["moves"]) - len(acknowledged)
        self.tally.acknowledged[game["id"]] = list(body["moves"])
        return body

    async def _rematch(self, pair: Pair, game: dict[str, Any]) -> dict[str, Any]:
        """The rematch of a finished game: White offers it, Black accepts it."""
        path = f"/api/games/{game['id']}/rematch"
        offer = await self.web.until_answered("POST", path, cookie=pair.cookie_of(game["white"]),
                                              body={"action": "offer"})
        _answer_json(offer, f"rematch offer in {game['id']}")
        accept = await self.web.until_answered("POST", path,
                                               cookie=pair.cookie_of(game["black"]),
                                               body={"action": "accept"})
        self.tally.rematches += 1
        return _answer_json(accept, f"rematch of {game['id']}")

    async def follow(self, follower: Follower) -> None:
        """Keep ``follower``'s stream open: reconnect with backoff, follow the rematches."""
        wait = BACKOFF_FIRST
        headers = ([] if follower.cookie is None
                   else [("Cookie", f"{SESSION_COOKIE}={follower.cookie}")])
        while self.following:
            game = follower.game
            url = f"ws://{HOST}:{self.server.port}/api/games/{game}/live"
            try:
                async with connect(url, origin=self.origin, additional_headers=headers,
                                   proxy=None, ping_interval=None, open_timeout=10,
                                   close_timeout=1) as stream:
                    follower.connects += 1
                    async for text in stream:
                        message = json.loads(text)
                        if message.get("type") != "game":
                            continue
                        body = message["game"]
                        is_sync = message["event"] == "sync"
                        follower.saw(game, body["moves"], is_live=not is_sync, at=now())
                        if is_sync:
                            follower.is_open = True
                            follower.synced_at.append(now())
                            wait = BACKOFF_FIRST
                        if body.get("rematch"):
                            follower.game = body["rematch"]
                            break
                    else:
                        if stream.close_code == 1013:
                            follower.closed_by_server += 1
            except (OSError, TimeoutError, websockets.WebSocketException):
                pass
            follower.is_open = False
            if follower.game == game and self.following:
                await asyncio.sleep(wait * random.uniform(0.5, 1.0))
                wait = min(wait * 2, BACKOFF_MOST)

    async def kill_and_restart(self, after: float) -> None:
        await asyncio.sleep(after)
        self.tally.memory_before_kill = self.server.memory()
        await self.server.kill()
        self.tally.killed_at = now()
        progress(f"  server killed (SIGKILL) {after:g} s into the run; starting it again")
        await self.server.start()
        self.tally.back_at = now()
        progress(f"  server back after {self.tally.back_at - self.tally.killed_at:.1f} s")

    async def browse_the_lobby(self) -> None:
        """A signed-out visitor on the lobby: its socket gets the watch list again whenever
        a game starts or ends (the server makes the list, the bench counts them)."""
        url = f"ws://{HOST}:{self.server.port}/api/lobby"
        while self.following:
            try:
                async with connect(url, origin=self.origin, proxy=None, ping_interval=None,
                                   open_timeout=10, close_timeout=1) as lobby:
                    async for text in lobby:
                        if json.loads(text).get("type") == "games":
                            self.tally.watch_lists += 1
            except (OSError, websockets.WebSocketException, asyncio.TimeoutError):
                await asyncio.sleep(BACKOFF_MOST)  # the kill: back when the server is

    async def watch_the_loop(self) -> None:
        """How late this process's event loop wakes up: its own lag, were it the bottleneck."""
        while self.following:
            asked = now()
            await asyncio.sleep(0.05)
            self.tally.loop_lag.append(now() - asked - 0.05)


# -- checking and reporting ----------------------------------------------------------------


def by_window(answered: list[Move], started: float, seconds: float) -> list[float]:
    """The p99 round trip of the moves sent in each ``seconds`` of play from ``started``."""
    windows: defaultdict[int, list[float]] = defaultdict(list)
    for move in answered:
        if move.answered is not None:
            windows[int((move.sent - started) // seconds)].append(move.answered - move.sent)
    return [percentiles(windows[index])["p99"] if windows[index] else float("nan")
            for index in range(max(windows, default=-1) + 1)]


def stream_figures(followers: list[Follower], tally: Tally) -> dict[str, Any]:
    """Delivery lags, late, resynced and lost plies over the streams, against the moves
    answered."""
    sent = {(move.game, move.ply): move.sent for move in tally.moves}
    lags: list[float] = []
    until_all: dict[tuple[str, int], float] = {}
    late = resynced = lost = live = 0
    for follower in followers:
        for game, receipts in follower.receipts.items():
            for ply, receipt in receipts.items():
                at = sent.get((game, ply))
                if at is None:
                    continue  # a ply made before the stream came, or one nobody here sent
                if not receipt.is_live:
                    resynced += 1
                    continue
                lag = receipt.at - at
                live += 1
                late += lag > LATE_SECONDS
                if follower.is_spectator:
                    lags.append(lag)
                    until_all[game, ply] = max(until_all.get((game, ply), 0.0), lag)
        for game in follower.moves:
            acknowledged = tally.acknowledged.get(game, [])
            had = follower.moves[game]
            lost += sum(1 for ply, move in enumerate(acknowledged)
                        if ply >= len(had) or had[ply] != move)
    spectators = [one for one in followers if one.is_spectator]
    return {
        "streams": len(followers), "spectators": len(spectators),
        "delivery_lag_ms": percentiles(lags),
        "until_every_spectator_ms": percentiles(list(until_all.values())),
        "deliveries_live": live, "late": late, "resynced": resynced, "lost": lost,
        "skipped": sum(one.skipped for one in followers),
        "diverged": sum(one.diverged for one in followers),
        "closed_for_falling_behind": sum(one.closed_by_server for one in followers),
    }


def lost_in_database(db_path: Path, acknowledged: dict[str, list[str]]) -> list[str]:
    """Games whose stored moves do not begin with every move the server answered."""
    store = GameStore(db_path)
    try:
        lost = []
        for game_id, moves in acknowledged.items():
            record = store.get(game_id)
            if record is None or list(record.moves[:len(moves)]) != moves:
                lost.append(game_id)
        return lost
    finally:
        store.close()


def _client_memory() -> dict[str, int]:
    return _proc_status(os.getpid())


def _mb(kilobytes: int | None) -> float | None:
    return None if kilobytes is None else round(kilobytes / 1024, 1)


async def run_people(plan: PeoplePlan, folder: Path) -> dict[str, Any]:
    """Set up, play, kill and restart if asked, check; the report."""
    db_path = folder / "games.sqlite3"
    server = Server(db_path, folder / "server.log")
    tally = Tally()
    report: dict[str, Any] = {"plan": {
        "games": plan.games, "spectators": plan.spectators, "seconds": plan.seconds,
        "kill_at": plan.kill_at, "clock": f"{plan.minutes:g}+{plan.increment:g}",
        "think_seconds": list(plan.think), "seed": plan.seed}}
    report["load_average_before"] = list(os.getloadavg())
    names = [f"p{number:04d}" for number in range(2 * plan.games)]
    started = now()
    if not plan.sign_up_through_api:
        cookies = await asyncio.to_thread(accounts_in_store, db_path, names)
    report["server_start_seconds"] = round(await server.start(), 2)
    web = Web(server.url, tally)
    try:
        if plan.sign_up_through_api:
            started = now()
            cookies = await _at_most(SIGN_UPS_AT_ONCE,
                                     [functools.partial(sign_up, web, name) for name in names])
        report["accounts"] = "api" if plan.sign_up_through_api else "store"
        report["sign_up_seconds"] = round(now() - started - (
            0 if plan.sign_up_through_api else report["server_start_seconds"]), 1)
        progress(f"{len(names)} accounts signed up ({report['accounts']}) in "
                 f"{report['sign_up_seconds']} s")
        pairs = [Pair((names[2 * n], names[2 * n + 1]), (cookies[2 * n], cookies[2 * n + 1]))
                 for n in range(plan.games)]
        started = now()
        games = await _at_most(SETUP_AT_ONCE,
                               [functools.partial(pair_up, web, pair, plan) for pair in pairs])
        report["pairing_seconds"] = round(now() - started, 1)
        progress(f"{plan.games} games paired through the lobby in {report['pairing_seconds']} s")

        run = Run(server, web, plan, tally)
        followers = [Follower(number, games[number // 2]["id"], cookie=pairs[number // 2]
                              .cookies[number % 2]) for number in range(2 * plan.games)]
        followers += [Follower(2 * plan.games + number, games[number % plan.games]["id"])
                      for number in range(plan.spectators)]
        started = now()
        tasks = [asyncio.create_task(run.follow(one)) for one in followers]
        tasks.append(asyncio.create_task(run.watch_the_loop()))
        tasks += [asyncio.create_task(run.browse_the_lobby()) for _ in range(plan.lobby)]
        while not all(one.is_open for one in followers):  # a bench may poll
            await asyncio.sleep(0.05)
        report["streams_open_seconds"] = round(now() - started, 1)
        progress(f"{len(followers)} streams open in {report['streams_open_seconds']} s; "
                 f"playing for {plan.seconds:g} s")

        tally.loop_lag.clear()
        started = now()
        cpu = (server.cpu_seconds(), time.process_time())
        drivers = [asyncio.create_task(run.drive(number, pair, game))
                   for number, (pair, game) in enumerate(zip(pairs, games, strict=True))]
        killer = (None if plan.kill_at is None
                  else asyncio.create_task(run.kill_and_restart(plan.kill_at)))
        await asyncio.sleep(plan.seconds)
        memory = server.memory()
        report["server_sockets_open"] = server.open_sockets()
        run.playing = False
        await asyncio.gather(*drivers)
        if killer is not None:
            await killer
        played = now() - started
        report["played_seconds"] = round(played, 1)
        report["cpu_share_of_a_core"] = {
            "server": round((server.cpu_seconds() - cpu[0]) / played, 2),
            "client": round((time.process_time() - cpu[1]) / played, 2)}
        report["load_average_after"] = list(os.getloadavg())

        deadline = now() + SETTLE_SECONDS
        while now() < deadline and not all(  # a bench may poll
                one.is_open and one.moves.get(one.game) == tally.acknowledged.get(one.game)
                for one in followers):
            await asyncio.sleep(0.05)
        run.following = False
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        await web.close()
        server.stop()

    answered = [move for move in tally.moves if move.answered is not None]
    report["moves"] = {"sent": len(tally.moves), "answered": len(answered),
                       "per_second": round(len(answered) / played, 1),
                       "cut_by_the_kill": tally.cut, "rematches": tally.rematches,
                       "round_trip_ms": percentiles([move.answered - move.sent
                                                     for move in answered
                                                     if move.answered is not None]),
                       # How the round trip goes over the run: a p99 per 20 s of play.
                       "p99_ms_by_20_s": by_window(answered, started, 20.0)}
    report["streams"] = stream_figures(followers, tally)
    report["lobby"] = {"sockets": plan.lobby, "watch_lists_received": tally.watch_lists}
    lost = lost_in_database(db_path, tally.acknowledged)
    report["acknowledged_moves"] = sum(len(moves) for moves in tally.acknowledged.values())
    report["games_with_acknowledged_moves_lost"] = lost
    report["memory_mb"] = {
        "server_rss": _mb(memory.get("VmRSS")), "server_peak": _mb(memory.get("VmHWM")),
        "client_rss": _mb(_client_memory().get("VmRSS")),
        "client_peak": _mb(_client_memory().get("VmHWM"))}
    if tally.killed_at is not None:
        before = tally.memory_before_kill
        report["memory_mb"]["server_rss_before_kill"] = _mb(before.get("VmRSS"))
        report["memory_mb"]["server_peak_before_kill"] = _mb(before.get("VmHWM"))
        back = [min(time for time in one.synced_at if time > tally.killed_at)
                for one in followers if any(time > tally.killed_at for time in one.synced_at)]
        report["kill"] = {
            "at_seconds": plan.kill_at,
            "server_back_seconds": round((tally.back_at or tally.killed_at) - tally.killed_at,
                                         2),
            "streams_resynced": len(back),
            "every_stream_resynced_seconds": round(max(back) - tally.killed_at, 2)
            if back else None,
            "first_move_answered_seconds": None if tally.first_move_after_kill is None
            else round(tally.first_move_after_kill - tally.killed_at, 2),
            # The steady state: the moves sent before the kill, or once every stream was
            # back (the moves in between wait out the restart, and count in the row above).
            "round_trip_away_from_the_kill_ms": percentiles([
                move.answered - move.sent for move in answered
                if move.answered is not None and (move.sent < tally.killed_at or (
                    back and move.sent > max(back)))]),
            "moves_found_on_reading_again": tally.resynced_moves}
    report["client_loop_lag_ms"] = percentiles(tally.loop_lag)
    report["failures"] = tally.failures[:20]
    report["failure_count"] = len(tally.failures)
    return report


def print_report(report: dict[str, Any]) -> None:
    plan, moves, streams = report["plan"], report["moves"], report["streams"]
    memory = report["memory_mb"]

    def row(name: str, figures: dict[str, float]) -> str:
        return (f"{name:<34}{figures['count']:>8}{figures['p50']:>10.1f}{figures['p99']:>10.1f}"
                f"{figures['max']:>10.1f}")

    print(f"{plan['games']} games between {2 * plan['games']} accounts, "
          f"{streams['spectators']} spectators ({streams['streams']} live streams), "
          f"{report['played_seconds']} s of play, clock {plan['clock']}")
    print(f"set-up: {2 * plan['games']} sign-ups {report['sign_up_seconds']} s, pairing "
          f"{report['pairing_seconds']} s, streams {report['streams_open_seconds']} s")
    print(f"moves answered: {moves['answered']} ({moves['per_second']}/s), "
          f"rematches {moves['rematches']}, cut by the kill {moves['cut_by_the_kill']}")
    print(f"{'':<34}{'count':>8}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}")
    print(row("move round trip", moves["round_trip_ms"]))
    print("  p99 ms by 20 s of play: "
          + ", ".join(f"{p99:.0f}" for p99 in moves["p99_ms_by_20_s"]))
    if "kill" in report:
        print(row("  away from the kill", report["kill"]["round_trip_away_from_the_kill_ms"]))
    print(row("delivery to a spectator", streams["delivery_lag_ms"]))
    print(row("until every spectator had it", streams["until_every_spectator_ms"]))
    print(row("client event loop lag", report["client_loop_lag_ms"]))
    print(f"plies delivered live {streams['deliveries_live']}: late (> 1 s) {streams['late']}, "
          f"resynced {streams['resynced']}, lost {streams['lost']}, skipped "
          f"{streams['skipped']}, diverged {streams['diverged']}, streams closed for falling "
          f"behind {streams['closed_for_falling_behind']}")
    print(f"lobby: {report['lobby']['sockets']} sockets open, "
          f"{report['lobby']['watch_lists_received']} watch lists received")
    print(f"acknowledged moves: {report['acknowledged_moves']}, lost in the database: "
          f"{len(report['games_with_acknowledged_moves_lost'])} games")
    if "kill" in report:
        kill = report["kill"]
        print(f"kill -9 at {kill['at_seconds']:g} s: server back in "
              f"{kill['server_back_seconds']} s, every stream back and resynced in "
              f"{kill['every_stream_resynced_seconds']} s, first move answered after "
              f"{kill['first_move_answered_seconds']} s")
        print(f"server memory before the kill: RSS {memory['server_rss_before_kill']} MB, "
              f"peak {memory['server_peak_before_kill']} MB")
    print(f"server memory: RSS {memory['server_rss']} MB, peak {memory['server_peak']} MB; "
          f"client RSS {memory['client_rss']} MB; server sockets open "
          f"{report['server_sockets_open']}")
    cpu = report["cpu_share_of_a_core"]
    print(f"CPU (share of one core): server {cpu['server']}, client {cpu['client']}; load "
          f"average before {report['load_average_before'][0]:.2f}, after "
          f"{report['load_average_after'][0]:.2f}")
    print(f"failed requests: {report['failure_count']}")
    for problem in report["failures"][:10]:
        print(f"  {problem}")


def is_clean(report: dict[str, Any]) -> bool:
    """Nothing lost, nothing wrong: the exit status."""
    streams = report["streams"]
    return (not report["games_with_acknowledged_moves_lost"] and report["failure_count"] == 0
            and streams["lost"] == 0 and streams["skipped"] == 0 and streams["diverged"] == 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/web.py people",
                                     description=__doc__.split("\n\n")[0])
    defaults = PeoplePlan()
    parser.add_argument("--games", type=int, default=defaults.games,
                        help=f"games in play at once (default: {defaults.games})")
    parser.add_argument("--spectators", type=int, default=defaults.spectators,
                        help=f"spectators' live streams (default: {defaults.spectators})")
    parser.add_argument("--seconds", type=float, default=defaults.seconds,
                        help=f"seconds of play (default: {defaults.seconds:g})")
    parser.add_argument("--kill-at", type=float, metavar="S",
                        help="SIGKILL the server S seconds into the play, then restart it")
    parser.add_argument("--think", type=float, nargs=2, default=defaults.think,
                        metavar=("LOW", "HIGH"),
                        help="seconds a player takes over a move (default: 1 3)")
    parser.add_argument("--lobby", type=int, default=defaults.lobby,
                        help=f"visitors with the lobby open, each told the watch list when "
                             f"games start and end (default: {defaults.lobby})")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--sign-up-through-api", action="store_true",
                        help="sign the accounts up through the API (Argon2id at its default "
                             "cost: minutes for 600) rather than in the database")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    arguments = parser.parse_args(argv)
    if (arguments.games < 1 or arguments.spectators < 0 or arguments.lobby < 0
            or arguments.seconds <= 0):
        parser.error("--games must be at least 1, --spectators and --lobby at least 0, "
                     "--seconds above 0")
    if arguments.kill_at is not None and not 0 < arguments.kill_at < arguments.seconds:
        parser.error("--kill-at must fall within the play (0 < S < --seconds)")
    plan = PeoplePlan(games=arguments.games, spectators=arguments.spectators,
                      seconds=arguments.seconds, kill_at=arguments.kill_at,
                      think=tuple(arguments.think), seed=arguments.seed, lobby=arguments.lobby,
                      sign_up_through_api=arguments.sign_up_through_api)
    with tempfile.TemporaryDirectory(prefix="doublecorner-people-bench-") as folder:
        report = asyncio.run(run_people(plan, Path(folder)))
    if arguments.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0 if is_clean(report) else 1


if __name__ == "__main__":
    sys.exit(main())
