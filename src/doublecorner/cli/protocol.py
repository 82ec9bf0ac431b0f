"""The ``engine`` subcommand: doublecorner's engine behind the protocol on stdin/stdout."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from doublecorner.cli.streams import MAX_LINE_BYTES, stdin_bytes
from doublecorner.protocol.server import EngineServer


def add_parsers(commands: Any) -> None:
    """Register ``engine``."""
    engine = commands.add_parser(
        "engine", help="run the engine as a program speaking the DCP protocol on stdin/stdout",
        description="Read protocol commands (dcp, isready, setoption, newgame, position, go, "
                    "stop, quit) from stdin and answer on stdout; see docs/engine-protocol.md.")
    engine.set_defaults(run=_engine)


def _engine(arguments: argparse.Namespace) -> int:
    return EngineServer(sys.stdout).serve(command_lines(stdin_bytes()))


def command_lines(stream: BinaryIO, *, max_bytes: int = MAX_LINE_BYTES) -> Iterator[str]:
    """The lines of ``stream`` as text, whatever it holds.

    Bytes that are not UTF-8 become U+FFFD, so that the server answers the
    line with an ``error`` rather than the program dying; a line longer than
    ``max_bytes`` is cut there and the rest of it skipped, so that an endless
    one (``/dev/zero``) takes no more memory than that.

    >>> import io
    >>> stream = io.BytesIO(b"isready\\n\\xff\\n" + b"x" * 20)
    >>> print(ascii(list(command_lines(stream, max_bytes=8))))
    ['isready\\n', '\\ufffd\\n', 'xxxxxxxx']
    """
    while raw := stream.readline(max_bytes + 1):
        if len(raw) > max_bytes and not raw.endswith(b"\n"):
            raw = raw[:max_bytes]
            while (rest := stream.readline(max_bytes + 1)) and not rest.endswith(b"\n"):
                pass
        yield raw.decode("utf-8", errors="replace")
