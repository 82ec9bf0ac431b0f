"""Subcommand ``book``: build an opening book from a game database, deepen it with the engine,
show a position's moves."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path
from typing import Any

from doublecorner.board import Board
from doublecorner.book import Book, BookEntry, BuildProgress, build_book
from doublecorner.book.builder import DEFAULT_MAX_PLIES, DEFAULT_MIN_GAMES
from doublecorner.book.deepen import (
    DEFAULT_DROP_OUT,
    DEFAULT_MARGIN,
    DeepenProgress,
    deepen_book,
)
from doublecorner.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    ProgressBar,
    UsageError,
    add_evaluation_options,
    add_moves_option,
    board_after_moves,
    counted,
    evaluation_from_arguments,
    positive_float,
    positive_int,
    whole_number,
)
from doublecorner.cli.db import database_path
from doublecorner.cli.memory import check_hash_fits
from doublecorner.cli.search_options import (
    DEFAULT_HASH_MB,
    hash_megabytes,
    new_engine,
    node_count,
    search_depth,
)
from doublecorner.cli.streams import check_regular_output
from doublecorner.db import GameDatabase, default_db_path
from doublecorner.engine import Limit
from doublecorner.errors import quoted
from doublecorner.fen import STARTING_FEN
from doublecorner.text_numbers import plain_float


def add_parsers(commands: Any) -> None:
    """Register ``book build``, ``book deepen`` and ``book show``."""
    book = commands.add_parser(
        "book", help="opening books: build one from a game database, deepen it, show it",
        description="An opening book holds, for positions of the opening, the moves to play "
                    "and their weights (docs/book.md). The engine plays from one with --book "
                    "(analyse, bestmove, play, serve) or the DCP options OwnBook and BookFile.")
    actions = book.add_subparsers(dest="book_command", metavar="ACTION", required=True)

    build = actions.add_parser(
        "build", help="build a book from the games of a database",
        description="From the positions the games start from, one ply at a time: every move "
                    "played in at least N games there (by any order of moves) enters the book, "
                    "weighted by the half-points its side scored with it (2 x wins + draws).")
    build.add_argument("--db", type=Path, metavar="PATH",
                       help="the game database ('doublecorner db import' makes one; "
                            f"default: {default_db_path()})")
    build.add_argument("--out", type=Path, required=True, metavar="BOOK",
                       help="the book file to write")
    build.add_argument("--min-games", type=positive_int, default=DEFAULT_MIN_GAMES,
                       metavar="N", help="games a move needs to enter the book "
                                         f"(default {DEFAULT_MIN_GAMES})")
    build.add_argument("--max-plies", type=positive_int, default=DEFAULT_MAX_PLIES,
                       metavar="P", help=f"plies from the start (default {DEFAULT_MAX_PLIES})")
    build.set_defaults(run=_build)

    show = actions.add_parser("show", help="the book's moves in a position")
    show.add_argument("book", type=Path, metavar="BOOK")
    show.add_argument("fen", nargs="?", default=STARTING_FEN,
                      help="the position (default: the start)")
    add_moves_option(show)
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.set_defaults(run=_show)

    deepen = actions.add_parser(
        "deepen", help="check and extend a book with the engine (drop-out expansion)",
        description="From the deck's openings (or the start), expand positions one at a "
                    "time, searching every move of each: the next position is the one of least "
                    "drop-out cost (one per ply, plus --drop-out per hundredth of a man an "
                    "opponent's move gives away; the book's own side follows only moves within "
                    "--margin of its best). Writes, for every position expanded, the moves "
                    "within --margin of the best with the engine's score; the moves of --book "
                    "there are kept, scored, and weigh 0 where the engine refutes them. "
                    "Ctrl-C stops and writes what was done.")
    deepen.add_argument("--out", type=Path, required=True, metavar="BOOK",
                        help="the book file to write")
    deepen.add_argument("--book", type=Path, metavar="BOOK",
                        help="a book to check and extend (kept where not expanded)")
    deepen.add_argument("--from", dest="roots", choices=("deck", "start"), default="deck",
                        help="grow from the 156 openings of the ACF three-move deck (default) "
                             "or from the start position")
    deepen.add_argument("--positions", type=positive_int, default=DEFAULT_POSITIONS,
                        metavar="N", help=f"positions to expand (default {DEFAULT_POSITIONS})")
    limits = deepen.add_mutually_exclusive_group()
    limits.add_argument("--nodes", type=node_count, metavar="N",
                        help=f"nodes per search (default {DEFAULT_NODES})")
    limits.add_argument("--time", type=positive_float, metavar="S", help="seconds per search")
    limits.add_argument("--depth", type=search_depth, metavar="D", help="plies per search")
    deepen.add_argument("--margin", type=margin_type, default=DEFAULT_MARGIN, metavar="CP",
                        help="hundredths of a man a move may fall short of the best and stay "
                             f"in the book (default {DEFAULT_MARGIN})")
    deepen.add_argument("--drop-out", type=drop_out_type, default=DEFAULT_DROP_OUT,
                        metavar="W", help="plies of cost per hundredth of a man an "
                                          f"opponent's move gives away (default "
                                          f"{DEFAULT_DROP_OUT:g})")
    deepen.add_argument("--hash", type=hash_megabytes, default=DEFAULT_HASH_MB, metavar="MB",
                        help=f"transposition table size (default: {DEFAULT_HASH_MB})")
    add_evaluation_options(deepen)
    deepen.set_defaults(run=_deepen)


DEFAULT_POSITIONS = 100
DEFAULT_NODES = 20_000
margin_type = whole_number(0, 1000, "expected 0 to 1000 hundredths of a man, not {value}")


def drop_out_type(text: str) -> float:
    """An argparse type: a drop-out weight, 0 or more."""
    try:
        value = plain_float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number 0 or more, not {quoted(text)}")
    return value


def check_output(path: Path, option: str = "--out") -> None:
    """Refuse an output path that is a folder, lies in a missing folder or is no regular
    file (a device, a FIFO: the book replaces what is there).

    :raises UsageError: it cannot be a book file to write.
    """
    if path.is_dir():
        raise UsageError(f"{option} {quoted(str(path))} is a folder, not a book file")
    check_regular_output(path, option)


def _build(arguments: argparse.Namespace) -> int:
    db_path = database_path(arguments.db, must_exist=True)
    check_output(arguments.out)
    bar = ProgressBar("book build")

    def progress(step: BuildProgress) -> None:
        bar(step.ply, step.max_plies, f"ply {step.ply + 1}: "
            f"{counted(step.positions, 'position')}, {counted(step.entries, 'move')}")

    try:
        with GameDatabase(db_path) as database:
            book = build_book(database, min_games=arguments.min_games,
                              max_plies=arguments.max_plies, progress=progress)
            games = database.count_games()
        bar(arguments.max_plies, arguments.max_plies, "done")
    finally:
        bar.close()
    book.write(arguments.out)
    print(f"{arguments.out}: {counted(len(book), 'move')} in "
          f"{counted(book.positions, 'position')} from {counted(games, 'game')} "
          f"(at least {arguments.min_games} a move, up to {arguments.max_plies} plies)")
    return EXIT_OK



def open_book(path: Path, option: str = "--book") -> Book:
    """The book at ``path``, a missing file said as bad input.

    :raises UsageError: there is no file there.
    :raises BookError: the file is no book, or a damaged one.
    """
    if path.is_dir():
        raise UsageError(f"{option} {quoted(str(path))} is a folder, not a book file")
    if not path.exists():
        raise UsageError(f"no opening book at {quoted(str(path))} "
                         "(make one with 'doublecorner book build')")
    return Book.open(path)


def _show(arguments: argparse.Namespace) -> int:
    book = open_book(arguments.book, "book")
    board = board_after_moves(arguments.fen, arguments.moves)
    entries = book.entries(board)
    if arguments.json:
        print(json.dumps({"fen": board.fen(), "moves": [_entry_json(entry, entries)
                                                         for entry in entries]}))
        return EXIT_OK
    print(f"{board.fen()}  {counted(len(entries), 'book move')} "
          f"(the book: {counted(len(book), 'move')} in "
          f"{counted(book.positions, 'position')})")
    if entries:
        print(f"{'move':<12}{'weight':>8}{'share':>8}{'games':>8}{'wins':>7}{'draws':>7}"
              f"{'losses':>7}{'score':>7}")
    for entry in entries:
        score = "-" if entry.score is None else str(entry.score)
        print(f"{entry.move!s:<12}{entry.weight:>8}{_share(entry, entries):>7.1f}%"
              f"{entry.games:>8}{entry.wins:>7}{entry.draws:>7}{entry.losses:>7}{score:>7}")
    return EXIT_OK


def _share(entry: BookEntry, entries: tuple[BookEntry, ...]) -> float:
    """The chance (in %) that the book plays ``entry`` among ``entries``."""
    total = sum(other.weight for other in entries)
    return 100 * entry.weight / total if total else 0.0


def _entry_json(entry: BookEntry, entries: tuple[BookEntry, ...]) -> dict[str, object]:
    return {"move": str(entry.move), "weight": entry.weight,
            "share": round(_share(entry, entries) / 100, 4), "games": entry.games,
            "wins": entry.wins, "draws": entry.draws, "losses": entry.losses,
            "score": entry.score}


def _deepen(arguments: argparse.Namespace) -> int:
    check_output(arguments.out)
    book = open_book(arguments.book) if arguments.book is not None else None
    evaluation = evaluation_from_arguments(arguments)
    check_hash_fits(arguments.hash)
    engine = new_engine(arguments.hash, **evaluation)
    if arguments.roots == "deck":
        from doublecorner.match.ballots import three_move_deck

        roots = [ballot.board().position() for ballot in three_move_deck()]
    else:
        roots = [Board().position()]
    limit = (Limit(depth=arguments.depth) if arguments.depth is not None
             else Limit(time=arguments.time) if arguments.time is not None
             else Limit(nodes=arguments.nodes or DEFAULT_NODES))
    bar = ProgressBar("book deepen")

    def progress(step: DeepenProgress) -> None:
        bar(step.expanded, step.positions, f"{counted(step.searches, 'search', 'searches')}, "
            f"{counted(step.leaves, 'leaf', 'leaves')}")

    stop = threading.Event()
    results: list[Book] = []
    failures: list[BaseException] = []
    done = threading.Event()

    def work() -> None:
        try:
            results.append(deepen_book(engine, roots, positions=arguments.positions,
                                       limit=limit, book=book, margin=arguments.margin,
                                       drop_out=arguments.drop_out, progress=progress,
                                       stop=stop))
        except BaseException as error:  # handed to the main thread below
            failures.append(error)
        finally:
            done.set()

    threading.Thread(target=work, name="doublecorner-deepen", daemon=True).start()
    try:
        while not done.is_set():
            try:
                done.wait(0.05)
            except KeyboardInterrupt:
                if not stop.is_set():
                    print("\nbook deepen: stopping; the positions expanded so far are written",
                          file=sys.stderr)
                stop.set()
    finally:
        bar.close()
    if failures:
        raise failures[0]
    deepened = results[0]
    deepened.write(arguments.out)
    step = deepened.provenance["steps"][-1]
    print(f"{arguments.out}: {counted(len(deepened), 'move')} in "
          f"{counted(deepened.positions, 'position')}; "
          f"{counted(step['positions_expanded'], 'position')} expanded with "
          f"{counted(step['searches'], 'search', 'searches')}")
    return EXIT_FAILURE if stop.is_set() else EXIT_OK
