"""The book file: a header, the provenance as JSON, then fixed-size entries sorted by key.

Little-endian throughout (docs/book.md has the table). The header:

========  =====  ==========================================================
offset    bytes  field
========  =====  ==========================================================
0         8      magic ``DCBOOK\\x1a\\n``
8         2      format version (:data:`VERSION`)
10        2      entry size in bytes (32)
12        4      flags, 0 (a reader refuses flags it does not know)
16        8      number of entries
24        8      the Zobrist key of the start position (the keys' scheme)
32        4      bytes of provenance JSON
36        4      CRC-32 of the whole file with these 4 bytes left out
========  =====  ==========================================================

then the provenance (UTF-8 JSON, an object), zero bytes up to a multiple of
8, and the entries (:data:`ENTRY`). The file's length must be exactly what
the header says, so that a file cut short is told from a damaged one. A book
holds at most :data:`MAX_ENTRIES` entries and :data:`MAX_PROVENANCE_BYTES` of
provenance, so a larger file (or no regular file) is refused before it is read.

>>> import pathlib, tempfile
>>> entries = np.zeros(1, ENTRY)
>>> entries[0] = (5, 0x20000000000001ca, 3, NO_SCORE, 1, 1, 0)  # 11-15
>>> with tempfile.TemporaryDirectory() as folder:
...     path = pathlib.Path(folder) / "tiny.book"
...     write_book(path, entries, {"note": "hand-made"})
...     size = path.stat().st_size
...     contents = read_book(path)
>>> size, contents.provenance, int(contents.entries["weight"][0])
(96, {'note': 'hand-made'}, 3)
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from doublecorner.book.move_code import COUNT_SHIFT, MAX_SQUARES, SQUARE_BITS
from doublecorner.errors import BookError, FileError
from doublecorner.files import atomic_write, read_bounded, shown_path
from doublecorner.position import Position

MAGIC = b"DCBOOK\x1a\n"  # \x1a and \n: a file mangled as text is caught at once
VERSION = 1
HEADER = struct.Struct("<8sHHIQQII")
CRC_OFFSET = HEADER.size - 4
ALIGN = 8
NO_SCORE = -32768  # an entry no engine has scored
ENTRY = np.dtype([("key", "<u8"), ("move", "<u8"), ("weight", "<u2"), ("score", "<i2"),
                  ("wins", "<u4"), ("draws", "<u4"), ("losses", "<u4")])
"""One entry: position key, move code, weight, engine score, and the mover's W/D/L."""
MAX_WEIGHT = 0xFFFF
MAX_COUNT = 0xFFFF_FFFF
# 1 GiB of entries: a book built from a million games holds a few hundred thousand.
MAX_ENTRIES = 1 << 25
MAX_PROVENANCE_BYTES = 1 << 20  # each deepening adds a step of a few hundred bytes
MAX_FILE_BYTES = HEADER.size + MAX_PROVENANCE_BYTES + ALIGN + MAX_ENTRIES * ENTRY.itemsize


@dataclass(frozen=True)
class BookContents:
    """What a book file holds: its version, provenance and entries (sorted by key, move)."""

    version: int
    provenance: dict[str, Any]
    entries: np.ndarray


def start_key() -> int:
    """The start position's key: a book made with other keys is refused rather than misread."""
    return Position.start().zobrist_key()


def _padding(size: int) -> int:
    return -size % ALIGN


def sort_entries(entries: np.ndarray) -> np.ndarray:
    """``entries`` in the file's order: by key, then move code.

    :raises ValueError: two entries for the same move of the same position.
    """
    ordered = entries[np.lexsort((entries["move"], entries["key"]))]
    same = ((ordered["key"][1:] == ordered["key"][:-1])
            & (ordered["move"][1:] == ordered["move"][:-1]))
    if same.any():
        index = int(np.flatnonzero(same)[0])
        raise ValueError(f"two entries for move code {int(ordered['move'][index]):#x} of "
                         f"position key {int(ordered['key'][index]):#018x}")
    return ordered


def encode_book(entries: np.ndarray, provenance: dict[str, Any]) -> bytes:
    """The bytes of a book file holding ``entries`` (any order) and ``provenance``.

    :raises ValueError: a duplicated entry, or provenance that is not JSON.
    :raises BookError: more entries or provenance than a book file may hold.
    """
    ordered = sort_entries(np.asarray(entries, ENTRY))
    text = json.dumps(provenance, ensure_ascii=False, sort_keys=True).encode("utf-8")
    if len(ordered) > MAX_ENTRIES or len(text) > MAX_PROVENANCE_BYTES:
        raise BookError(f"a book file holds at most {MAX_ENTRIES:,} entries and "
                        f"{MAX_PROVENANCE_BYTES:,} bytes of provenance, not {len(ordered):,} "
                        f"and {len(text):,}")
    body = text + bytes(_padding(len(text))) + ordered.tobytes()
    header = HEADER.pack(MAGIC, VERSION, ENTRY.itemsize, 0, len(ordered), start_key(),
                         len(text), 0)[:CRC_OFFSET]
    crc = zlib.crc32(body, zlib.crc32(header))
    return header + struct.pack("<I", crc) + body


def write_book(path: str | os.PathLike[str], entries: np.ndarray,
               provenance: dict[str, Any]) -> None:
    """Write a book file at ``path`` (through a temporary file: a reader never sees half of it).

    A symbolic link is written through; a device, FIFO or folder is refused.

    :raises BookError: the file cannot be written (the message names it), or
        the book is larger than a file may hold.
    """
    data = encode_book(entries, provenance)
    try:
        atomic_write(path, data, what="opening book")
    except FileError as error:
        raise BookError(str(error)) from None


def read_book(path: str | os.PathLike[str]) -> BookContents:
    """The contents of the book file at ``path``, every check passed.

    :raises BookError: the file cannot be read, is no regular file, is larger
        than a book can be, is not a book, is from a newer version, is cut
        short, or is damaged; the message names the file.
    """
    try:
        data = read_bounded(path, max_bytes=MAX_FILE_BYTES, what="opening book")
    except FileError as error:
        raise BookError(str(error)) from None
    try:
        return decode_book(data)
    except ValueError as error:
        raise BookError(f"{shown_path(path)} {error}") from None


def decode_book(data: bytes) -> BookContents:
    """The contents of a book file's bytes.

    :raises ValueError: what is wrong, as the end of a sentence that starts with the file's name.
    """
    if len(data) < HEADER.size or not data.startswith(MAGIC):
        if MAGIC.startswith(data[:len(MAGIC)]) and data:
            raise ValueError(f"is cut short: {len(data)} bytes, not even a whole header")
        raise ValueError("is not a doublecorner opening book (it does not start with "
                         f"{MAGIC!r})")
    _, version, entry_size, flags, count, key, text_size, crc = HEADER.unpack_from(data)
    if version > VERSION:
        raise ValueError(f"is from a newer version of doublecorner (book format {version}, "
                         f"this one reads {VERSION})")
    if version != VERSION or entry_size != ENTRY.itemsize or flags:
        raise ValueError(f"is damaged: its header names book format {version} with "
                         f"{entry_size}-byte entries and flags {flags:#x}")
    start = HEADER.size + text_size + _padding(text_size)
    expected = start + count * ENTRY.itemsize
    if len(data) != expected:
        problem = "is cut short" if len(data) < expected else "is damaged"
        raise ValueError(f"{problem}: {len(data)} bytes where its header says {expected}")
    if zlib.crc32(data[HEADER.size:], zlib.crc32(data[:CRC_OFFSET])) != crc:
        raise ValueError("is damaged: its checksum (CRC-32) does not match its contents")
    if key != start_key():
        raise ValueError("was built with other position keys than this version of "
                         "doublecorner uses; build it again")
    try:
        provenance = json.loads(data[HEADER.size:HEADER.size + text_size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        provenance = None
    if not isinstance(provenance, dict):
        raise ValueError("is damaged: its provenance is not a JSON object")
    entries = np.frombuffer(data, ENTRY, count, start)
    _check_entries(entries)
    return BookContents(version, provenance, entries)


def _check_entries(entries: np.ndarray) -> None:
    keys, moves = entries["key"], entries["move"]
    later = (keys[1:] > keys[:-1]) | ((keys[1:] == keys[:-1]) & (moves[1:] > moves[:-1]))
    if not later.all():
        raise ValueError("is damaged: its entries are not in order of key and move")
    squares = moves >> np.uint64(COUNT_SHIFT)
    used = (np.uint64(15) << np.uint64(COUNT_SHIFT)) | (
        (np.uint64(1) << (np.uint64(SQUARE_BITS) * squares)) - np.uint64(1))
    if ((squares < 2) | (squares > MAX_SQUARES) | (moves & ~used).astype(bool)).any():
        raise ValueError("is damaged: an entry's move code names no move")
