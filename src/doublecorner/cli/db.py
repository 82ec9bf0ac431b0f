"""Subcommand ``db``: import PDN files into a game database, explore positions, search, show."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from doublecorner.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    ProgressBar,
    UsageError,
    add_moves_option,
    board_after_moves,
    counted,
    positive_int,
)
from doublecorner.cli.streams import check_regular_output
from doublecorner.color import Color
from doublecorner.db import (
    Exploration,
    GameDatabase,
    GameQuery,
    GameSummary,
    ImportProgress,
    ImportSummary,
    default_db_path,
)
from doublecorner.db.search import RESULTS, date_range
from doublecorner.errors import quoted
from doublecorner.fen import STARTING_FEN
from doublecorner.files import reading_problem

DEFAULT_TOP = 10
DEFAULT_LIMIT = 50


def add_parsers(commands: Any) -> None:
    """Register ``db import``, ``db explore``, ``db search`` and ``db show``."""
    db = commands.add_parser(
        "db", help="a game database: import PDN files, explore positions, search games",
        description="Games imported from PDN files into an SQLite database, with every "
                    "position of every main line indexed: which games reached a position "
                    "(by any order of moves), what was played there and how it scored.")
    actions = db.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    db_help = f"the database file (default: {default_db_path()})"

    import_parser = actions.add_parser(
        "import", help="import PDN files (resumable; identical games are stored once)",
        description="Games with faults are imported up to their first fault and listed on "
                    "stderr; exit status 1 if there were any. A file imported before is "
                    "passed over, an interrupted import goes on where it stopped.")
    import_parser.add_argument("files", nargs="+", metavar="FILE", help="PDN files")
    import_parser.add_argument("--db", type=Path, metavar="PATH", help=db_help)
    import_parser.set_defaults(run=_import)

    explore = actions.add_parser(
        "explore", help="the games that reached a position and the moves played there",
        description="Per move: games, Black wins, draws, White wins and the score of the "
                    "side to move; then the newest games that reached the position.")
    explore.add_argument("fen", nargs="?", default=STARTING_FEN,
                         help="the position (default: the start)")
    add_moves_option(explore)
    explore.add_argument("--top", type=positive_int, default=DEFAULT_TOP, metavar="N",
                         help=f"how many games to list (default {DEFAULT_TOP})")
    explore.add_argument("--db", type=Path, metavar="PATH", help=db_help)
    explore.add_argument("--json", action="store_true", help="print one JSON object")
    explore.set_defaults(run=_explore)

    search = actions.add_parser(
        "search", help="games by player, event, date range and result, newest first",
        description="Names and events match any part, in any case; dates are YYYY, "
                    "YYYY.MM or YYYY.MM.DD.")
    search.add_argument("--player", help="either side")
    search.add_argument("--black")
    search.add_argument("--white")
    search.add_argument("--event")
    search.add_argument("--from", dest="date_from", type=_date, metavar="DATE",
                        help="played on or after DATE")
    search.add_argument("--to", dest="date_to", type=_date, metavar="DATE",
                        help="played on or before DATE")
    search.add_argument("--result", choices=RESULTS, help="1-0 is a win for Black")
    search.add_argument("--limit", type=positive_int, default=DEFAULT_LIMIT, metavar="N",
                        help=f"at most N games (default {DEFAULT_LIMIT})")
    search.add_argument("--db", type=Path, metavar="PATH", help=db_help)
    search.add_argument("--json", action="store_true", help="print one JSON list")
    search.set_defaults(run=_search)

    show = actions.add_parser("show", help="print a game's PDN")
    show.add_argument("id", type=positive_int, metavar="ID", help="the game's id")
    show.add_argument("--db", type=Path, metavar="PATH", help=db_help)
    show.set_defaults(run=_show)


def _date(text: str) -> str:
    try:
        date_range(text, text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def database_path(option: Path | None, *, must_exist: bool) -> Path:
    """The game database's ``--db`` path, or the default one: every command's the same.

    :raises UsageError: the file is missing and ``must_exist``, it is a folder or no
        regular file, or the folder of a ``--db`` does not exist.
    """
    path = option if option is not None else default_db_path()
    if path.is_dir():
        raise UsageError(f"--db {quoted(str(path))} is a folder, not a database file")
    if must_exist and not path.exists():
        raise UsageError(f"no game database at {quoted(str(path))} "
                         "(import games with 'doublecorner db import FILE...')")
    if option is not None:  # the default folder is made; a --db's must exist, as for serve
        check_regular_output(path, "--db")
    return path


# -- import --------------------------------------------------------------------------------


def _import(arguments: argparse.Namespace) -> int:
    for name in arguments.files:
        # Read twice (its digest, then its games): a regular file, never a device or a pipe.
        problem = reading_problem(name)
        if problem is not None:
            raise UsageError(f"cannot import {quoted(name)}: {problem}")
    path = database_path(arguments.db, must_exist=False)
    bar = ProgressBar("db import")

    def progress(step: ImportProgress) -> None:
        bar(step.bytes_read, step.bytes_total, counted(step.games, "game"))

    is_closed = False
    try:
        with GameDatabase(path) as database:
            summary = database.import_files(arguments.files, progress=progress)
    except KeyboardInterrupt:
        bar.close()
        is_closed = True
        print("db import: stopped; the games written so far are kept, and the same command "
              "goes on from there", file=sys.stderr)
        raise
    finally:
        if not is_closed:
            bar.close()
    for name, number, fault in summary.faults:
        print(f"{name}: game {number}: {fault}", file=sys.stderr)
    print(_summary_line(summary))
    return EXIT_FAILURE if summary.faulty or summary.skipped else EXIT_OK


def _summary_line(summary: ImportSummary) -> str:
    """One line: games imported (those kept up to a fault), duplicates, skipped, files passed.

    >>> _summary_line(ImportSummary(imported=3, faulty=1, duplicates=1, files_done=1))
    '3 games imported (1 up to a fault), 1 duplicate, 0 skipped; 1 file imported before'
    """
    line = (f"{counted(summary.imported, 'game')} imported ({summary.faulty:,} up to a fault), "
            f"{counted(summary.duplicates, 'duplicate')}, {summary.skipped:,} skipped")
    if summary.files_done:
        line += f"; {counted(summary.files_done, 'file')} imported before"
    return line



# -- explore -------------------------------------------------------------------------------


def _explore(arguments: argparse.Namespace) -> int:
    board = board_after_moves(arguments.fen, arguments.moves)
    with GameDatabase(database_path(arguments.db, must_exist=True)) as database:
        found = database.explore(board, top=arguments.top)
    if arguments.json:
        print(json.dumps(found.to_json()))
    else:
        _print_exploration(found, board.turn)
    return EXIT_OK


def _print_exploration(found: Exploration, turn: Color) -> None:
    print(f"{found.fen}  {counted(found.games, 'game')}")
    if found.moves:
        side = "Black" if turn is Color.BLACK else "White"
        print(f"{'move':<12}{'games':>8}{'Black':>8}{'draws':>8}{'White':>8}  score ({side})")
        for move in found.moves:
            score = move.score(turn)
            shown = "-" if score is None else f"{100 * score:.1f}%"
            print(f"{move.move:<12}{move.games:>8}{move.black_wins:>8}{move.draws:>8}"
                  f"{move.white_wins:>8}  {shown}")
    if found.top_games:
        print("newest games:")
        for game in found.top_games:
            print(f"  {_game_line(game)}")


def _game_line(game: GameSummary) -> str:
    return (f"{game.id:>7}  {game.date:<10}  {game.black} - {game.white}  {game.result}  "
            f"{game.event}")


# -- search and show ---------------------------------------------------------------------


def _search(arguments: argparse.Namespace) -> int:
    query = GameQuery(player=arguments.player, black=arguments.black, white=arguments.white,
                      event=arguments.event, date_from=arguments.date_from,
                      date_to=arguments.date_to, result=arguments.result)
    with GameDatabase(database_path(arguments.db, must_exist=True)) as database:
        games = database.search(query, limit=arguments.limit)
    if arguments.json:
        print(json.dumps([game.to_json() for game in games]))
    else:
        for game in games:
            print(_game_line(game))
        print(counted(len(games), "game"), file=sys.stderr)
    return EXIT_OK


def _show(arguments: argparse.Namespace) -> int:
    with GameDatabase(database_path(arguments.db, must_exist=True)) as database:
        game = database.game(arguments.id)
    sys.stdout.write(game.pdn)
    for fault in game.faults:
        print(f"game {game.id} was imported up to a fault of its file: {fault}",
              file=sys.stderr)
    return EXIT_OK

