"""The ``pdn`` subcommand: ``check``, ``stats`` and ``convert`` for PDN game files."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, Any, TextIO

from doublecorner.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    UsageError,
    counted,
    positive_int,
)
from doublecorner.color import Color
from doublecorner.errors import DraughtsError, PdnError
from doublecorner.fen import STARTING_FEN
from doublecorner.match import three_move_deck
from doublecorner.move import Move
from doublecorner.pdn import Game, NotPdnError, PdnReader, StringExporter
from doublecorner.position import Position

RESULT_NAMES = {"1-0": "Black won", "0-1": "White won", "1/2-1/2": "drawn", "*": "unknown"}
DEFAULT_TOP = 10


def add_parsers(commands: Any) -> None:
    """Register ``pdn`` and its actions ``check``, ``stats`` and ``convert``."""
    pdn = commands.add_parser(
        "pdn", help="check, summarise and convert PDN game files",
        description="Read PDN files of English draughts games (GameType 21; '1-0' means "
                    "Black, who moves first, won). Files may be UTF-8 or Latin-1; '-' "
                    "reads stdin.")
    actions = pdn.add_subparsers(dest="action", metavar="ACTION", required=True)

    check = actions.add_parser(
        "check", help="check that every game reads and every move is legal",
        description="Print 'file:line: game N: problem' for each fault, then a summary. "
                    "Exit status 1 if any game has a fault. A game that goes on past a "
                    "draw nobody claimed (threefold repetition, 40-move rule) gets a "
                    "'file: game N: note: ...' line, which is no fault.")
    check.add_argument("files", nargs="+", metavar="FILE", help="PDN files")
    check.add_argument("--json", action="store_true",
                       help="print one JSON document (faults and counts) instead")
    check.set_defaults(run=_check)

    stats = actions.add_parser(
        "stats", help="count games, results, openings and lengths",
        description="Openings are named by their number in the ACF three-move ballot deck "
                    "(for games from the start position); lengths are in plies of the "
                    "main line.")
    stats.add_argument("file", metavar="FILE", help="a PDN file")
    stats.add_argument("--top", type=positive_int, default=DEFAULT_TOP, metavar="N",
                       help=f"list the N most played openings (default {DEFAULT_TOP}; the deck "
                            "has 156)")
    stats.add_argument("--json", action="store_true", help="print one JSON document instead")
    stats.set_defaults(run=_stats)

    convert = actions.add_parser(
        "convert", help="rewrite games as standard PDN",
        description="Write every game as standard PDN: the seven tags and GameType 21, "
                    "short-form moves, wrapped lines, comments, NAGs and variations kept. "
                    "A game with faults keeps what could be read; its faults go to stderr "
                    "and the exit status is 1.")
    convert.add_argument("input", metavar="IN", help="a PDN file")
    convert.add_argument("output", metavar="OUT", help="the file to write ('-': stdout)")
    convert.set_defaults(run=_convert)


@contextmanager
def _games(path: str) -> Iterator[Iterator[Game]]:
    """The games of the file at ``path`` (``-``: stdin), read leniently.

    :raises UsageError: the file cannot be opened or read.
    """
    if path == "-":
        yield _reading(path, iter(PdnReader(getattr(sys.stdin, "buffer", sys.stdin))))
        return
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, after the caller's loop
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    with handle:
        yield _reading(path, iter(PdnReader(handle)))


def _reading(path: str, games: Iterator[Game]) -> Iterator[Game]:
    """``games``; a failure to read, or a file that is no PDN, is a :class:`UsageError`."""
    try:
        yield from games
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    except NotPdnError as error:
        raise UsageError(f"{path}: {_problem(error)}") from None


def _problem(error: PdnError) -> str:
    """The message of ``error`` without the line and column its text starts with."""
    return str(error).removeprefix(f"line {error.line}, column {error.column}: ")


def _fault_line(path: str, number: int, error: PdnError) -> str:
    return f"{path}:{error.line}: game {number}: column {error.column}: {_problem(error)}"


# -- check ----------------------------------------------------------------------------


def _check(arguments: argparse.Namespace) -> int:
    faults: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    games = failed = 0
    for path in arguments.files:
        with _games(path) as read:
            for number, game in enumerate(read, start=1):
                games += 1
                failed += bool(game.errors)
                for error in game.errors:
                    faults.append({"file": path, "line": error.line, "column": error.column,
                                   "game": number, "problem": _problem(error)})
                    if not arguments.json:
                        print(_fault_line(path, number, error))
                # A faulty game may have no board to replay (a bad FEN): its faults say enough.
                note = None if game.errors else _unclaimed_draw(game)
                if note is not None:
                    notes.append({"file": path, "game": number, "note": note})
                    if not arguments.json:
                        print(f"{path}: game {number}: note: {note}")
    files = len(arguments.files)
    if arguments.json:
        print(json.dumps({"files": files, "games": games, "failed": failed, "faults": faults,
                          "notes": notes}))
    else:
        print(f"{counted(files, 'file')}, {counted(games, 'game')}: {games - failed} good, "
              f"{failed} with faults")
    return EXIT_FAILURE if failed else EXIT_OK


def _unclaimed_draw(game: Game) -> str | None:
    """Where the main line goes on past a draw the rules let a player claim, if it does.

    Not a fault: such draws end a game only when claimed, and real games go on
    past them; the note tells a reader who expected the game to stop there.
    """
    board = game.board()
    first_ply = 0 if board.turn is Color.BLACK else 1  # White's first move is "1..."
    for ply, move in enumerate(game.mainline_moves()):
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            number = (ply + first_ply + 1) // 2  # the move that brought the draw about
            return (f"{outcome.termination.value} at move {number} was not claimed; "
                    "the game goes on")
        board.push(move)
    return None


# -- stats ------------------------------------------------------------------------------


@dataclass
class Summary:
    """What ``pdn stats`` counts."""

    games: int = 0
    with_faults: int = 0
    results: Counter[str] = field(default_factory=Counter)
    lengths: list[int] = field(default_factory=list)
    ballots: Counter[int] = field(default_factory=Counter)
    other_openings: int = 0  # from the start, three moves or more, not a ballot of the deck
    set_up: int = 0  # from another position

    def add(self, game: Game, ballot_numbers: dict[tuple[Move, ...], int]) -> None:
        self.games += 1
        self.with_faults += bool(game.errors)
        self.results[game.result] += 1
        moves = game.mainline_moves()
        self.lengths.append(len(moves))
        if not _starts_at_the_start(game):
            self.set_up += 1
        elif len(moves) >= 3:
            number = ballot_numbers.get(tuple(moves[:3]))
            if number is None:
                self.other_openings += 1
            else:
                self.ballots[number] += 1


def _starts_at_the_start(game: Game) -> bool:
    fen = game.headers.get("FEN")
    if fen is None:
        return True
    try:
        return Position.from_fen(fen) == Position.from_fen(STARTING_FEN)
    except (DraughtsError, ValueError):
        return False


def _stats(arguments: argparse.Namespace) -> int:
    deck = three_move_deck()
    ballot_numbers = {ballot.moves: ballot.number for ballot in deck}
    summary = Summary()
    with _games(arguments.file) as read:
        for game in read:
            summary.add(game, ballot_numbers)
    ranked = sorted(summary.ballots.items(), key=lambda item: (-item[1], item[0]))
    ranked = ranked[:arguments.top]
    by_number = {ballot.number: ballot for ballot in deck}
    openings = [{"ballot": number, "moves": str(by_number[number]), "games": count}
                for number, count in ranked]
    lengths = summary.lengths
    length_stats = ({"min": min(lengths), "median": statistics.median(lengths),
                     "mean": round(statistics.fmean(lengths), 1), "max": max(lengths)}
                    if lengths else {})
    if arguments.json:
        print(json.dumps({
            "games": summary.games, "with_faults": summary.with_faults,
            "results": dict(summary.results), "lengths": length_stats,
            "ballots_seen": len(summary.ballots), "openings": openings,
            "other_openings": summary.other_openings, "set_up": summary.set_up}))
        return EXIT_OK
    _print_summary(sys.stdout, summary, length_stats, openings)
    return EXIT_OK


def _print_summary(out: TextIO, summary: Summary, lengths: dict[str, float],
                   openings: list[dict[str, Any]]) -> None:
    out.write(f"games     {summary.games:,} ({summary.with_faults:,} with faults)\n")
    known = [result for result in RESULT_NAMES if summary.results[result]]
    others = sorted(set(summary.results) - set(RESULT_NAMES))
    results = [f"{result} ({RESULT_NAMES[result]}) {summary.results[result]:,}" for result in known]
    results += [f"{result} {summary.results[result]:,}" for result in others]
    out.write(f"results   {', '.join(results) or '-'}\n")
    if lengths:
        out.write(f"plies     min {lengths['min']}, median {lengths['median']:g}, "
                  f"mean {lengths['mean']:g}, max {lengths['max']}\n")
    out.write(f"openings  {counted(len(summary.ballots), 'ballot')} of the three-move deck "
              f"seen, {counted(summary.other_openings, 'other opening')}, "
              f"{summary.set_up} from set-up positions\n")
    for opening in openings:
        out.write(f"  ballot {opening['ballot']:>3}  {opening['moves']:<18} "
                  f"{counted(opening['games'], 'game')}\n")



# -- convert -----------------------------------------------------------------------------


def _convert(arguments: argparse.Namespace) -> int:
    source, target = arguments.input, arguments.output
    if (source != "-" and target != "-" and os.path.exists(source) and os.path.exists(target)
            and os.path.samefile(source, target)):
        raise UsageError(f"IN and OUT are the same file, {source}: write elsewhere")
    faulty = written = 0
    with _games(source) as read, _output(target) as out:
        for number, game in enumerate(read, start=1):
            for error in game.errors:
                print(_fault_line(source, number, error), file=sys.stderr)
            faulty += bool(game.errors)
            if game.errors:
                _mark_the_cut(game, source, number)
            # A bad FEN leaves no position to write from (a square number too long for
            # int() raises a plain ValueError).
            try:
                text = game.accept(StringExporter())
            except (DraughtsError, ValueError) as error:
                print(f"{source}: game {number}: not written: {error}", file=sys.stderr)
                continue
            out.write(("\n" if written else "") + text)
            written += 1
    print(f"{counted(written, 'game')} written, {faulty:,} with faults", file=sys.stderr)
    return EXIT_FAILURE if faulty else EXIT_OK


def _mark_the_cut(game: Game, source: str, number: int) -> None:
    """Say in the game, and on stderr, that it is written only up to its first fault.

    The reader keeps the moves before a fault and skips the rest of that line of
    play; a comment at the end of the main line tells the reader of the new file.
    """
    first = game.errors[0]
    end = game.end()
    plies = len(game.mainline_moves())
    problem = _problem(first).replace("{", "(").replace("}", ")")  # no brace ends it early
    note = f"doublecorner: the game is cut here, at line {first.line} of {source}: {problem}"
    end.comment = f"{end.comment} {note}".strip()
    kept = f"{plies} {'ply' if plies == 1 else 'plies'}"
    print(f"{source}: game {number}: written up to its first fault ({kept} of the main line "
          "kept; a comment marks the cut)", file=sys.stderr)


@contextmanager
def _output(path: str) -> Iterator[IO[str]]:
    """The text stream to write to: the file at ``path``, or stdout for ``-``.

    :raises UsageError: the file cannot be created.
    """
    if path == "-":
        yield sys.stdout
        return
    try:
        handle = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed by the with below
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from None
    with handle:
        yield handle
