"""Subcommands about the rules: ``show``, ``moves`` and ``perft``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from doublecorner import svg
from doublecorner.board import Board
from doublecorner.cli.common import EXIT_OK, UsageError, in_background, whole_number
from doublecorner.cli.streams import check_output_file, stdin_bytes, text_lines
from doublecorner.diagram import board_diagram, square_numbers_diagram
from doublecorner.errors import DraughtsError, quoted
from doublecorner.fen import STARTING_FEN
from doublecorner.perft import MAX_DEPTH as MAX_PERFT_DEPTH
from doublecorner.perft import divide, perft
from doublecorner.position import Position
from doublecorner.warmup import ensure_compiled

PROGRESS_FROM_DEPTH = 12  # deeper counts take seconds to hours
_COORDINATES = {"numbers": svg.Coordinates.NUMBERS, "algebraic": svg.Coordinates.ALGEBRAIC,
                "none": None}


def add_parsers(commands: Any) -> None:
    """Register ``show``, ``moves`` and ``perft`` on the subcommand parsers."""
    show = commands.add_parser("show", help="print the board of a position")
    show.add_argument("fen", nargs="?", default=STARTING_FEN, help="a FEN (default: start)")
    show.add_argument("--flip", action="store_true", help="Black at the bottom")
    show.add_argument("--numbers", action="store_true",
                      help="also print the square numbers beside the board")
    show.add_argument("--svg", metavar="FILE",
                      help="write the board as SVG to FILE (- for stdout, instead of the text)")
    show.add_argument("--style", choices=[style.value for style in svg.Style],
                      help="with --svg: the board's colours: a tournament board (default), "
                           "wood, slate, or a book diagram (pieces on the light squares)")
    show.add_argument("--kings", choices=[kings.value for kings in svg.Kings],
                      help="with --svg: a king as a crowned man (default) or as two men "
                           "stacked, as on a real board")
    show.add_argument("--coordinates", choices=[*_COORDINATES],
                      help="with --svg: label squares by number (default), a1-h8, or none")
    show.set_defaults(run=_show_command)

    moves = commands.add_parser(
        "moves", help="list the legal moves of a position, one per line, sorted",
        description="With '-' read one FEN per line from stdin and print, for each, "
                    "its legal moves on one line separated by spaces (empty when none).")
    moves.add_argument("fen", nargs="?", default=STARTING_FEN,
                       help="a FEN (default: start), or - to read FENs from stdin")
    moves.set_defaults(run=lambda a: _moves(a.fen))

    perft_command = commands.add_parser(
        "perft", help="count the leaves of the move tree to a depth",
        description="Print the leaf count on stdout; time and leaves/s on stderr.")
    perft_command.add_argument("depth", type=_depth, help="plies to search (0 or more)")
    perft_command.add_argument("--fen", default=STARTING_FEN, help="start FEN (default: start)")
    perft_command.add_argument("--divide", action="store_true",
                               help="first print 'move count' for each legal move")
    perft_command.set_defaults(run=lambda a: _perft(a.depth, a.fen, show_divide=a.divide))


_depth = whole_number(0, MAX_PERFT_DEPTH,
                      f"depth must be 0 to {MAX_PERFT_DEPTH} (deeper counts overflow 64 bits "
                      "and take years), not {value}")


def _moves(fen: str) -> int:
    if fen == "-":
        return _moves_from_stream(stdin_bytes(), sys.stdout)
    print("\n".join(_sorted_moves(Board(fen))))
    return EXIT_OK


def _sorted_moves(board: Board) -> list[str]:
    return [str(move) for move in sorted(board.legal_moves, key=lambda move: move.path)]


def _show_command(arguments: argparse.Namespace) -> int:
    if arguments.svg is None:
        for option in ("style", "kings", "coordinates"):
            if getattr(arguments, option) is not None:
                raise UsageError(f"--{option} applies to the SVG picture: add --svg FILE")
        return _show(arguments.fen, flip=arguments.flip, numbers=arguments.numbers)
    position = Position.from_fen(arguments.fen)
    style = svg.Style(arguments.style) if arguments.style else svg.Style.TOURNAMENT
    kings = svg.Kings(arguments.kings) if arguments.kings else svg.Kings.CROWNED
    picture = svg.board(position, flipped=arguments.flip, style=style, kings=kings,
                        coordinates=_COORDINATES[arguments.coordinates or "numbers"])
    if arguments.svg == "-":
        sys.stdout.write(picture)
        return EXIT_OK
    check_output_file(arguments.svg, "--svg")
    try:
        Path(arguments.svg).write_text(picture, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {quoted(arguments.svg)}: "
                         f"{error.strerror or error}") from None
    return EXIT_OK


def _show(fen: str, *, flip: bool, numbers: bool) -> int:
    position = Position.from_fen(fen)
    diagram = board_diagram(position.black, position.white, position.kings, flipped=flip)
    if numbers:
        key = square_numbers_diagram(flipped=flip).splitlines()
        diagram = "\n".join(f"{left:<24}{right}"
                            for left, right in zip(diagram.splitlines(), key, strict=True))
    print(diagram)
    print(f"{position.turn} to move    {position.fen()}")
    return EXIT_OK


def _moves_from_stream(lines: BinaryIO, out: TextIO) -> int:
    """One line of moves per FEN line; a blank line gets a blank line."""
    for number, line in text_lines(lines, "stdin"):
        if not line.strip():
            out.write("\n")
            continue
        try:
            board = Board(line)
        except DraughtsError as error:
            raise UsageError(f"stdin line {number}: {error}") from None
        out.write(" ".join(_sorted_moves(board)) + "\n")
    return EXIT_OK


def _perft(depth: int, fen: str, *, show_divide: bool) -> int:
    position = Position.from_fen(fen)
    ensure_compiled()  # loading (or compiling) the kernel is not part of the count's time
    started = time.monotonic()
    if depth >= 1 and (show_divide or depth >= PROGRESS_FROM_DEPTH):
        # Split at the root so that long counts show progress on stderr.
        rows = in_background(lambda: divide(
            position, depth, on_move_done=None if show_divide else _root_progress))
        leaves = 0
        for move, count in rows:
            if show_divide:
                print(f"{move} {count}", flush=True)
            leaves += count
    else:
        leaves = in_background(lambda: perft(position, depth))
    elapsed = time.monotonic() - started
    print(leaves)
    rate = f", {leaves / elapsed / 1e6:.1f} M leaves/s" if elapsed > 0 else ""
    print(f"perft {depth}: {elapsed:.3f} s{rate}", file=sys.stderr)
    return EXIT_OK


def _root_progress(done: int, total: int) -> None:
    print(f"perft: {done}/{total} root moves counted", file=sys.stderr, flush=True)
