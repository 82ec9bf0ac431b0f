"""The ``doublecorner`` command: a thin adapter from the shell to the library.

Each subcommand lives in its own module with an ``add_parsers`` function that
registers it and a ``run`` function that carries it out. Results go to stdout,
diagnostics to stderr; exit status 0 on success, 1 when the work failed, 2 for
bad input (with a one-line message, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from doublecorner.cli import egtb, engine, match, pdn, play, protocol, rules, serve, train
from doublecorner.cli.common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, Parser, UsageError
from doublecorner.errors import DraughtsError

__all__ = ["EXIT_FAILURE", "EXIT_OK", "EXIT_USAGE", "UsageError", "build_parser", "main"]

COMMAND_MODULES = (rules, engine, protocol, match, play, pdn, serve, egtb, train)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="doublecorner",
                    description="English draughts (American checkers) tools.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        module.add_parsers(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        arguments = build_parser().parse_args(argv)
        return int(arguments.run(arguments))
    except (UsageError, DraughtsError) as error:
        print(f"doublecorner: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("doublecorner: interrupted", file=sys.stderr)
        return EXIT_FAILURE
    except SystemExit as exit_request:  # --help and --version end the parse early
        return exit_request.code if isinstance(exit_request.code, int) else EXIT_OK
