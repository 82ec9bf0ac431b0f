"""The server's protocol against a real uvicorn: slow clients, connections per address,
WebSocket handshakes it cannot read, and logs that say a thing once a minute.

Each test starts the app under uvicorn (``server_config``, as ``serve`` does)
on a loopback socket that listens before the server runs, so a client may
connect at once. The time limits are set to half a second; a client only
waits on its socket, which gives up after ``WAIT`` seconds if the server
never answers (a broken server: the test then fails).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import resource
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from websockets.sync.client import connect

from doublecorner.web.http_protocol import (
    OutOfFilesFilter,
    Throttle,
    connection_cap,
    server_config,
)
from doublecorner.web.limits import ServerLimits
from tests.test_web_api import make_app

WAIT = 10.0
HOST = "127.0.0.1"


@contextlib.contextmanager
def serving(tmp_path: Path, **limits: Any) -> Iterator[int]:
    """The app served by uvicorn on a free loopback port, within ``limits``: the port."""
    server_limits = ServerLimits(**limits)
    app = make_app(tmp_path / "games.sqlite3", limits=server_limits, allowed_hosts=[HOST])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.bind((HOST, 0))
    listener.listen(128)  # clients may connect before the server has started
    server = uvicorn.Server(server_config(app, server_limits, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]})
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(WAIT)
        listener.close()


def connection(port: int) -> socket.socket:
    return socket.create_connection((HOST, port), timeout=WAIT)


def read_all(client: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    while chunk := client.recv(65536):
        received += chunk
    return received


def health(port: int) -> bytes:
    """A whole request on a new connection, closed by the server after its answer."""
    with connection(port) as client:
        client.sendall(f"GET /api/health HTTP/1.1\r\nHost: {HOST}\r\n"
                       "Connection: close\r\n\r\n".encode())
        return read_all(client)


def refused(port: int) -> bytes:
    """What the server says on a new connection before the client says anything (sending
    first could make it a reset: the server does not read what a refused client sends)."""
    with connection(port) as client:
        return read_all(client)


def test_a_request_head_that_never_ends_is_a_408(tmp_path: Path) -> None:
    with serving(tmp_path, header_timeout=0.5) as port, connection(port) as client:
        client.sendall(f"GET /api/health HTTP/1.1\r\nHost: {HOST}\r\n".encode())
        answer = read_all(client)
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert b"connection: close" in answer and b'"the request\'s head did not arrive' in answer


def test_a_connection_that_sends_nothing_is_closed(tmp_path: Path) -> None:
    with serving(tmp_path, header_timeout=0.5) as port, connection(port) as client:
        assert read_all(client) == b""


def test_a_request_body_that_stops_coming_is_a_408(tmp_path: Path) -> None:
    with serving(tmp_path, body_timeout=0.5) as port, connection(port) as client:
        client.sendall(f"POST /api/games HTTP/1.1\r\nHost: {HOST}\r\n"
                       "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                       '{"mode": '.encode())
        answer = read_all(client)
    assert answer.startswith(b"HTTP/1.1 408 ") and b"body did not arrive within 0.5 s" in answer


def test_an_address_keeps_at_most_its_connections_websockets_included(tmp_path: Path) -> None:
    with serving(tmp_path, max_connections_per_client=2) as port:
        origin = f"http://{HOST}:{port}"
        with connect(f"ws://{HOST}:{port}/api/analysis", origin=origin,  # type: ignore[arg-type]
                     open_timeout=WAIT) as stream, connection(port):
            answer = refused(port)
            assert answer.startswith(b"HTTP/1.1 503 ") and b"at most 2 at once" in answer
            stream.close()  # returns once the server has closed the connection
            assert health(port).startswith(b"HTTP/1.1 200 ")  # the stream's place is free
        assert health(port).startswith(b"HTTP/1.1 200 ")


@pytest.mark.parametrize(("head", "status"), [
    (f"GET /api/analysis?{'x' * 9000} HTTP/1.1\r\n", b"414"),
    (f"GET /api/analysis HTTP/1.1\r\nCookie: {'x' * 9000}\r\n", b"431"),
])
def test_a_websocket_handshake_too_long_to_read_is_answered(tmp_path: Path, head: str,
                                                            status: bytes) -> None:
    with serving(tmp_path) as port, connection(port) as client:
        client.sendall(f"{head}Host: {HOST}\r\nOrigin: http://{HOST}:{port}\r\n"
                       "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                       "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        answer = read_all(client)
    assert answer.startswith(b"HTTP/1.1 " + status) and b"at most 8192 bytes" in answer


@pytest.mark.parametrize("upgrade", ["", "Upgrade: websocket\r\nConnection: Upgrade\r\n"])
def test_a_request_head_too_long_to_read_is_a_431(tmp_path: Path, upgrade: str) -> None:
    with serving(tmp_path) as port, connection(port) as client:
        # Not ended: a head that came whole at once would be read (h11 bounds what it
        # holds unfinished, and a read brings at most 256 KiB).
        client.sendall(f"GET /api/analysis HTTP/1.1\r\nHost: {HOST}\r\n{upgrade}"
                       f"Cookie: {'x' * 20_000}\r\n".encode())
        answer = read_all(client)
    assert answer.startswith(b"HTTP/1.1 431 ") and b"over 16384 bytes" in answer


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.tracebacks = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())
        self.tracebacks += record.exc_info is not None


def test_refused_connections_are_logged_once_with_their_count(tmp_path: Path) -> None:
    records = Records()
    with serving(tmp_path, max_connections_per_client=1) as port, connection(port):
        logger = logging.getLogger("uvicorn.error")
        logger.addHandler(records)
        try:
            for _ in range(5):
                assert refused(port).startswith(b"HTTP/1.1 503 ")
        finally:
            logger.removeHandler(records)
    assert records.lines == [
        f"connections refused (the last from {HOST}): too many connections from your address "
        "(at most 1 at once): close some and try again: 1 since the last report"]


def test_the_server_keeps_at_most_its_connections_in_all(tmp_path: Path) -> None:
    with serving(tmp_path, max_connections=2) as port, connection(port), connection(port):
        answer = refused(port)
    assert answer.startswith(b"HTTP/1.1 503 ") and b"too many connections (at most 2" in answer


def test_by_default_the_server_stops_short_of_the_open_file_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Past the limit it could not even accept a connection to refuse it.
    monkeypatch.setattr(resource, "getrlimit", lambda kind: (1024, 4096))
    assert connection_cap(ServerLimits()) == 1024 - 128
    monkeypatch.setattr(resource, "getrlimit", lambda kind: (64, 4096))
    assert connection_cap(ServerLimits()) == 32
    assert connection_cap(ServerLimits(max_connections=5)) == 5


def test_too_many_open_files_is_logged_once_a_minute_without_tracebacks() -> None:
    now = [0.0]
    logger = logging.getLogger("test.out_of_files")
    logger.propagate = False
    logger.addFilter(OutOfFilesFilter(Throttle(60.0, clock=lambda: now[0])))
    records = Records()
    logger.addHandler(records)
    error = OSError(errno.EMFILE, "Too many open files")
    for second in range(130):
        now[0] = float(second)
        logger.error("socket.accept() out of system resource", exc_info=error)
    logger.error("something else", exc_info=ValueError("kept"))
    assert records.lines == [
        f"too many open files: {count} connections or requests failed since the last report "
        "(the server is at its open-file limit: ulimit -n)" for count in (1, 60, 60)
    ] + ["something else"]
    assert records.tracebacks == 1  # only the other error's
