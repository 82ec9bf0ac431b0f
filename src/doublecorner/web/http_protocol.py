"""uvicorn's HTTP/1.1 protocol, answering in the contract's JSON, bounding slow or greedy clients.

A request that breaks HTTP itself (a ``Content-Length`` that is not a
number, a malformed header line) never reaches the app: uvicorn answers it
from its protocol, by default with a ``text/plain`` 400. This protocol
answers ``400 {"error": ...}`` instead, like every other error of the API
(``431`` for a head that runs past h11's 16 KiB before its end).

It also holds connections to the :class:`~doublecorner.web.limits.ServerLimits`
that the app cannot see (measured without them: 1,000 half-sent requests
stayed open for good, and one address held 19,960 connections):

- a request's head must arrive within ``header_timeout`` seconds of the
  connection (or of the answer before it): else ``408`` and the connection
  closes (a kept-alive connection that sent nothing is just closed);
- its body within ``body_timeout`` seconds of its head: else ``408``;
- an address keeps at most ``max_connections_per_client`` connections open,
  WebSockets included, and the server at most ``max_connections`` (by
  default, the open-file limit less 128): one more is answered ``503`` and
  closed before anything is read (a trusted proxy is not bound by address:
  every client comes through it);
- a WebSocket handshake with a request line or header line longer than the
  WebSocket library reads (8 KiB) is answered ``414`` or ``431``: that
  library drops it without a word, and the client would wait forever.

Such refusals, and "too many open files", are logged once a minute with
their count, not once each: at the open-file limit that was a traceback per
connection (76,199 of them). :func:`server_config` builds uvicorn's
configuration with all of this; ``serve`` and the bench run it.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import time
from collections import Counter
from collections.abc import Callable
from http import HTTPStatus
from typing import Any, ClassVar

import h11
import uvicorn
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE  # uvicorn's default too
from uvicorn.protocols.http.h11_impl import H11Protocol

from doublecorner.web.asgi_errors import code_for_status
from doublecorner.web.limits import ServerLimits, TrustedProxies

BAD_REQUEST = "the request is not valid HTTP/1.1 (a header such as Content-Length is malformed)"
LOG_INTERVAL = 60.0  # seconds between two reports of one kind of refusal
# The longest line and the most header lines the WebSocket library reads (it reads
# them from the same environment variables), beyond which it drops the handshake.
WS_MAX_LINE = int(os.environ.get("WEBSOCKETS_MAX_LINE_LENGTH", "8192"))
WS_MAX_HEADERS = int(os.environ.get("WEBSOCKETS_MAX_NUM_HEADERS", "128"))
_OUT_OF_FILES = (errno.EMFILE, errno.ENFILE)
# Open files the server keeps for itself below the open-file limit: the databases,
# static files, the engines' threads, logs.
FILES_KEPT = 128
_logger = logging.getLogger("uvicorn.error")


def error_response(status: int, message: str, *,
                   headers: tuple[tuple[str, str], ...] = ()) -> bytes:
    """A whole HTTP/1.1 answer ``status {"error": message, "code": ...}`` (the status's code,
    as the app's own answers have) that closes the connection.

    >>> print(error_response(408, "too slow").decode())  # doctest: +NORMALIZE_WHITESPACE
    HTTP/1.1 408 Request Timeout
    content-type: application/json
    connection: close
    content-length: 41
    <BLANKLINE>
    {"error": "too slow", "code": "too_slow"}
    """
    body = json.dumps({"error": message, "code": code_for_status(status)}).encode()
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
             "content-type: application/json", "connection: close",
             f"content-length: {len(body)}",
             *(f"{name}: {value}" for name, value in headers)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class Throttle:
    """Counts events by kind and says when to report them: the first at once, then at
    most once per ``interval`` seconds, with the count since the last report.

    >>> now = [0.0]
    >>> throttle = Throttle(60.0, clock=lambda: now[0])
    >>> [throttle.report("refused") for _ in range(3)]
    [1, None, None]
    >>> now[0] = 61.0
    >>> throttle.report("refused"), throttle.report("slow")
    (3, 1)
    """

    def __init__(self, interval: float = LOG_INTERVAL, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self._clock = clock
        self._counts: Counter[str] = Counter()
        self._last: dict[str, float] = {}

    def report(self, kind: str) -> int | None:
        """Count one event of ``kind``: how many to report now, or ``None`` to keep quiet."""
        self._counts[kind] += 1
        now = self._clock()
        last = self._last.get(kind)
        if last is not None and now - last < self.interval:
            return None
        self._last[kind] = now
        return self._counts.pop(kind)


class OutOfFilesFilter(logging.Filter):
    """Lets through one "too many open files" record a minute, as one line with a count.

    At the open-file limit every connection the server accepts, or fails to
    accept, logs a traceback; this keeps the log readable (and the disk free).
    """

    def __init__(self, throttle: Throttle | None = None) -> None:
        super().__init__()
        self.throttle = Throttle() if throttle is None else throttle

    def filter(self, record: logging.LogRecord) -> bool:
        """``False`` to drop ``record``; an out-of-files one let through is rewritten."""
        error = record.exc_info[1] if record.exc_info else None
        if not (isinstance(error, OSError) and error.errno in _OUT_OF_FILES):
            return True
        count = self.throttle.report("files")
        if count is None:
            return False
        record.msg = ("too many open files: %d connections or requests failed since the "
                      "last report (the server is at its open-file limit: ulimit -n)")
        record.args = (count,)
        record.exc_info = None
        record.exc_text = None
        return True


def quiet_out_of_files(*loggers: str) -> None:
    """Put one :class:`OutOfFilesFilter` on each logger (default: asyncio's and uvicorn's)."""
    for name in loggers or ("asyncio", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(found, OutOfFilesFilter) for found in logger.filters):
            logger.addFilter(OutOfFilesFilter())


class OpenConnections:
    """The connections open: at most ``per_client`` from one address (but for ``exempt``
    ones) and at most ``total`` in all (``None``: no bound)."""

    def __init__(self, per_client: int, total: int | None = None,
                 exempt: TrustedProxies | None = None) -> None:
        self.per_client = per_client
        self.total = total
        self.exempt = exempt
        self._open: Counter[str] = Counter()

    def open(self, address: str) -> str | None:
        """Count a new connection from ``address``; or, when it is one too many, say why
        (it is not counted then)."""
        if self.total is not None and self._open.total() >= self.total:
            return (f"the server has too many connections (at most {self.total} at once): "
                    "try again later")
        if self._open[address] >= self.per_client and not (
                self.exempt is not None and address in self.exempt):
            return (f"too many connections from your address (at most {self.per_client} at "
                    "once): close some and try again")
        self._open[address] += 1
        return None

    def close(self, address: str) -> None:
        """A connection :meth:`open` let in has closed."""
        if self._open[address] <= 1:
            self._open.pop(address, None)
        else:
            self._open[address] -= 1


def connection_cap(limits: ServerLimits) -> int | None:
    """The connections the server keeps open at most: ``limits.max_connections``, or by
    default the open-file limit less what the server keeps for itself (``None``: no limit).

    Past the open-file limit the server cannot accept at all (asyncio then logs
    an error for every connection waiting), so it stops short of it.
    """
    if limits.max_connections is not None:
        return limits.max_connections
    try:
        import resource
    except ImportError:  # not Unix
        return None
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return None
    return max(1, soft - min(FILES_KEPT, soft // 2))


class _ClosingNotice(asyncio.Protocol):
    """Stands in front of an upgraded connection's WebSocket protocol, to hear it close."""

    def __init__(self, inner: asyncio.Protocol, on_close: Callable[[], None]) -> None:
        self.inner = inner
        self._on_close = on_close

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._on_close()
        self.inner.connection_lost(exc)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with JSON errors, time limits and a cap per address.

    The limits are class attributes, set by :func:`guarded_protocol` on a
    subclass made for one server, with its own count of connections.
    """

    limits: ClassVar[ServerLimits]
    open_connections: ClassVar[OpenConnections]
    throttle: ClassVar[Throttle]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._address: str | None = None  # counted in open_connections
        self._head_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._upgraded = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Take the connection, or answer 503 at once when its address has too many."""
        super().connection_made(transport)
        address = "" if self.client is None else self.client[0]
        refusal = self.open_connections.open(address)
        if refusal is not None:
            self._log("refused", f"connections refused (the last from {address}): {refusal}")
            transport.write(error_response(503, refusal, headers=(("retry-after", "1"),)))
            transport.close()
            return
        self._address = address
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the timers and free the address's place."""
        self._stop_timers()
        self._release()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Read as uvicorn does, then time what is still to come."""
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        """After an answer the next request's head is timed from now."""
        super().on_response_complete()
        self._watch()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        """Hand the connection to the WebSocket protocol, or answer a head it cannot read."""
        problem = _handshake_problem(event, self.headers)
        if problem is not None:
            self._log("handshake", f"WebSocket handshakes refused: {problem[1]}")
            self.transport.write(error_response(*problem))
            self.transport.close()
            return
        self._stop_timers()
        self._upgraded = True
        super().handle_websocket_upgrade(event)
        websocket = self.transport.get_protocol()
        address = self._address
        if address is not None and isinstance(websocket, asyncio.Protocol):
            self._address = None  # the WebSocket's to free now: this protocol hears no more
            self.transport.set_protocol(_ClosingNotice(
                websocket, lambda: self.open_connections.close(address)))

    def send_400_response(self, msg: str) -> None:
        """Answer ``400 {"error": ...}`` (``431`` for a head too long to read) and close
        the connection."""
        self._stop_timers()
        limit = self.config.h11_max_incomplete_event_size or DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
        if len(self.conn.trailing_data[0]) > limit:
            self.transport.write(error_response(
                431, f"the request's line and headers are over {limit} bytes"))
        else:
            self.transport.write(error_response(400, BAD_REQUEST))
        self.transport.close()

    def _watch(self) -> None:
        """Time what the client still owes: a request's head, or its body."""
        if self._upgraded or self.transport is None or self.transport.is_closing():
            self._stop_timers()
            return
        state = self.conn.their_state
        if state is h11.IDLE:
            if self._head_timer is None:
                self._head_timer = self.loop.call_later(self.limits.header_timeout,
                                                        self._head_timed_out)
            return
        self._cancel_head_timer()
        if state is h11.SEND_BODY:
            if self._body_timer is None:
                self._body_timer = self.loop.call_later(self.limits.body_timeout,
                                                        self._body_timed_out)
        elif self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.conn.trailing_data[0]:  # part of a head came: say why it is cut off
            self._log("slow-head", "slow requests cut off: no whole head within "
                                   f"{self.limits.header_timeout:g} s")
            self.transport.write(error_response(
                408, f"the request's head did not arrive within {self.limits.header_timeout:g} s"))
        self.transport.close()

    def _body_timed_out(self) -> None:
        self._body_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.SEND_BODY:
            return
        self._log("slow-body", "slow requests cut off: no whole body within "
                               f"{self.limits.body_timeout:g} s")
        cycle = self.cycle
        if cycle is not None:
            if not cycle.response_started:
                self.transport.write(error_response(
                    408, "the request's body did not arrive within "
                         f"{self.limits.body_timeout:g} s"))
            cycle.disconnected = True  # the app reads the end of the request
            cycle.message_event.set()
        self.transport.close()

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _stop_timers(self) -> None:
        self._cancel_head_timer()
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _release(self) -> None:
        if self._address is not None:
            self.open_connections.close(self._address)
            self._address = None

    def _log(self, kind: str, description: str) -> None:
        """Log ``description`` of a refusal of ``kind``, at most once a minute, with a count."""
        count = self.throttle.report(kind)
        if count is not None:
            _logger.warning("%s: %d since the last report", description, count)


def _handshake_problem(event: h11.Request,
                       headers: list[tuple[bytes, bytes]]) -> tuple[int, str] | None:
    """Why the WebSocket library could not read this handshake's head, as a status and
    message, or ``None``."""
    line = len(event.method) + len(event.target) + len(b"  HTTP/1.1\r\n")
    if line > WS_MAX_LINE:
        return 414, (f"the request line of a WebSocket handshake may be at most "
                     f"{WS_MAX_LINE} bytes, not {line}")
    if len(headers) > WS_MAX_HEADERS:
        return 431, (f"a WebSocket handshake may have at most {WS_MAX_HEADERS} header "
                     f"lines, not {len(headers)}")
    longest = max((len(name) + len(value) + len(b": \r\n") for name, value in headers),
                  default=0)
    if longest > WS_MAX_LINE:
        return 431, (f"a header line of a WebSocket handshake may be at most {WS_MAX_LINE} "
                     f"bytes, not {longest}")
    return None


def guarded_protocol(limits: ServerLimits,
                     trusted: TrustedProxies | None = None) -> type[GuardedH11Protocol]:
    """The protocol class for one server: ``limits``, and a count of connections of its
    own (``trusted`` proxies' not bound by address)."""

    class Protocol(GuardedH11Protocol):
        pass

    Protocol.limits = limits
    Protocol.open_connections = OpenConnections(
        limits.max_connections_per_client, connection_cap(limits), trusted)
    Protocol.throttle = Throttle()
    return Protocol


def server_config(app: Any, limits: ServerLimits, *, forwarded_allow_ips: str | None = None,
                  **options: Any) -> uvicorn.Config:
    """uvicorn's configuration to serve ``app`` within ``limits``.

    ``X-Forwarded-For`` is believed only from the proxies ``forwarded_allow_ips``
    names (:meth:`TrustedProxies.parse`): without it, every client is the
    address it connects from. ``options`` go to uvicorn (``log_level``,
    ``access_log``, ...). Installs the "too many open files" filter
    (:func:`quiet_out_of_files`).

    :raises ValueError: ``forwarded_allow_ips`` names something that is no address.
    """
    trusted = (None if forwarded_allow_ips is None
               else TrustedProxies.parse(forwarded_allow_ips))
    quiet_out_of_files()
    options.setdefault("timeout_graceful_shutdown", 15)
    # The live streams' messages are small JSON: compressing each for every spectator cost
    # the event loop more than the bytes saved (measured with bench/web.py people, where it
    # was the largest stall), and each compressed connection keeps a zlib state of its own.
    options.setdefault("ws_per_message_deflate", False)
    return uvicorn.Config(app, http=guarded_protocol(limits, trusted),
                          proxy_headers=trusted is not None,
                          forwarded_allow_ips=None if trusted is None else trusted.uvicorn_form(),
                          ws_max_size=limits.max_body_bytes, **options)
