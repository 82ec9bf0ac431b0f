"""How much one client may ask: rates of writes and analysis starts, analyses at once.

Clients are told apart by their address (behind a reverse proxy, every
client is the proxy: give each its own limits there). A
:class:`RateLimiter` is a token bucket per client: ``burst`` requests at
once, then ``rate`` per second; a request over it is refused with the
seconds to wait. :class:`RateLimitMiddleware` applies one to every request
that changes state (``429`` with ``Retry-After``) and to every WebSocket
handshake (refused with close code 1013, try again later); the analysis stream asks
another before each search, and :class:`ClientSlots` before it starts one.

>>> now = [0.0]
>>> limiter = RateLimiter(rate=2.0, burst=3, clock=lambda: now[0])
>>> [limiter.wait("a") for _ in range(4)], limiter.wait("b")
([0.0, 0.0, 0.0, 0.5], 0.0)
>>> now[0] = 0.5
>>> limiter.wait("a")
0.0
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import functools
import gc
import ipaddress
import math
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from doublecorner.errors import quoted
from doublecorner.web.asgi_errors import send_error
from doublecorner.web.edge import SAFE_METHODS

MAX_TRACKED_CLIENTS = 10_000  # buckets kept; full ones are dropped first
TRY_AGAIN_LATER = 1013  # the WebSocket close code for a handshake over the rate
IMPORT_RETRY_SECONDS = 5  # an import of thousands of games takes some seconds


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """A token bucket per client: ``burst`` at once, then ``rate`` a second."""

    def __init__(self, *, rate: float, burst: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    def wait(self, client: str) -> float:
        """Take a token for ``client``: 0 if there was one, else the seconds until there is."""
        with self._lock:
            now = self._clock()
            bucket = self._buckets.get(client)
            if bucket is None:
                if len(self._buckets) >= MAX_TRACKED_CLIENTS:
                    self._forget_full(now)
                bucket = self._buckets[client] = _Bucket(float(self.burst), now)
            bucket.tokens = min(float(self.burst),
                                bucket.tokens + (now - bucket.stamp) * self.rate)
            bucket.stamp = now
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                return 0.0
            return (1.0 - bucket.tokens) / self.rate

    def _forget_full(self, now: float) -> None:
        """Drop the buckets that have filled up again (their clients are as if new)."""
        for client, bucket in list(self._buckets.items()):
            if bucket.tokens + (now - bucket.stamp) * self.rate >= self.burst:
                del self._buckets[client]
        if len(self._buckets) >= MAX_TRACKED_CLIENTS:  # all busy: the oldest go
            for client in list(self._buckets)[:MAX_TRACKED_CLIENTS // 10]:
                del self._buckets[client]


def retry_after(seconds: float) -> int:
    """The ``Retry-After`` value (whole seconds, at least 1) for a wait of ``seconds``."""
    return max(1, math.ceil(seconds))


def client_of(scope: Scope) -> str:
    """The client's address in an ASGI scope (empty when the server does not say)."""
    client = scope.get("client")
    return "" if not client else str(client[0])


class RateLimitMiddleware:
    """ASGI middleware: at most ``limiter``'s rate of state-changing requests per client."""

    def __init__(self, app: ASGIApp, *, limiter: RateLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and self.limiter.wait(client_of(scope)) > 0:
            await receive()  # the handshake's websocket.connect
            await send({"type": "websocket.close", "code": TRY_AGAIN_LATER,
                        "reason": "too many requests: try again later"})
            return
        if scope["type"] == "http" and scope.get("method", "GET") not in SAFE_METHODS:
            wait = self.limiter.wait(client_of(scope))
            if wait > 0:
                seconds = retry_after(wait)
                await send_error(send, 429, f"too many requests: try again in {seconds} s "
                                            f"(at most {self.limiter.rate:g} changes a second, "
                                            f"{self.limiter.burst} at once)",
                                 headers=[(b"retry-after", str(seconds).encode())])
                return
        await self.app(scope, receive, send)


class ClientSlots:
    """At most ``per_client`` things at once per client (analysis searches, imports), and
    at most ``total`` over all clients (``None``: no bound)."""

    def __init__(self, per_client: int, *, total: int | None = None) -> None:
        self.per_client = per_client
        self.total = total
        self._held: Counter[str] = Counter()
        self._lock = threading.Lock()

    def take(self, client: str) -> bool:
        """Take a slot for ``client``; ``False`` when all of its slots (or all) are taken."""
        with self._lock:
            if self._held[client] >= self.per_client or (
                    self.total is not None and self._held.total() >= self.total):
                return False
            self._held[client] += 1
            return True

    def give_back(self, client: str) -> None:
        """Free a slot :meth:`take` gave."""
        with self._lock:
            self._held[client] -= 1
            if self._held[client] <= 0:
                del self._held[client]


class ImportSlotsMiddleware:
    """ASGI middleware: ``POST path`` (the PDN import) runs at most ``slots`` at once, per
    client and in all; one more is a ``429`` with ``Retry-After``, before its body is read.

    An import reads and replays thousands of games: without a bound, three at
    once took 2.5 GB. After each, the memory it used is given back to the
    system (:func:`give_memory_back`).
    """

    def __init__(self, app: ASGIApp, *, path: str, slots: ClientSlots,
                 retry_after: int = IMPORT_RETRY_SECONDS) -> None:
        self.app = app
        self.path = path
        self.slots = slots
        self.retry_after = retry_after

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or scope.get("path") != self.path
                or scope.get("method") != "POST"):
            await self.app(scope, receive, send)
            return
        client = client_of(scope)
        if not self.slots.take(client):
            await send_error(send, 429, f"the server is busy with other imports (at most "
                                        f"{self.slots.per_client} per client and "
                                        f"{self.slots.total} at once): try again in "
                                        f"{self.retry_after} s",
                             headers=[(b"retry-after", str(self.retry_after).encode())])
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.slots.give_back(client)
            await asyncio.to_thread(give_memory_back)


def give_memory_back() -> None:
    """Collect the garbage and hand the freed memory back to the system.

    Python keeps what it freed for later, and glibc's ``malloc`` too, so a
    process that once read a big import stays that big (measured: 93 MB more
    after an import of 6,000 games; 35 MB more with ``malloc_trim``). Where
    there is no glibc, only the garbage is collected.
    """
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


@dataclass(frozen=True)
class ServerLimits:
    """Every limit of the app, with its defaults (see ``docs/web-api.md``).

    Writes and analysis starts are per client and per second, with a burst;
    ``max_games`` and ``max_games_per_client`` cap the stored games (``None``:
    no cap); bodies are at most ``max_body_bytes``, a PDN import
    ``max_import_bytes``, and imports run ``imports_per_client`` at once per
    client, ``max_imports`` in all. The server's protocol
    (:mod:`~doublecorner.web.http_protocol`) holds each address to
    ``max_connections_per_client`` open connections, the server to
    ``max_connections``, and each request to ``header_timeout`` seconds for
    its head and ``body_timeout`` for its body. Passwords are tried at most
    ``sign_in_*`` often (:mod:`~doublecorner.web.sign_in_limits`) and hashed
    ``password_hashes_at_once`` at a time. In the lobby an account keeps
    ``seeks_per_account`` open seeks and ``challenges_per_account`` open
    challenges (an address ``*_per_address``), posts them at ``lobby_post_rate``
    a second (``lobby_post_burst`` at once), and a lobby socket takes messages of
    ``lobby_message_bytes``; a seek goes ``seek_grace_seconds`` after its author's
    last lobby socket closed, a challenge expires after ``challenge_seconds``,
    and a player of a rated game who has no live stream of it for
    ``abandon_seconds`` while the opponent has one loses by abandonment.
    """

    write_rate: float = 20.0
    write_burst: int = 40
    # Stepping through a game with analysis on starts a search per position shown.
    analysis_rate: float = 5.0
    analysis_burst: int = 20
    analyses_per_client: int = 2
    max_games: int | None = 100_000
    max_games_per_client: int | None = 5_000
    max_body_bytes: int = 64 * 1024
    max_import_bytes: int = 8 * 1024 * 1024
    # Reading and storing thousands of games takes seconds of CPU and memory.
    imports_per_client: int = 1
    max_imports: int = 2
    # A browser opens about 6 connections and a WebSocket or two per tab.
    max_connections_per_client: int = 64
    max_connections: int | None = None  # None: below the open-file limit (see http_protocol)
    header_timeout: float = 10.0
    # 8 MiB (the largest import) in 60 s is about 1.1 Mbit/s.
    body_timeout: float = 60.0
    # Password attempts (sign-in, sign-up, password change, deletion): per address and
    # per account name, a second; from the 5th failure in a row on a name, the name
    # locks for 60 s, doubled with each failure, up to an hour (sign_in_limits).
    sign_in_rate: float = 10 / 60
    sign_in_burst: int = 10
    account_sign_in_rate: float = 5 / 60
    account_sign_in_burst: int = 5
    sign_in_lock_after: int = 5
    sign_in_lock_seconds: float = 60.0
    sign_in_max_lock_seconds: float = 3600.0
    # An Argon2id hash takes a core and 64 MiB for tens of milliseconds.
    password_hashes_at_once: int = 2
    # The lobby: seeks and challenges are kept in memory and shown to every lobby socket.
    seeks_per_account: int = 3
    seeks_per_address: int = 10
    challenges_per_account: int = 5
    challenges_per_address: int = 10
    lobby_post_rate: float = 1.0
    lobby_post_burst: int = 5
    # A lobby or live socket's client sends only pings: a few bytes.
    lobby_message_bytes: int = 4096
    # A reload or a dropped connection comes back within seconds.
    seek_grace_seconds: float = 5.0
    challenge_seconds: float = 120.0
    abandon_seconds: float = 60.0


class TrustedProxies:
    """The peers whose ``X-Forwarded-For`` names the client (``serve --forwarded-allow-ips``).

    >>> proxies = TrustedProxies.parse("127.0.0.1, 10.0.0.0/8")
    >>> "10.1.2.3" in proxies, "192.168.0.1" in proxies, "::1" in proxies
    (True, False, False)
    >>> "203.0.113.9" in TrustedProxies.parse("*")
    True
    >>> TrustedProxies.parse("10.0.0.0/8, proxy.lan")
    Traceback (most recent call last):
    ...
    ValueError: 'proxy.lan' is not an IP address or network (such as 127.0.0.1 or 10.0.0.0/8)
    """

    def __init__(self, networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network], *,
                 everyone: bool = False) -> None:
        self.networks = networks
        self.everyone = everyone

    @classmethod
    def parse(cls, text: str) -> TrustedProxies:
        """The proxies of a comma-separated list of addresses and networks, or ``*`` (any).

        :raises ValueError: an item is no address or network, or the list is empty.
        """
        items = [item.strip() for item in text.split(",") if item.strip()]
        if not items:
            raise ValueError("name the proxies' addresses (such as 127.0.0.1), or *")
        if items == ["*"]:
            return cls([], everyone=True)
        networks = []
        for item in items:
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise ValueError(f"{quoted(item)} is not an IP address or network "
                                 "(such as 127.0.0.1 or 10.0.0.0/8)") from None
        return cls(networks)

    def uvicorn_form(self) -> list[str]:
        """The proxies as uvicorn's ``forwarded_allow_ips`` takes them."""
        return ["*"] if self.everyone else [str(network) for network in self.networks]

    def __contains__(self, address: object) -> bool:
        if self.everyone:
            return True
        try:
            found = ipaddress.ip_address(str(address))
        except ValueError:
            return False
        return any(found in network for network in self.networks)
