"""The ``serve`` subcommand: the web app (play and analyse in the browser) under uvicorn.

FastAPI and uvicorn come with the ``web`` extra and are imported only when
the command runs, so that the rest of the command line works without them.
The listening socket is bound before the server starts: the address printed
is the one in use (``--port 0`` picks a free port), and a port already taken
is reported in one line, as are a missing extra, a ``--db`` that is no
database or sits in a missing folder, and a ``--games-db`` (the explorer's
game database, opened read only; without the option, the one ``db import``
fills by default, if it exists) that is missing or no game database (exit 2:
the environment cannot serve; only the default data folder is created). The
server answers only for the loopback names and those given with
``--allowed-host`` (and the address it listens on, when that is one address);
it prints them, and the base of the invite links. Clients are the addresses
they connect from: ``X-Forwarded-For`` names them only when it comes from a
proxy of ``--forwarded-allow-ips``. uvicorn runs with the app's limits on
connections (:func:`~doublecorner.web.http_protocol.server_config`).
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from pathlib import Path
from typing import Any

from doublecorner.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    add_book_option,
    book_from_arguments,
    positive_float,
    positive_int,
    whole_number,
)
from doublecorner.cli.memory import available_memory_mb
from doublecorner.cli.search_options import DEFAULT_HASH_MB, add_table_options, hash_megabytes
from doublecorner.cli.streams import check_regular_output
from doublecorner.db import default_db_path as default_games_db_path
from doublecorner.errors import quoted
from doublecorner.files import reading_problem

INSTALL_HINT = "pip install '.[web]' in doublecorner's folder"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def add_parsers(commands: Any) -> None:
    """Register ``serve``."""
    serve = commands.add_parser(
        "serve", help="play and analyse in the browser (starts a local web server)",
        description="Start the web app: play against the engine or a friend, analyse "
                    "positions live, import and download PDN. Games are kept in an SQLite "
                    "file and can be continued after a restart. Each side of a game belongs "
                    "to the browser that holds its token. To serve other machines, listen on "
                    "their network (--host 0.0.0.0) and name the host they use "
                    f"(--allowed-host). Needs {INSTALL_HINT}.")
    serve.add_argument("--host", default=DEFAULT_HOST,
                       help=f"address to listen on (default: {DEFAULT_HOST}, this machine only)")
    serve.add_argument("--port", type=_port, default=DEFAULT_PORT,
                       help=f"port to listen on, 0 for any free one (default: {DEFAULT_PORT})")
    serve.add_argument("--db", type=Path, metavar="PATH",
                       help="the games database (default: games.sqlite3 in the user's data "
                            "directory, e.g. ~/.local/share/doublecorner/)")
    serve.add_argument("--games-db", type=Path, metavar="PATH",
                       help="a game database made by 'doublecorner db import', for the "
                            "opening explorer of the analysis board (read only; default: "
                            f"{default_games_db_path()} if it exists, else no explorer)")
    serve.add_argument("--engine-threads", type=positive_int, default=1, metavar="N",
                       help="engine searches that may run at once (default: 1)")
    serve.add_argument("--max-seconds", type=positive_float, default=10.0, metavar="S",
                       help="longest time one engine search may take (default: 10)")
    serve.add_argument("--hash", type=hash_megabytes, default=DEFAULT_HASH_MB, metavar="MB",
                       help="transposition table of each engine thread, as for analyse "
                            f"(default: {DEFAULT_HASH_MB})")
    add_table_options(serve)
    serve.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="a host name (or address) the server answers for, as browsers "
                            "reach it; repeatable (always: localhost, 127.0.0.1, ::1)")
    serve.add_argument("--max-games", type=positive_int, default=100_000, metavar="N",
                       help="games the server keeps at most (default: 100000)")
    serve.add_argument("--max-games-per-client", type=positive_int, default=5_000,
                       metavar="N", help="games one client address keeps at most "
                                         "(default: 5000)")
    serve.add_argument("--forwarded-allow-ips", metavar="ADDRS",
                       help="behind a reverse proxy: the proxy's addresses or networks, "
                            "comma-separated (or * for any), whose X-Forwarded-For header "
                            "names the client that the per-client limits count (default: "
                            "none; the header is ignored and each client is the address it "
                            "connects from)")
    serve.add_argument("--access-log", action="store_true",
                       help="log every request on stderr")
    add_book_option(serve)
    serve.set_defaults(run=_serve)


_port = whole_number(0, 65535, "expected a port from 0 to 65535, not {value}",
                     expected="a port number")


def _serve(arguments: argparse.Namespace) -> int:
    try:
        import uvicorn

        from doublecorner.cli.engine import tables_from_arguments
        from doublecorner.errors import GameDatabaseError, TableError
        from doublecorner.web.app import create_app
        from doublecorner.web.edge import LOOPBACK_HOSTS
        from doublecorner.web.http_protocol import server_config
        from doublecorner.web.limits import ServerLimits, TrustedProxies
        from doublecorner.web.store import StoreError, default_db_path
    except ImportError as error:
        print(f"doublecorner: error: serve needs the web extra ({error.name or error} is "
              f"missing): {INSTALL_HINT}", file=sys.stderr)
        return EXIT_USAGE
    if arguments.db is not None:  # only the default folder is created; a typo is not
        check_regular_output(arguments.db, "--db")
    db_path = arguments.db if arguments.db is not None else default_db_path()
    games_db = _games_db(arguments.games_db)
    games_db_problem = _games_db_problem(games_db)
    if games_db_problem is not None:
        print(f"doublecorner: error: {games_db_problem}", file=sys.stderr)
        return EXIT_USAGE
    book = book_from_arguments(arguments)  # a bad book is said before the server starts
    if arguments.forwarded_allow_ips is not None:
        try:
            TrustedProxies.parse(arguments.forwarded_allow_ips)
        except ValueError as error:
            print(f"doublecorner serve: error: --forwarded-allow-ips: {error}", file=sys.stderr)
            return EXIT_USAGE
    problem = engine_memory_problem(arguments.hash, arguments.engine_threads,
                                    available_memory_mb())
    if problem is not None:
        print(f"doublecorner serve: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        listener = _bind(arguments.host, arguments.port)
    except (OSError, UnicodeError) as error:  # UnicodeError: a host no name can be
        print(f"doublecorner: error: cannot listen on {quoted(arguments.host)} port "
              f"{arguments.port}: {getattr(error, 'strerror', None) or error}", file=sys.stderr)
        return EXIT_USAGE
    hosts = allowed_hosts(arguments.host, arguments.allowed_host, LOOPBACK_HOSTS)
    limits = ServerLimits(max_games=arguments.max_games,
                          max_games_per_client=arguments.max_games_per_client)
    try:
        tables = tables_from_arguments(arguments)  # one set, shared by the engine threads
        app = create_app(db_path, engine_threads=arguments.engine_threads,
                         max_seconds=arguments.max_seconds, hash_mb=arguments.hash,
                         tables=tables, allowed_hosts=hosts,
                         games_db=games_db,
                         **book, limits=limits)
    except (StoreError, TableError, GameDatabaseError) as error:
        listener.close()
        where = "--games-db: " if isinstance(error, GameDatabaseError) else ""
        print(f"doublecorner: error: {where}{error}", file=sys.stderr)
        return EXIT_USAGE
    port = listener.getsockname()[1]
    print(f"doublecorner: serving on {_url(listener)} (games in {db_path}); Ctrl-C stops it",
          flush=True)
    print(f"doublecorner: allowed hosts: {', '.join(hosts)}", flush=True)
    if games_db is not None:
        print(f"doublecorner: opening explorer on the game database {games_db}", flush=True)
    else:
        print(f"doublecorner: no game database at {default_games_db_path()}: the opening "
              "explorer is off ('doublecorner db import FILE...' makes one)", flush=True)
    if tables is not None:
        print(f"doublecorner: the engine plays with the endgame tables in "
              f"{tables.slice_directory} (up to {tables.max_pieces} pieces)", flush=True)
    else:
        print("doublecorner: the engine plays without endgame tables", flush=True)
    print(f"doublecorner: invite links start with {_base_url(hosts, LOOPBACK_HOSTS, port)}",
          flush=True)
    if not _is_loopback(arguments.host) and set(hosts) <= set(LOOPBACK_HOSTS):
        print(f"doublecorner: warning: listening on {arguments.host}, but other machines are "
              "refused until you name the host they reach it by: --allowed-host NAME",
              file=sys.stderr)
    # The socket is passed in, so uvicorn's host and port are only for its messages.
    if arguments.forwarded_allow_ips is not None:
        print(f"doublecorner: clients are named by the X-Forwarded-For of "
              f"{arguments.forwarded_allow_ips}", flush=True)
    config = server_config(app, limits, forwarded_allow_ips=arguments.forwarded_allow_ips,
                           log_level="info" if arguments.access_log else "warning",
                           access_log=arguments.access_log)
    with listener:
        uvicorn.Server(config).run(sockets=[listener])
    return EXIT_OK


def _games_db(option: Path | None) -> Path | None:
    """The explorer's game database: ``--games-db``, else the default one if it exists."""
    if option is not None:
        return option
    default = default_games_db_path()
    return default if default.is_file() else None


def _games_db_problem(path: Path | None) -> str | None:
    """Why ``--games-db PATH`` cannot be the explorer's database, or ``None``.

    The web app opens it read only: a missing file is never made.
    """
    problem = None if path is None else reading_problem(path)
    if problem is None:
        return None
    shown = quoted(str(path))
    return (f"--games-db {shown}: {problem}; it must be a game database, made by "
            f"doublecorner db import FILE... --db {shown}")


def engine_memory_problem(hash_mb: int, threads: int, available_mb: int | None) -> str | None:
    """Why ``threads`` engines of ``hash_mb`` MB each cannot be made here, or ``None``.

    >>> engine_memory_problem(32, 2, 4000) is None
    True
    >>> print(engine_memory_problem(65536, 1, 4000))
    --hash 65536 with --engine-threads 1 needs 65536 MB of memory, and 4000 MB are available
    """
    from doublecorner.engine.tt import MAX_MEGABYTES

    if hash_mb > MAX_MEGABYTES:
        return f"--hash must be at most {MAX_MEGABYTES} MB, not {hash_mb}"
    needed = hash_mb * threads
    if available_mb is not None and needed > available_mb:
        return (f"--hash {hash_mb} with --engine-threads {threads} needs {needed} MB of "
                f"memory, and {available_mb} MB are available")
    return None


def allowed_hosts(host: str, names: list[str], loopback: tuple[str, ...]) -> list[str]:
    """The hosts the server answers for: loopback, ``names``, and ``host`` if it is one
    address (``0.0.0.0`` and ``::`` are every address, not a name a browser uses).

    >>> allowed_hosts("192.168.1.5", ["board.lan"], ("localhost",))
    ['localhost', 'board.lan', '192.168.1.5']
    >>> allowed_hosts("0.0.0.0", [], ("localhost",))
    ['localhost']
    """
    found = [*loopback, *(name.strip().lower() for name in names)]
    try:
        if not ipaddress.ip_address(host).is_unspecified:
            found.append(host)
    except ValueError:
        found.append(host.lower())
    return list(dict.fromkeys(name.strip("[]") for name in found if name))


def _base_url(hosts: list[str], loopback: tuple[str, ...], port: int) -> str:
    """Where a friend's browser reaches the server: the first host that is not loopback."""
    remote = [host for host in hosts if host not in loopback]
    host = (remote or [loopback[0]])[0]
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def _bind(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host`` and ``port``.

    The socket keeps the protocol number getaddrinfo gives (TCP): asyncio sets
    TCP_NODELAY only on sockets that carry it, and without that each answer
    on a kept-alive connection waits about 40 ms for a delayed ACK.

    :raises OSError: the address is unknown or the port is taken.
    """
    family, kind, protocol, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    listener = socket.socket(family, kind, protocol)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
    except OSError:
        listener.close()
        raise
    listener.set_inheritable(True)
    return listener


def _url(listener: socket.socket) -> str:
    host, port = listener.getsockname()[:2]
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
