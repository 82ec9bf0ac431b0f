"""The shell's streams and paths as the subcommands use them: stdin read safely, output checked.

Whatever stdin holds (nothing at all when it is closed, bytes that are not
UTF-8, one endless line as from ``/dev/zero``) becomes a one-line error; an
output path is checked before the work starts, not after it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from doublecorner.cli.common import UsageError
from doublecorner.errors import quoted
from doublecorner.files import replacing_problem

MAX_LINE_BYTES = 1 << 20  # far above any FEN or move list; /dev/zero is one endless line


def stdin_bytes() -> BinaryIO:
    """Standard input as a byte stream.

    :raises UsageError: stdin is closed (``<&-``).
    """
    stream = sys.stdin
    if stream is None:
        raise UsageError("stdin is closed: pipe the input in, or give it as an argument")
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text stream put in place of stdin, as tests do
        return _EncodedText(stream)  # type: ignore[return-value]
    return buffer  # type: ignore[no-any-return]


class _EncodedText:
    """A text stream read as UTF-8 bytes, for stdin replaced by a :class:`io.StringIO`."""

    def __init__(self, stream: object) -> None:
        self._stream = stream

    def readline(self, limit: int = -1) -> bytes:
        line: str = self._stream.readline(limit)  # type: ignore[attr-defined]
        return line.encode("utf-8", "surrogateescape")


def text_lines(stream: BinaryIO, what: str, *,
               max_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[int, str]]:
    """``(number, line)`` for each line of ``stream``, decoded as UTF-8, without its newline.

    :raises UsageError: a line is not UTF-8 or longer than ``max_bytes`` (named
        with ``what``, such as ``"stdin"``).
    """
    number = 0
    while True:
        raw = stream.readline(max_bytes + 1)
        if not raw:
            return
        number += 1
        if len(raw) > max_bytes and not raw.endswith(b"\n"):
            raise UsageError(f"{what} line {number} is longer than {max_bytes:,} bytes: "
                             "is this the right input?")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise UsageError(f"{what} line {number} is not UTF-8 text (byte "
                             f"{error.start + 1}: {raw[error.start:error.start + 1]!r})") from None
        yield number, text.rstrip("\r\n")


def check_output_file(path: Path | str, option: str) -> None:
    """Check, before any work, that a file can be written at ``path``.

    :raises UsageError: ``path`` is a folder, its folder does not exist, or
        it cannot be written.
    """
    target = Path(path)
    shown = quoted(str(path))
    if target.is_dir():
        raise UsageError(f"{option} {shown} is a folder: name a file in it")
    folder = target.parent
    if not folder.is_dir():
        raise UsageError(f"{option} {shown}: the folder {quoted(str(folder))} does not exist")
    if target.exists() and not os.access(target, os.W_OK):
        raise UsageError(f"{option} {shown}: the file is not writable")
    if not target.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {shown}: cannot create files in {quoted(str(folder))}")


def check_regular_output(path: Path | str, option: str) -> None:
    """Check, before any work, that ``path`` can be a regular file this command owns.

    For a file written whole and renamed into place (a book, a network) and
    for a database: what :func:`check_output_file` checks, and whatever is at
    ``path`` must be a regular file (a symbolic link to one is written
    through), never a device or a FIFO.

    :raises UsageError: as :func:`check_output_file`, or ``path`` is no regular file.
    """
    check_output_file(path, option)
    problem = replacing_problem(path)
    if problem is not None:
        raise UsageError(f"{option} {quoted(str(path))}: {problem}")


def check_directory_option(path: Path | str, option: str) -> Path:
    """A folder the user named (``--dir``, ``--egtb``): it, or its parent, must exist.

    The folder itself may be created by the command; a missing parent is a
    typing error more often than a wish, so it is not created.

    :raises UsageError: ``path`` is a file, or neither it nor its parent exists.
    """
    folder = Path(path)
    shown = quoted(str(path))
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{option} {shown} is a file, not a folder")
    if not folder.exists() and not folder.absolute().parent.is_dir():
        raise UsageError(f"{option} {shown}: its parent folder "
                         f"{quoted(str(folder.absolute().parent))} does not exist")
    return folder
