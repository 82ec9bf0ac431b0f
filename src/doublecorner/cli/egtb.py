"""Subcommand ``egtb``: build, verify and probe the endgame tables."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from doublecorner.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    LOCAL_RAY,
    ProgressBar,
    UsageError,
    positive_int,
    ray_address,
    whole_number,
)
from doublecorner.cli.streams import check_directory_option
from doublecorner.egtb import (
    TableError,
    Value,
    build,
    default_directory,
    ensure_tables,
    load_tables,
    verify,
)
from doublecorner.egtb.material import Material, materials
from doublecorner.egtb.storage import DamagedTableError, rebuild_command, slice_path
from doublecorner.kernel.scores import FORTY_MOVE_PLIES
from doublecorner.position import Position

AUTO_BUILD_PIECES = 4  # probing builds tables this small on first use (seconds)


def add_parsers(commands: Any) -> None:
    """Register ``egtb build``, ``egtb verify`` and ``egtb probe``."""
    egtb = commands.add_parser(
        "egtb", help="endgame tables: build, verify, probe",
        description="Win/loss/draw tables of every position with few pieces, with the "
                    "distance to conversion (plies to a capture or crowning) of each.")
    actions = egtb.add_subparsers(dest="egtb_command", metavar="ACTION", required=True)
    directory_help = f"folder of the tables (default: {default_directory()})"

    build_parser = actions.add_parser(
        "build", help="compute the tables up to N pieces (resumes an interrupted build)")
    build_parser.add_argument("--pieces", type=_pieces, required=True, metavar="N",
                              help="most pieces on the board, 2-6")
    build_parser.add_argument("--dir", type=Path, help=directory_help)
    build_parser.add_argument("--no-check", action="store_true",
                              help="skip checking each new slice against the move generator")
    build_parser.add_argument("--jobs", type=positive_int, default=1, metavar="K",
                              help="solve up to K independent slices at once, in threads, "
                                   "as memory allows (default: 1)")
    build_parser.add_argument("--ray", nargs="?", const=LOCAL_RAY, default=None,
                              metavar="ADDRESS",
                              help="solve the slices as tasks on a Ray cluster (default: a "
                                   "local Ray); --dir must be a folder every node shares")
    build_parser.set_defaults(run=_build)

    verify_parser = actions.add_parser(
        "verify", help="check every slice up to N pieces against the move generator")
    verify_parser.add_argument("--pieces", type=_pieces, required=True, metavar="N")
    verify_parser.add_argument("--dir", type=Path, help=directory_help)
    verify_parser.set_defaults(run=_verify)

    probe = actions.add_parser(
        "probe", help="print the value, distance to conversion and best moves of a FEN",
        description=f"The tables a position of up to {AUTO_BUILD_PIECES} pieces needs are built "
                    "on first use; those of more pieces come from 'egtb build'.")
    probe.add_argument("fen", help="a position with few pieces")
    probe.add_argument("--dir", type=Path, help=directory_help)
    probe.add_argument("--clock", type=_plies, default=0, metavar="PLIES",
                       help="plies already played without a man move or capture (the "
                            "40-move count); a win too long for what it leaves is played "
                            "by distance to the next man move or capture (default: 0)")
    probe.add_argument("--json", action="store_true", help="print one JSON object")
    probe.set_defaults(run=_probe)


_pieces = whole_number(2, 6, "pieces must be in 2..6, not {value}")
_plies = whole_number(0, FORTY_MOVE_PLIES - 1,
                      f"the count must be in 0..{FORTY_MOVE_PLIES - 1} plies, not {{value}}")


def _directory(arguments: argparse.Namespace) -> Path:
    """The ``--dir`` folder (it or its parent must exist), else the default one."""
    if arguments.dir is None:
        return default_directory()
    return check_directory_option(arguments.dir, "--dir")


def _build(arguments: argparse.Namespace) -> int:
    directory = _directory(arguments)
    address = ray_address(arguments) if arguments.ray is not None else None
    bar = ProgressBar(f"egtb {arguments.pieces} pieces")
    try:
        if arguments.ray is not None:
            from doublecorner.egtb.build_distributed import build_on_ray

            report = build_on_ray(arguments.pieces, directory, check=not arguments.no_check,
                                  address=address, on_progress=bar)
        else:
            report = build(arguments.pieces, directory, check=not arguments.no_check,
                           jobs=arguments.jobs, on_progress=bar)
    finally:
        bar.close()
    print(f"{len(report.built)} slices built, {len(report.loaded)} already there; "
          f"{report.positions:,} positions in {directory} ({report.seconds:.1f} s)")
    return EXIT_OK


def _verify(arguments: argparse.Namespace) -> int:
    directory = _directory(arguments)
    # Missing slices are a folder that cannot be checked (exit 2, before any
    # work); a damaged or inconsistent one is what the check is for (exit 1).
    missing = [material for material in materials(arguments.pieces)
               if not slice_path(directory, material).exists()]
    if missing:
        names = ", ".join(material.name for material in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise UsageError(f"{len(missing)} of {len(materials(arguments.pieces))} slices of up to "
                         f"{arguments.pieces} pieces are missing in {directory} ({names}{more}); "
                         f"build them with '{rebuild_command(directory, arguments.pieces)}'")
    bar = ProgressBar("verify")
    try:
        checked = verify(arguments.pieces, directory, on_progress=bar)
    except TableError as error:
        bar.close()
        print(f"doublecorner: {error}", file=sys.stderr)
        return EXIT_FAILURE
    bar.close()
    print(f"{checked:,} positions consistent")
    return EXIT_OK


def _probe(arguments: argparse.Namespace) -> int:
    position = Position.from_fen(arguments.fen)
    material = Material.of(position.black, position.white, position.kings)
    if material.pieces > 6:
        raise UsageError(f"{arguments.fen!r} has {material.pieces} pieces; tables hold 6 at most")
    directory = _directory(arguments)
    bar = ProgressBar(f"egtb {material.pieces} pieces (first use)")
    # Only the slices this position reaches are read (its own count and fewer):
    # a damaged table of more pieces has no say in it.
    try:
        if material.pieces <= AUTO_BUILD_PIECES:
            tables = ensure_tables(directory, max_pieces=material.pieces, on_progress=bar)
        else:
            tables = load_tables(directory, max_pieces=material.pieces, lazy_dtc=True)
        result = tables.probe(position, arguments.clock)
    except DamagedTableError:
        bar.close()
        raise  # its message names the file and the command that rebuilds it
    except TableError as error:
        bar.close()
        raise UsageError(f"{error}; build them with "
                         f"'{rebuild_command(directory, material.pieces)}'") from None
    bar.close()
    moves = [str(move) for move in result.best_moves]
    if arguments.json:
        print(json.dumps({"fen": position.fen(), "value": result.value.name.lower(),
                          "dtc": result.dtc, "dtz": result.dtz, "best_moves": moves}))
        return EXIT_OK
    side = position.turn.name.capitalize()
    if result.value is Value.DRAW:  # a draw is never converted: no distance to give
        print(f"draw for {side} to move")
    else:
        plies = f"{result.dtc} {'ply' if result.dtc == 1 else 'plies'}"
        print(f"{_VALUE_WORDS[result.value]} for {side} to move; {plies} to conversion")
    if result.dtz is not None:
        verdict = ("won within the 40-move rule" if result.wins_within_the_rule(arguments.clock)
                   else "the 40-move rule draws it with best defence")
        print(f"{result.dtz} plies to the next man move or capture: {verdict}")
    print(f"best: {' '.join(moves) if moves else '(no moves)'}")
    return EXIT_OK


_VALUE_WORDS = {Value.WIN: "win", Value.DRAW: "draw", Value.LOSS: "loss"}
