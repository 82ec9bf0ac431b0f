"""What the commands that search share: their options, the engine they make, and the search.

``analyse``, ``bestmove``, ``analyse GAMES.pdn`` and ``play`` all read a
position and search limits from the command line, make an engine within the
memory there is, and search in a worker thread that Ctrl-C stops. They and
``serve`` take the endgame tables the same way (:func:`add_table_options`).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from doublecorner.board import Board
from doublecorner.cli.common import (
    UsageError,
    add_book_option,
    add_evaluation_options,
    add_moves_option,
    book_from_arguments,
    evaluation_from_arguments,
    positive_float,
    whole_number,
)
from doublecorner.cli.memory import check_hash_fits
from doublecorner.cli.streams import check_directory_option
from doublecorner.engine import Engine, InfoCallback, Limit, SearchResult
from doublecorner.engine.limit import MAX_DEPTH
from doublecorner.engine.search import NO_NODE_LIMIT
from doublecorner.engine.tt import MAX_MEGABYTES, MIN_MEGABYTES
from doublecorner.fen import STARTING_FEN

if TYPE_CHECKING:
    from doublecorner.egtb import TableChoice, Tables

DEFAULT_SECONDS = 5.0
DEFAULT_GAME_SECONDS = 0.5  # per position when a whole PDN file is analysed
DEFAULT_HASH_MB = 64
TABLES_BUILT_ON_DEMAND = 4  # built in seconds if missing
MAX_NODES = NO_NODE_LIMIT - 1  # the kernel counts nodes in 64 bits

search_depth = whole_number(1, MAX_DEPTH, f"expected 1 to {MAX_DEPTH} plies, not {{value}}")
"""An argparse type: plies to search."""
node_count = whole_number(1, MAX_NODES, f"expected 1 to {MAX_NODES} nodes, not {{value}}")
"""An argparse type: nodes to search."""
hash_megabytes = whole_number(MIN_MEGABYTES, MAX_MEGABYTES,
                              f"expected {MIN_MEGABYTES} to {MAX_MEGABYTES} MB, "
                              "not {value}")
"""An argparse type: the transposition table's size in MB (memory is checked later)."""


def add_search_options(parser: argparse.ArgumentParser) -> None:
    """The position and the search options ``analyse``, ``bestmove`` and others share."""
    parser.add_argument("fen", nargs="?", default=STARTING_FEN,
                        help="a FEN (default: start)" if parser.prog.endswith("bestmove")
                        else "a FEN (default: start) or a PDN file")
    add_moves_option(parser)
    limits = parser.add_mutually_exclusive_group()
    limits.add_argument("--time", type=positive_float, metavar="S",
                        help=f"seconds to think (default: {DEFAULT_SECONDS:g})")
    limits.add_argument("--depth", type=search_depth, metavar="D", help="plies to search")
    limits.add_argument("--nodes", type=node_count, metavar="N", help="nodes to search")
    parser.add_argument("--hash", type=hash_megabytes, default=DEFAULT_HASH_MB, metavar="MB",
                        help=f"transposition table size (default: {DEFAULT_HASH_MB})")
    add_table_options(parser)
    add_evaluation_options(parser)
    add_book_option(parser)


def add_table_options(parser: argparse.ArgumentParser) -> None:
    """``--egtb [DIR]`` and ``--no-egtb``: the endgame tables the engine plays with."""
    tables = parser.add_mutually_exclusive_group()
    tables.add_argument("--egtb", nargs="?", const="", default=None, metavar="DIR",
                        help="play with the endgame tables in DIR (default: those 'doublecorner "
                             "egtb build' installed in its default folder, if any); a bare "
                             f"--egtb builds the tables of up to {TABLES_BUILT_ON_DEMAND} "
                             "pieces in the default folder first if missing (seconds)")
    tables.add_argument("--no-egtb", action="store_true",
                        help="play without endgame tables, even if some are installed")


def engine_from_arguments(arguments: argparse.Namespace) -> Engine:
    """An engine with the arguments' hash size, evaluation, tables (see
    :func:`table_choice_from_arguments`) and, with ``--book``, book.

    :raises UsageError: the table does not fit in memory, or ``--egtb`` names no folder.
    :raises BookError: the ``--book`` file cannot be read or is damaged.
    """
    evaluation = evaluation_from_arguments(arguments)
    book = book_from_arguments(arguments)
    check_hash_fits(arguments.hash)
    tables = tables_from_arguments(arguments)
    return new_engine(arguments.hash, tables=tables, **evaluation, **book)


def new_engine(hash_mb: int, **options: Any) -> Engine:
    """``Engine(hash_mb=hash_mb, **options)``, a MemoryError told as a usage error.

    :raises UsageError: the memory for the table could not be had after all.
    """
    try:
        return Engine(hash_mb=hash_mb, **options)
    except MemoryError:
        raise UsageError(f"--hash {hash_mb}: cannot allocate {hash_mb} MB") from None


def tables_from_arguments(arguments: argparse.Namespace) -> Tables | None:
    """The endgame tables to play with (shared by the engines of this process), or None.

    Each slice is read when a search first comes near it.

    :raises UsageError: ``--egtb`` names no folder.
    """
    from doublecorner.egtb import resolve_tables

    return resolve_tables(table_choice_from_arguments(arguments))


def table_choice_from_arguments(arguments: argparse.Namespace) -> TableChoice:
    """Which tables ``--egtb [DIR]`` and ``--no-egtb`` name.

    None with ``--no-egtb``; the folder of ``--egtb DIR`` (or of a bare
    ``--egtb``, the default one), its tables of up to
    :data:`TABLES_BUILT_ON_DEMAND` pieces built if missing; without either,
    the installed tables.

    :raises UsageError: ``--egtb`` names no folder.
    """
    from doublecorner.egtb import INSTALLED_TABLES, default_directory, ensure_tables

    if arguments.no_egtb:
        return None
    if arguments.egtb is None:
        return INSTALLED_TABLES
    directory = (check_directory_option(arguments.egtb, "--egtb") if arguments.egtb
                 else default_directory())
    ensure_tables(directory, max_pieces=TABLES_BUILT_ON_DEMAND)
    return directory


def egtb_directory_from_arguments(arguments: argparse.Namespace) -> Path | None:
    """The folder of the tables to play with (for engines elsewhere), or None for none."""
    tables = tables_from_arguments(arguments)
    return None if tables is None else tables.slice_directory


def limit_from_arguments(arguments: argparse.Namespace, *,
                         default_seconds: float = DEFAULT_SECONDS) -> Limit:
    if arguments.depth is not None:
        return Limit(depth=arguments.depth)
    if arguments.nodes is not None:
        return Limit(nodes=arguments.nodes)
    return Limit(time=arguments.time or default_seconds)


def run_search(engine: Engine, board: Board, limit: Limit,
               on_info: InfoCallback | None = None, *, use_book: bool = True) -> SearchResult:
    """Search in a worker thread, so that Ctrl-C stops the search and keeps its result.

    The compiled search holds the main thread without running Python, which
    would delay the KeyboardInterrupt until the search ends by itself. The
    worker says it is done with an event of its own, not ``is_alive()``: on
    Python 3.11 and 3.12 a Ctrl-C inside ``Thread.join()`` can leave
    ``is_alive()`` False while the thread still runs. The stop is an event
    passed to this search, not ``engine.stop()``, which a search that has not
    started yet would forget. ``use_book``: as :meth:`Engine.search`.

    :raises KeyboardInterrupt: Ctrl-C came before the search had any result.
    """
    results: list[SearchResult] = []
    failures: list[BaseException] = []
    done = threading.Event()
    stop = threading.Event()

    def search() -> None:
        try:
            results.append(engine.search(board.position(), limit,
                                         history=board.position_history(),
                                         halfmove_clock=board.halfmove_clock, on_info=on_info,
                                         stop=stop, use_book=use_book))
        except BaseException as error:  # handed to the main thread below
            failures.append(error)
        finally:
            done.set()

    worker = threading.Thread(target=search, name="doublecorner-search", daemon=True)
    with _ctrl_c_sets(stop):
        worker.start()
        while not done.is_set():
            try:
                done.wait(0.05)
            except KeyboardInterrupt:  # off the main thread, or before the handler was set
                stop.set()
    if failures:
        raise failures[0]
    if not results:  # pragma: no cover - the search returns whenever it does not raise
        raise KeyboardInterrupt
    if stop.is_set():
        print("doublecorner: search stopped (Ctrl-C); the result so far", file=sys.stderr)
    return results[0]


@contextmanager
def _ctrl_c_sets(event: threading.Event) -> Iterator[None]:
    """While inside, Ctrl-C (SIGINT) sets ``event`` instead of raising KeyboardInterrupt.

    A handler rather than ``except KeyboardInterrupt``: the exception can land
    on any line of the waiting loop, outside its ``try``. Only the main thread
    may set handlers; elsewhere SIGINT is left alone.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda _signal, _frame: event.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
