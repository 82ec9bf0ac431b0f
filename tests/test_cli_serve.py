"""The ``serve`` subcommand through ``main([...])``, with uvicorn's serving loop replaced.

The command binds its socket, builds the app and hands both to uvicorn; the
tests stand in for ``uvicorn.Server.run`` to see what it was given, and
``bench/web.py`` runs the real server.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import socket
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from doublecorner.cli import build_parser, main
from doublecorner.cli.search_options import DEFAULT_HASH_MB
from doublecorner.cli.serve import INSTALL_HINT
from doublecorner.db import default_db_path
from doublecorner.web import limits
from doublecorner.web.limits import ServerLimits


class FakeRun:
    """What the stand-in for ``uvicorn.Server.run`` was given: servers and sockets."""

    def __init__(self) -> None:
        self.calls: list[tuple[uvicorn.Server, list[socket.socket]]] = []
        self.port = self.family = -1

    def record(self, server: uvicorn.Server, sockets: list[socket.socket] | None = None) -> None:
        assert sockets is not None
        self.calls.append((server, sockets))
        self.port = sockets[0].getsockname()[1]
        self.family = sockets[0].family


@pytest.fixture
def fake_run(monkeypatch: pytest.MonkeyPatch) -> FakeRun:
    fake = FakeRun()

    def run(server: uvicorn.Server, sockets: list[socket.socket] | None = None) -> None:
        fake.record(server, sockets)

    monkeypatch.setattr(uvicorn.Server, "run", run)
    return fake


def test_serve_binds_prints_the_url_and_runs_the_app(
        fake_run: FakeRun, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "games.sqlite3"
    status = main(["serve", "--port", "0", "--db", str(db), "--hash", "1"])
    out, err = capsys.readouterr()
    assert status == 0, err
    ((server, sockets),) = fake_run.calls
    assert fake_run.family == socket.AF_INET
    assert sockets[0].proto == socket.IPPROTO_TCP  # else asyncio leaves Nagle on: 40 ms answers
    assert f"http://127.0.0.1:{fake_run.port}/" in out and str(db) in out
    assert err == ""
    assert db.exists()
    assert server.config.ws_max_size == 64 * 1024
    assert sockets[0].fileno() == -1  # closed once the server is done
    with TestClient(server.config.app, base_url="http://127.0.0.1") as client:  # the very app
        answer = client.post("/api/games", json={"mode": "two-player"})
        assert answer.status_code == 201


def test_a_port_in_use_is_reported(fake_run: FakeRun, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status = main(["serve", "--port", str(port), "--db", str(tmp_path / "g.sqlite3")])
    assert status == 2
    assert f"cannot listen on '127.0.0.1' port {port}" in capsys.readouterr().err
    assert fake_run.calls == []


def test_a_database_that_cannot_be_opened_is_reported(fake_run: FakeRun, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["serve", "--port", "0", "--db", str(tmp_path)])  # a folder
    assert status == 2
    assert "--db" in capsys.readouterr().err
    assert fake_run.calls == []


@pytest.mark.parametrize("content", [b"hello\n", b"\x7fELF" + bytes(range(256)) * 20])
def test_a_file_that_is_no_database_is_reported(fake_run: FakeRun, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                content: bytes) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    assert main(["serve", "--port", "0", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a database" in err and "Traceback" not in err
    assert path.read_bytes() == content and fake_run.calls == []


def test_a_database_in_a_missing_folder_is_refused_not_made(
        fake_run: FakeRun, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "typo" / "games.sqlite3"
    assert main(["serve", "--port", "0", "--db", str(path)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not path.parent.exists() and fake_run.calls == []


def test_a_damaged_endgame_table_is_reported(fake_run: FakeRun, egtb4_dir: Path,
                                             tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    tables = tmp_path / "egtb"
    tables.mkdir()
    for path in egtb4_dir.glob("*.dcdb"):
        (tables / path.name).write_bytes(path.read_bytes())
    damaged = tables / "0101.dcdb"
    damaged.write_bytes(damaged.read_bytes()[:-1])
    status = main(["serve", "--port", "0", "--db", str(tmp_path / "games.sqlite3"),
                   "--egtb", str(tables)])
    assert status == 2
    err = capsys.readouterr().err
    assert "0101.dcdb: checksum mismatch" in err and "egtb build --pieces 2 --dir" in err
    assert fake_run.calls == []


@pytest.mark.parametrize("option", [["--port", "70000"], ["--port", "http"],
                                    ["--engine-threads", "0"], ["--max-seconds", "-1"]])
def test_bad_options_are_usage_errors(fake_run: FakeRun, option: list[str],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", *option]) == 2
    assert option[0] in capsys.readouterr().err
    assert fake_run.calls == []


def test_without_the_web_extra_serve_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # makes `import uvicorn` fail
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert INSTALL_HINT in err and "uvicorn" in err


def test_serve_is_listed_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--host", "--port", "--db", "--engine-threads", "--max-seconds"):
        assert option in out


def test_serving_other_machines_names_the_hosts_and_the_invite_links(
        fake_run: FakeRun, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["serve", "--host", "0.0.0.0", "--port", "0", "--hash", "1",
                   "--db", str(tmp_path / "games.sqlite3"), "--allowed-host", "Board.lan",
                   "--allowed-host", "192.168.1.5", "--max-games-per-client", "1"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "allowed hosts: localhost, 127.0.0.1, ::1, board.lan, 192.168.1.5" in out
    assert f"invite links start with http://board.lan:{fake_run.port}/" in out
    assert err == ""
    ((server, _),) = fake_run.calls
    with TestClient(server.config.app, base_url="http://board.lan") as client:
        assert client.get("/api/health").status_code == 200
        assert client.get("/api/health", headers={"host": "evil.example"}).status_code == 421
        assert client.post("/api/games", json={"mode": "analysis"}).status_code == 201
        assert client.post("/api/games", json={"mode": "analysis"}).status_code == 429


def test_listening_everywhere_without_a_host_name_warns(
        fake_run: FakeRun, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["serve", "--host", "0.0.0.0", "--port", "0", "--hash", "1",
                   "--db", str(tmp_path / "games.sqlite3")])
    out, err = capsys.readouterr()
    assert status == 0
    assert "allowed hosts: localhost, 127.0.0.1, ::1\n" in out
    assert "--allowed-host NAME" in err


@pytest.mark.parametrize(("options", "available", "words"), [
    (["--hash", "65536"], 4000, "65536 MB of memory, and 4000 MB are available"),
    (["--hash", "1024", "--engine-threads", "4"], 3000, "4096 MB"),
    (["--hash", "70000"], None, "expected 1 to 65536 MB, not 70000"),
])
def test_an_engine_table_the_machine_cannot_hold_is_a_usage_error(
        fake_run: FakeRun, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], options: list[str], available: int | None,
        words: str) -> None:
    monkeypatch.setattr("doublecorner.cli.serve.available_memory_mb", lambda: available)
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "g.sqlite3"), *options]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1
    assert fake_run.calls == []


def test_the_server_answers_a_malformed_request_with_json(fake_run: FakeRun, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "g.sqlite3"), "--hash", "1"]) == 0
    ((server, _),) = fake_run.calls
    protocol_class = server.config.http
    assert not isinstance(protocol_class, str)

    class Transport:  # what the protocol writes, and whether it closed the connection
        def __init__(self) -> None:
            self.written = b""
            self.closed = False

        def get_extra_info(self, name: str) -> Any:
            return ("127.0.0.1", 8000) if name in ("sockname", "peername") else None

        def write(self, data: bytes) -> None:
            self.written += data

        def close(self) -> None:
            self.closed = True

        def is_closing(self) -> bool:
            return self.closed

        def set_protocol(self, protocol: Any) -> None:
            pass

    transport = Transport()
    loop = asyncio.new_event_loop()
    protocol = protocol_class(config=server.config, server_state=uvicorn.server.ServerState(),
                              app_state={}, _loop=loop)
    protocol.connection_made(transport)
    protocol.data_received(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           b"Content-Length: ten\r\n\r\n")
    head, _, body = transport.written.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"content-type: application/json" in head
    assert "Content-Length" in json.loads(body)["error"]
    assert transport.closed
    loop.close()


# -- the game database's default path, the one --hash default (issue 27) ---------------------


def test_without_games_db_the_explorer_opens_the_default_game_database(
        fake_run: FakeRun, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    default = default_db_path()
    serve = ["serve", "--port", "0", "--db", str(tmp_path / "g.sqlite3"), "--hash", "1"]
    assert main(serve) == 0
    out = capsys.readouterr().out
    assert f"no game database at {default}: the opening explorer is off" in out
    assert not default.exists()  # looking does not create it

    pdn = tmp_path / "club.pdn"
    pdn.write_text('[Result "1-0"]\n\n1. 11-15 23-19 1-0\n', encoding="utf-8")
    assert main(["db", "import", str(pdn)]) == 0  # into the same default
    assert main(serve) == 0
    out = capsys.readouterr().out
    assert f"opening explorer on the game database {default}" in out
    server = fake_run.calls[-1][0]
    with TestClient(server.config.app, base_url="http://127.0.0.1") as client:
        assert client.get("/api/explore").json()["games"] == 1


def test_serve_s_hash_default_is_the_one_of_every_engine_command() -> None:
    parser = build_parser()
    defaults = {command: parser.parse_args([command, *rest]).hash
                for command, rest in (("serve", []), ("analyse", []), ("bestmove", []),
                                      ("play", []), ("book", ["deepen", "--out", "x"]))}
    assert set(defaults.values()) == {DEFAULT_HASH_MB}, defaults


def write_statuses(config: uvicorn.Config, forwarded_for: list[str]) -> list[int]:
    """The statuses of POSTs from 127.0.0.1 through the app as uvicorn wraps it, one for
    each ``X-Forwarded-For`` value (the path takes no POST: only the limits act)."""
    if not config.loaded:
        config.load()

    async def post_all() -> list[int]:
        transport = httpx.ASGITransport(app=config.loaded_app, client=("127.0.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return [(await client.post("/api/nothing", headers={"X-Forwarded-For": value})
                     ).status_code for value in forwarded_for]

    return asyncio.run(post_all())


@dataclasses.dataclass(frozen=True)
class ThreeWrites(ServerLimits):
    """Limits of 3 writes per client, and no more for the length of a test."""

    write_rate: float = 0.001
    write_burst: int = 3


@pytest.fixture
def three_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """serve's limits are :class:`ThreeWrites`."""
    monkeypatch.setattr(limits, "ServerLimits", ThreeWrites)


def test_x_forwarded_for_is_ignored_without_a_trusted_proxy(
        fake_run: FakeRun, tmp_path: Path, three_writes: None) -> None:
    # Each POST claims another client; the write limit still counts them as the one
    # address they come from.
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "g.sqlite3"), "--hash", "1"]) == 0
    ((server, _),) = fake_run.calls
    statuses = write_statuses(server.config, [f"203.0.113.{n}" for n in range(4)])
    assert statuses == [405, 405, 405, 429]


def test_x_forwarded_for_names_the_client_behind_a_trusted_proxy(
        fake_run: FakeRun, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        three_writes: None) -> None:
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "g.sqlite3"), "--hash", "1",
                 "--forwarded-allow-ips", "127.0.0.1, 10.0.0.0/8"]) == 0
    assert "X-Forwarded-For of 127.0.0.1, 10.0.0.0/8" in capsys.readouterr().out
    ((server, _),) = fake_run.calls
    assert write_statuses(server.config, [f"203.0.113.{n}" for n in range(4)]) == [405] * 4
    assert write_statuses(server.config, ["198.51.100.7"] * 4) == [405, 405, 405, 429]


@pytest.mark.parametrize("value", ["proxy.lan", "127.0.0.1, 300.1.1.1", " , "])
def test_a_forwarded_allow_ips_that_is_no_address_is_a_usage_error(
        fake_run: FakeRun, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        value: str) -> None:
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "g.sqlite3"),
                 "--forwarded-allow-ips", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("doublecorner serve: error: --forwarded-allow-ips: ")
    assert err.count("\n") == 1 and fake_run.calls == []
