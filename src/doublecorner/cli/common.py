"""What every subcommand shares: exit codes, the usage error and the parser class."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from doublecorner.board import Board
from doublecorner.engine.search import DEFAULT_EVALUATION, EVALUATIONS
from doublecorner.errors import quoted
from doublecorner.text_numbers import plain_float

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
LOCAL_RAY = "local"  # what --ray without an ADDRESS stands for
PROGRESS_EVERY_SECONDS = 0.5  # redraws of a bar on a terminal
PROGRESS_LOG_SECONDS = 10.0  # plain lines into a file or a pipe
MAX_DIGITS = 19  # a whole number option of more digits than this is out of any range
MAX_WHOLE_NUMBER = 2**63 - 1  # the top of a whole number option with none of its own (int64)
MAX_SECONDS = 7 * 24 * 3600  # the longest time option: a week


T = TypeVar("T")


class UsageError(Exception):
    """Bad command-line input, reported in one line with exit status 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser that raises :class:`UsageError` instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def positive_float(text: str) -> float:
    """An argparse type: a number of seconds above zero, in ASCII digits.

    >>> positive_float("0.5")
    0.5
    >>> positive_float("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: expected a positive number of seconds, not '0'
    """
    try:
        value = plain_float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds, not {quoted(text)}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(
            f"expected a positive number of seconds, not {quoted(text)}")
    if value > MAX_SECONDS:  # the engine would think for ever; a typo, not a wish
        raise argparse.ArgumentTypeError(
            f"expected at most {MAX_SECONDS:,} seconds (a week), not {quoted(text)}")
    return value


def whole_number(low: int, high: int | None, out_of_range: str, *,
                 expected: str = "a whole number") -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``.

    ``out_of_range`` is the message for a number outside, ``{value}`` standing
    for it; ``expected`` names what text that is no number should have been.
    ``high`` None: no top but :data:`MAX_WHOLE_NUMBER`, and a number above it
    is told it is too large, with that top (``out_of_range`` would name only
    the bottom: "at least 1").

    >>> dozen = whole_number(1, 12, "expected 1 to 12, not {value}")
    >>> dozen("7")
    7
    >>> dozen("13")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: expected 1 to 12, not 13
    >>> dozen("9" * 40)
    Traceback (most recent call last):
    argparse.ArgumentTypeError: expected 1 to 12, not 999999999999... (40 digits)
    >>> try:
    ...     positive_int("1" + "0" * 30)
    ... except argparse.ArgumentTypeError as error:
    ...     print(error)
    100000000000... (31 digits) is too large: at most 9,223,372,036,854,775,807
    """
    top = MAX_WHOLE_NUMBER if high is None else high

    def too_far(value: object, *, is_above: bool) -> argparse.ArgumentTypeError:
        if is_above and high is None:
            return argparse.ArgumentTypeError(f"{value} is too large: at most {top:,}")
        return argparse.ArgumentTypeError(out_of_range.format(value=value))

    def parse(text: str) -> int:
        digits = text.strip().removeprefix("-").removeprefix("+")
        # ASCII digits only (int() reads '١٢' and '1_000'); a number of more
        # digits than any limit here is out of range without reading it.
        if not (digits.isascii() and digits.isdigit()):
            raise argparse.ArgumentTypeError(f"expected {expected}, not {quoted(text)}")
        if len(digits.lstrip("0")) > MAX_DIGITS:
            shown = f"{text.strip()[:12]}... ({len(digits)} digits)"
            raise too_far(shown, is_above=not text.strip().startswith("-"))
        value = int(text)
        if value < low or value > top:
            raise too_far(value, is_above=value > top)
        return value

    return parse


positive_int = whole_number(1, None, "expected a whole number of at least 1, not {value}")
"""An argparse type: a whole number of at least 1."""


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and its noun, for people: thousands separated, the plural where due.

    Lines that programs read (the protocol's and analyse's ``info``-like lines,
    perft counts) print bare digits instead.

    >>> counted(1, "game"), counted(12345, "game"), counted(2, "leaf", "leaves")
    ('1 game', '12,345 games', '2 leaves')
    """
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def add_moves_option(parser: argparse.ArgumentParser) -> None:
    """``--moves M [M ...]``: moves to play from the position first, one convention for all.

    Each move its own argument (``--moves 11-15 23-19``) or several in one
    quoted string (``--moves "11-15 23-19"``), as the commands took before.
    """
    parser.add_argument("--moves", nargs="+", default=[], metavar="M",
                        help="moves to play from the FEN first, e.g. --moves 11-15 23-19 "
                             "(the FEN, if any, before --moves)")


def board_after_moves(fen: str, moves: Sequence[str]) -> Board:
    """The board at ``fen`` after ``moves`` (``--moves``' arguments, each one or more moves).

    >>> board_after_moves("B:W21-32:B1-12", ["11-15", "23-19 8-11"]).fen()[:2]
    'W:'
    >>> board_after_moves("B:W21-32:B1-12", ["11-15", "W:W21:B1"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    doublecorner.cli.common.UsageError: --moves, move 2: 'W:W21:B1' is a FEN, not a move: ...

    :raises UsageError: a move is not legal there or is no move (a FEN after ``--moves``).
    :raises InvalidFenError: ``fen`` is no FEN.
    """
    board = Board(fen)
    texts = [text for argument in moves for text in argument.split()]
    for number, text in enumerate(texts, start=1):
        if ":" in text:  # every FEN has one, no move has: argparse gave --moves the FEN
            raise UsageError(f"--moves, move {number}: {quoted(text)} is a FEN, not a move: "
                             "put the FEN before --moves")
        try:
            board.push_str(text)
        except ValueError as error:
            raise UsageError(f"--moves, move {number}: {error}") from None
    return board


def add_evaluation_options(parser: argparse.ArgumentParser) -> None:
    """``--eval nn|linear`` and ``--network FILE``: which evaluation the engine runs."""
    parser.add_argument("--eval", choices=EVALUATIONS, default=DEFAULT_EVALUATION,
                        dest="evaluation",
                        help=f"the engine's evaluation: the trained network (nn) or the "
                             f"hand-made linear one (default: {DEFAULT_EVALUATION})")
    parser.add_argument("--network", metavar="FILE",
                        help="the network's weights file (default: the one shipped); a match "
                             "player's network=FILE, the protocol's EvalFile")


def evaluation_from_arguments(arguments: argparse.Namespace) -> dict[str, Any]:
    """The ``Engine`` keywords for ``--eval`` and ``--network``.

    :raises UsageError: ``--network`` with ``--eval linear``.
    """
    if arguments.network is not None and arguments.evaluation != "nn":
        raise UsageError("--network goes with --eval nn")
    return {"evaluation": arguments.evaluation, "network": arguments.network}


def add_book_option(parser: argparse.ArgumentParser) -> None:
    """``--book BOOK`` and ``--book-seed N``: the opening book the engine plays from."""
    parser.add_argument("--book", type=Path, metavar="BOOK",
                        help="play from this opening book where it holds the position, the "
                             "move drawn by weight and marked 'book' (see 'doublecorner book')")
    parser.add_argument("--book-seed", type=book_seed, metavar="N",
                        help="seed of the book's draw, to repeat it (default: a new draw "
                             "every run)")


book_seed = whole_number(0, 2**63 - 1, "expected a seed from 0 to 2**63-1, not {value}")
"""An argparse type: the seed of the book's random draw."""


def book_from_arguments(arguments: argparse.Namespace) -> dict[str, Any]:
    """The ``Engine`` keywords for ``--book`` and ``--book-seed`` (the book read now).

    :raises UsageError: ``--book-seed`` without ``--book``, or ``--book`` names a folder.
    :raises BookError: the book cannot be read, or is damaged.
    """
    if arguments.book is None:
        if arguments.book_seed is not None:
            raise UsageError("--book-seed goes with --book")
        return {}
    from doublecorner.book.reader import Book

    if arguments.book.is_dir():
        raise UsageError(f"--book {quoted(str(arguments.book))} is a folder, not a book file")
    return {"book": Book.open(arguments.book), "book_seed": arguments.book_seed}


def ray_address(arguments: argparse.Namespace) -> str | None:
    """The cluster ``--ray`` names; None for a Ray started here (or the one RAY_ADDRESS names).

    :raises UsageError: Ray is not installed.
    """
    if importlib.util.find_spec("ray") is None:
        raise UsageError("--ray needs Ray: pip install '.[ray]' in doublecorner's folder")
    return None if arguments.ray == LOCAL_RAY else str(arguments.ray)


def in_background(work: Callable[[], T]) -> T:
    """``work()`` run in a daemon thread, the caller waiting so that Ctrl-C is felt at once.

    Compiled code (a perft count) holds the calling thread without running
    Python, so a KeyboardInterrupt would wait for it to end, hours later. Here
    the interrupt reaches the caller while the thread is left to die with
    the process.

    >>> in_background(lambda: 6 * 7)
    42

    :raises KeyboardInterrupt: Ctrl-C; the work goes on until the process ends.
    """
    results: list[T] = []
    failures: list[BaseException] = []
    done = threading.Event()

    def run() -> None:
        try:
            results.append(work())
        except BaseException as error:  # handed to the caller below
            failures.append(error)
        finally:
            done.set()

    threading.Thread(target=run, name="doublecorner-work", daemon=True).start()
    while not done.wait(0.05):
        pass
    if failures:
        raise failures[0]
    return results[0]


class ProgressBar:
    """A one-line bar on stderr, redrawn at most twice a second on a terminal.

    Into a file or a pipe (no terminal to redraw on) it writes a plain line at
    most every :data:`PROGRESS_LOG_SECONDS`, and at the end.
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self.started = time.monotonic()
        self.shown = 0.0
        self.on_terminal = _is_terminal(sys.stderr)

    def __call__(self, done: int, total: int, name: str) -> None:
        now = time.monotonic()
        every = PROGRESS_EVERY_SECONDS if self.on_terminal else PROGRESS_LOG_SECONDS
        if now - self.shown < every and done < total:
            return
        self.shown = now
        percent = f"{100 * done / max(total, 1):5.1f}%  {name:<9} {now - self.started:6.0f} s"
        if not self.on_terminal:
            print(f"{self.what}: {percent.strip()}", file=sys.stderr, flush=True)
            return
        filled = 30 * done // max(total, 1)
        print(f"\r{self.what} [{'#' * filled}{'.' * (30 - filled)}] {percent}",
              end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.shown and self.on_terminal:
            print(file=sys.stderr)


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (OSError, ValueError):
        return False
