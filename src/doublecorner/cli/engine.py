"""Subcommands that run the engine: ``analyse`` (a position or a PDN file) and ``bestmove``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from doublecorner.board import Board
from doublecorner.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    LOCAL_RAY,
    UsageError,
    board_after_moves,
)
from doublecorner.cli.search_options import (
    DEFAULT_GAME_SECONDS,
    add_search_options,
    engine_from_arguments,
    limit_from_arguments,
    run_search,
    tables_from_arguments,
)
from doublecorner.engine import SearchResult

__all__ = ["add_parsers", "format_info", "info_json", "is_pdn_file", "tables_from_arguments"]


def add_parsers(commands: Any) -> None:
    """Register ``analyse`` and ``bestmove``."""
    analyse = commands.add_parser(
        "analyse", aliases=["analyze"],
        help="search a position (one line per finished depth), or every position of a PDN file",
        description="Given a FEN: print one line per finished depth: depth, selective depth, "
                    "score (hundredths of a man for the side to move, or 'win in N' plies), "
                    "nodes, nodes/s and the principal variation. Given a PDN file: search every "
                    "position of every game's main line (--time or --depth per position, "
                    f"default {DEFAULT_GAME_SECONDS:g} s) and write the games annotated: the "
                    "score after each move (from Black's side) and the engine's move where it "
                    "differs as comments, "
                    "blunders (??, a loss of 3 men or more, or a win or draw thrown away), "
                    "mistakes (?, 1 man) and inaccuracies (?!, half a man) as NAGs (in the "
                    "comment where a move has a mark of its own: the game's comments and "
                    "NAGs are kept); optionally plot the score over each game.")
    add_search_options(analyse)
    analyse.add_argument("--json", action="store_true",
                         help="one JSON object per depth, then one with the best move")
    analyse.add_argument("-o", "--output", type=Path, metavar="OUT.pdn",
                         help="PDN file mode: write the annotated games here (default: stdout)")
    analyse.add_argument("--plot", type=Path, metavar="OUT.svg|OUT.png",
                         help="PDN file mode: plot the score over the game (numbered OUT-N "
                              "when the file has several games; needs matplotlib)")
    analyse.add_argument("--ray", nargs="?", const=LOCAL_RAY, default=None, metavar="ADDRESS",
                         help="PDN file mode: analyse the games on a Ray cluster, one task per "
                              "game (a task whose worker dies is run again); without ADDRESS "
                              "on a Ray started here (or the one RAY_ADDRESS names). ADDRESS "
                              "is the head node's HOST:6379 as 'ray start --head' prints it, "
                              "'auto' for the cluster this machine belongs to, or "
                              "ray://HOST:10001 from outside it; every node needs doublecorner "
                              "installed (and the endgame tables played with, installed or "
                              "--egtb's, in the same folder). Needs pip "
                              "install '.[ray]' in doublecorner's folder")
    analyse.set_defaults(run=_analyse)

    bestmove = commands.add_parser("bestmove", help="print only the engine's move")
    add_search_options(bestmove)
    bestmove.set_defaults(run=_bestmove)


def format_info(result: SearchResult) -> str:
    """One line of ``analyse`` output (``book`` before the move when it came from the book)."""
    pv = " ".join(str(move) for move in result.pv)
    hits = f" tbhits {result.table_hits}" if result.table_hits else ""
    book = " book" if result.is_book else ""
    return (f"depth {result.depth} seldepth {result.seldepth} score {result.score} "
            f"nodes {result.nodes} nps {result.nps} time {result.seconds:.3f}{hits}{book} "
            f"pv {pv}")


def info_json(result: SearchResult) -> dict[str, Any]:
    return {
        "depth": result.depth,
        "seldepth": result.seldepth,
        "score": result.score.as_json(),
        "nodes": result.nodes,
        "nps": result.nps,
        "time": round(result.seconds, 4),
        "pv": [str(move) for move in result.pv],
        "tbhits": result.table_hits,
        "book": result.is_book,
    }


def _analyse(arguments: argparse.Namespace) -> int:
    if is_pdn_file(arguments.fen):
        from doublecorner.cli.game_analysis import analyse_pdn_file

        if arguments.book is not None:
            raise UsageError("--book plays from a book in a position, not in a PDN file's "
                             "analysis")
        return analyse_pdn_file(arguments)
    if arguments.output or arguments.plot:
        raise UsageError("--output and --plot need a PDN file to analyse, not a FEN")
    if arguments.ray is not None:
        raise UsageError("--ray needs a PDN file to analyse, not a FEN")
    board = board_after_moves(arguments.fen, arguments.moves)
    engine = engine_from_arguments(arguments)
    if arguments.json:
        def on_info(result: SearchResult) -> None:
            print(json.dumps(info_json(result)), flush=True)
    else:
        def on_info(result: SearchResult) -> None:
            print(format_info(result), flush=True)
    result = run_search(engine, board, limit_from_arguments(arguments), on_info)
    if result.move is None:
        return _no_move(board)
    if arguments.json:
        print(json.dumps({"bestmove": str(result.move), **info_json(result)}))
    else:
        print(f"bestmove {result.move}")
    return EXIT_OK


def is_pdn_file(argument: str) -> bool:
    """Whether ``analyse`` was given a file rather than a FEN, there or not.

    A FEN always has a ``:`` (``B:W21-32:B1-12``); text without one that has
    a suffix or a folder in it (``games.txt``, ``club/games``) names a file,
    which may be missing: that is the message it gets, not ``invalid FEN``.

    >>> is_pdn_file("games.txt"), is_pdn_file("club/games"), is_pdn_file("B:W21-32:B1-12")
    (True, True, False)
    """
    if argument.lower().endswith(".pdn") or Path(argument).exists():
        return True
    return ":" not in argument and ("/" in argument or os.sep in argument
                                    or Path(argument).suffix != "")


def _bestmove(arguments: argparse.Namespace) -> int:
    board = board_after_moves(arguments.fen, arguments.moves)
    result = run_search(engine_from_arguments(arguments), board, limit_from_arguments(arguments))
    if result.move is None:
        return _no_move(board)
    print(result.move)
    if result.is_book:
        print(f"doublecorner: {result.move} is a book move", file=sys.stderr)
    return EXIT_OK


def _no_move(board: Board) -> int:
    print(f"doublecorner: {board.turn} has no legal move (the game is lost): {board.fen()}",
          file=sys.stderr)
    return EXIT_FAILURE
