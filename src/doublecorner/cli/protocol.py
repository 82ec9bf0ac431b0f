"""The ``engine`` subcommand: doublecorner's engine behind the protocol on stdin/stdout."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from doublecorner.protocol.server import EngineServer


def add_parsers(commands: Any) -> None:
    """Register ``engine``."""
    engine = commands.add_parser(
        "engine", help="run the engine as a program speaking the DCP protocol on stdin/stdout",
        description="Read protocol commands (dcp, isready, setoption, newgame, position, go, "
                    "stop, quit) from stdin and answer on stdout; see docs/engine-protocol.md.")
    engine.set_defaults(run=_engine)


def _engine(arguments: argparse.Namespace) -> int:
    return EngineServer(sys.stdout).serve(sys.stdin)
