"""Whole files read and written safely: reads bounded before they start, writes that replace.

Every file doublecorner reads whole has a format with a known largest size,
so a read is refused before it starts when the file is larger, or is no
regular file at all (``/dev/zero`` would be read until the memory ran out; a
FIFO would hang the reader). Every file it writes whole goes to a temporary
file in the same folder, renamed into place once complete, so that a reader
never sees half a file; that rename replaces only a regular file: a device,
a FIFO or a folder at the path is refused, and a symbolic link is written
through (the file it points to is replaced, the link stays a link).

>>> import pathlib, tempfile
>>> folder = tempfile.TemporaryDirectory()
>>> path = pathlib.Path(folder.name) / "notes.txt"
>>> _ = atomic_write(path, b"kept whole", what="notes file")
>>> read_bounded(path, max_bytes=100, what="notes file")
b'kept whole'
>>> try:
...     read_bounded(path, max_bytes=4, what="notes file")
... except FileError as error:
...     print(str(error).partition(": ")[2])
it is 10 bytes, more than a notes file can be (4 bytes at most)
>>> folder.cleanup()
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from doublecorner.errors import FileError, quoted

PATH_CHARACTERS = 400  # a file's name in a message is cut only when it is absurdly long
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"))
# A FIFO opened for reading waits for a writer: opened without waiting, then refused.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
_TEMPORARY_NAME_CHARACTERS = 200  # of the target's name, so that the temporary name fits too


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` quoted for a message, cut only when absurdly long.

    >>> shown_path("games/main.book")
    "'games/main.book'"
    """
    return quoted(os.fspath(path), limit=PATH_CHARACTERS)


def _kind(mode: int) -> str | None:
    """What a file of this ``st_mode`` is, when it is no regular file."""
    for is_kind, name in _KINDS:
        if is_kind(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def _not_regular(mode: int) -> str | None:
    kind = _kind(mode)
    if kind is None:
        return None
    return "it is a folder, not a file" if kind == "a folder" else (
        f"it is {kind}, not a regular file")


def reading_problem(path: str | os.PathLike[str]) -> str | None:
    """Why the file at ``path`` cannot be read whole, in words; None for a regular file.

    Symbolic links are followed.

    >>> reading_problem("/no/such/file")
    'it does not exist'
    >>> reading_problem("/")
    'it is a folder, not a file'
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "it does not exist"
    except OSError as error:
        return str(error.strerror or error)
    return _not_regular(mode)


def replacing_problem(path: str | os.PathLike[str]) -> str | None:
    """Why a file written whole cannot replace what is at ``path``; None if it can.

    Nothing there, or a regular file (through symbolic links), can be replaced;
    a folder, a device, a FIFO or a socket cannot.

    >>> replacing_problem("/no/such/file") is None
    True
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        return str(error.strerror or error)
    return _not_regular(mode)


@contextmanager
def open_bounded(path: str | os.PathLike[str], *, max_bytes: int,
                 what: str) -> Iterator[BinaryIO]:
    """The regular file at ``path`` open for reading, its size checked against ``max_bytes``.

    ``what`` names the file in messages ("network file"). The size is
    checked on the open file, so the check and the reading are of one file.

    :raises FileError: the file is missing, cannot be opened, is no regular
        file, or is larger than ``max_bytes``.
    """
    def refused(problem: str) -> FileError:
        return FileError(f"cannot read the {what} {shown_path(path)}: {problem}",
                         path=os.fspath(path))

    try:
        handle = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        raise refused("it does not exist") from None
    except IsADirectoryError:
        raise refused("it is a folder, not a file") from None
    except OSError as error:
        raise refused(str(error.strerror or error)) from None
    try:
        status = os.fstat(handle)
        problem = _not_regular(status.st_mode)
        if problem is None and status.st_size > max_bytes:
            problem = (f"it is {status.st_size:,} bytes, more than a {what} can be "
                       f"({max_bytes:,} bytes at most)")
        if problem is not None:
            raise refused(problem)
        stream = os.fdopen(handle, "rb")
    except BaseException:
        os.close(handle)
        raise
    with stream:
        yield stream


def read_bounded(path: str | os.PathLike[str], *, max_bytes: int, what: str) -> bytes:
    """The bytes of the regular file at ``path``, refused unread when over ``max_bytes``.

    :raises FileError: as :func:`open_bounded`, or the file cannot be read
        (or grew past ``max_bytes`` while it was read).
    """
    with open_bounded(path, max_bytes=max_bytes, what=what) as stream:
        try:
            data = stream.read(max_bytes + 1)
        except OSError as error:
            raise FileError(f"cannot read the {what} {shown_path(path)}: "
                            f"{error.strerror or error}", path=os.fspath(path)) from None
    if len(data) > max_bytes:
        raise FileError(f"cannot read the {what} {shown_path(path)}: it grew past "
                        f"{max_bytes:,} bytes while it was read", path=os.fspath(path))
    return data


@contextmanager
def atomic_writer(path: str | os.PathLike[str], *, what: str) -> Iterator[BinaryIO]:
    """A binary stream whose bytes replace the file at ``path`` once the block ends.

    The bytes go to a temporary file beside the target, flushed to disk, then
    renamed onto it; if the block raises, the temporary file is removed and
    the target is left as it was. A symbolic link is followed: the file it
    points to is replaced and the link stays. A replaced file keeps its
    permissions.

    :raises FileError: the target is no regular file (a folder, a device, a
        FIFO), its folder does not exist, or the file cannot be written; the
        message names it and ``what`` it is.
    """
    def refused(problem: str) -> FileError:
        return FileError(f"cannot write the {what} {shown_path(path)}: {problem}",
                         path=os.fspath(path))

    target = Path(os.path.realpath(path))
    problem = replacing_problem(target)
    if problem is not None:
        raise refused(problem)
    if not target.parent.is_dir():
        raise refused(f"the folder {shown_path(target.parent)} does not exist")
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = None
    name = f".{target.name[:_TEMPORARY_NAME_CHARACTERS]}.{secrets.token_hex(4)}.tmp"
    temporary = target.with_name(name)
    try:
        handle = os.open(temporary, _WRITE_FLAGS, 0o666)
    except OSError as error:
        raise refused(str(error.strerror or error)) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(stream.fileno(), mode)
        os.replace(temporary, target)
    except BaseException as error:
        temporary.unlink(missing_ok=True)
        if isinstance(error, OSError) and not isinstance(error, FileError):
            raise refused(str(error.strerror or error)) from None
        raise


def atomic_write(path: str | os.PathLike[str], data: bytes, *, what: str) -> Path:
    """Replace the file at ``path`` with ``data`` whole (see :func:`atomic_writer`).

    Returns the file written: ``path`` with its symbolic links followed.

    :raises FileError: as :func:`atomic_writer`.
    """
    with atomic_writer(path, what=what) as stream:
        stream.write(data)
    return Path(os.path.realpath(path))
