"""The ``doublecorner`` command: a thin adapter from the shell to the library.

Each subcommand lives in its own module with an ``add_parsers`` function that
registers it and a ``run`` function that carries it out. Results go to stdout,
diagnostics to stderr. Exit status: 0 on success; 2 for bad input or an
environment that cannot do the work (a missing file or folder, too little
memory, a missing extra), said in one line before any work starts where it can
be; 1 when the work was done and failed (faults found, a game that could not
be analysed) or was interrupted. Never a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import threading
from collections.abc import Sequence

from doublecorner import __version__
from doublecorner.cli import book, db, egtb, engine, match, pdn, play, protocol, rules, serve, train
from doublecorner.cli.common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, Parser, UsageError
from doublecorner.errors import QUOTED_CHARACTERS, DraughtsError, quoted

__all__ = ["EXIT_FAILURE", "EXIT_OK", "EXIT_USAGE", "UsageError", "build_parser", "main"]

MESSAGE_CHARACTERS = 500  # an error line longer than this has an input pasted whole in it
COMMAND_MODULES = (rules, engine, protocol, match, play, pdn, serve, egtb, train, db, book)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="doublecorner",
                    description="English draughts (American checkers) tools.")
    parser.add_argument("--version", action="version", version=f"doublecorner {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        module.add_parsers(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    _act_on_sigint()
    try:
        arguments = build_parser().parse_args(argv)
        status = int(arguments.run(arguments))
        sys.stdout.flush()  # a closed pipe is found here rather than at exit
        return status
    except (UsageError, DraughtsError) as error:
        print(f"doublecorner: error: {_shortened(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (| head): stop quietly, like any filter, and keep
        # Python's final flush from failing on the closed pipe again.
        _silence_stdout()
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("doublecorner: interrupted", file=sys.stderr)
        return EXIT_FAILURE
    except MemoryError:
        print("doublecorner: error: out of memory", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:
        # A path the checks before the work did not foresee (a name too long
        # for the file system, a device, a race): still one line, never a traceback.
        print(f"doublecorner: error: {_os_error(error)}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exit_request:  # --help and --version end the parse early
        return exit_request.code if isinstance(exit_request.code, int) else EXIT_OK


def _act_on_sigint() -> None:
    """Stop on SIGINT even when started with it ignored.

    A shell script's background job (``doublecorner perft 16 &``) starts with
    SIGINT ignored, and Python then leaves it so: a ``kill -INT`` sent to the
    job would be lost and the count would go on for minutes. A SIGINT that
    reaches this process is meant for it, so the command acts on it (the
    ``doublecorner: interrupted`` ending) whatever the shell set up.
    """
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.SIG_IGN):
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _os_error(error: OSError) -> str:
    """An operating system's refusal in words, with the path it concerns, cut if long.

    >>> _os_error(FileNotFoundError(2, "No such file or directory", "a/b"))
    "No such file or directory: 'a/b'"
    >>> _os_error(OSError(36, "File name too long", "x" * 300))[-20:]
    '... (300 characters)'
    """
    what = error.strerror or str(error) or type(error).__name__
    if error.filename is not None:
        return f"{what}: {quoted(str(error.filename))}"
    return what


def _shortened(message: str) -> str:
    """``message`` with every long quoted input cut, as :func:`~doublecorner.errors.quoted` does.

    argparse quotes a bad value whole (``invalid choice: 'xxx...'``), however long.

    >>> message = _shortened("invalid choice: '" + "x" * 5000 + "' (choose from 'a', 'b')")
    >>> len(message), message[-40:]
    (158, "(5000 characters) (choose from 'a', 'b')")
    """
    if len(message) <= MESSAGE_CHARACTERS:
        return message
    shortened = re.sub(rf"'([^'\n]{{{QUOTED_CHARACTERS - 4}}})[^'\n]+'",
                       lambda match: f"'{match.group(1)}...' ({len(match.group(0)) - 2} "
                                     "characters)", message)
    if len(shortened) > MESSAGE_CHARACTERS:  # no quotes to cut: cut the end
        shortened = f"{shortened[:MESSAGE_CHARACTERS]}... ({len(message)} characters)"
    return shortened


def _silence_stdout() -> None:
    """Point stdout at the null device, once its reader has gone."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file: nothing to flush later
        pass
