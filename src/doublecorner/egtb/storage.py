"""The file of one material slice: format, checksum, atomic write, default folder.

One file per slice, ``<bm><bk><wm><wk>.dcdb`` (men and kings of Black, then of
White; Black to move), all little-endian:

========  ======  ==============================================================
offset    bytes   field
========  ======  ==============================================================
0         8       magic ``DCEGTB`` followed by the format version (0, 1)
8         4       material: black men, black kings, white men, white kings
12        8       number of positions n (the slice size)
20        1       codec of the values: 0 raw, 1 zlib
21        1       bytes per DTC entry (1 or 2)
22        1       codec of the DTC
23        1       zero
24        8       stored length of the values
32        8       stored length of the DTC
40        ...     values: 2 bits a position, four a byte, lowest bits first
                  (0 draw, 1 win, 2 loss for the side to move), ceil(n / 4) bytes
...       ...     DTC: plies to conversion, one unsigned entry a position
last 32   32      SHA-256 of every byte before it
========  ======  ==============================================================

Each part is zlib-compressed when that makes it smaller, so a slice's file is
never larger than its parts stored raw (:func:`max_slice_bytes`): a larger
file, or one that is no regular file, is refused before it is read. A file is
written to a temporary name in the same folder and renamed into place, so an
interrupted build leaves either the whole file or none; the digest catches
what a disk damaged later.
"""

from __future__ import annotations

import hashlib
import shlex
import struct
import sys
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from doublecorner.egtb.material import Material
from doublecorner.errors import FileError, TableError
from doublecorner.files import atomic_write, read_bounded, reading_problem
from doublecorner.paths import user_data_dir

MAGIC = b"DCEGTB\x00\x01"
SUFFIX = ".dcdb"
TABLE_DIR = "egtb"
_HEADER = struct.Struct("<8s4BQBBBxQQ")
_DIGEST_BYTES = 32
RAW, ZLIB = 0, 1


@dataclass(frozen=True)
class SliceData:
    """The contents of one slice file: packed 2-bit values and the DTC of each position."""

    material: Material
    packed: np.ndarray  # uint8, ceil(size / 4)
    dtc: np.ndarray | None  # uint8 or uint16, size; None if read without it


def default_directory(environ: Mapping[str, str] | None = None, *,
                      platform: str = sys.platform, home: Path | None = None) -> Path:
    """Where tables live unless ``--dir`` says otherwise: the user's data folder.

    >>> default_directory({"XDG_DATA_HOME": "/data"}, platform="linux").as_posix()
    '/data/doublecorner/egtb'
    >>> default_directory({}, platform="linux", home=Path("/home/ann")).as_posix()
    '/home/ann/.local/share/doublecorner/egtb'
    """
    return user_data_dir(environ, platform=platform, home=home) / TABLE_DIR


def slice_path(directory: Path, material: Material) -> Path:
    """The file of a slice in ``directory``."""
    return directory / f"{material.name}{SUFFIX}"


def max_slice_bytes(material: Material) -> int:
    """The largest a slice's file can be: its values and two-byte distances stored raw.

    >>> max_slice_bytes(Material(0, 1, 0, 1))  # 2 kings, 992 positions: 40 + 248 + 1984 + 32
    2304
    """
    size = material.size
    return _HEADER.size + (size + 3) // 4 + 2 * size + _DIGEST_BYTES


def _compressed(payload: bytes) -> tuple[int, bytes]:
    packed = zlib.compress(payload, 6)
    return (ZLIB, packed) if len(packed) < len(payload) else (RAW, payload)


def _expanded(codec: int, payload: bytes, path: Path, length: int) -> bytes:
    """``payload`` expanded, at most ``length`` bytes of it and one more (to tell it is longer)."""
    if codec == RAW:
        return payload
    if codec == ZLIB:
        try:  # bounded: a crafted payload must not expand past what the slice can hold
            return zlib.decompressobj().decompress(payload, length + 1)
        except zlib.error as error:
            raise TableError(f"{path}: damaged payload ({error})") from None
    raise TableError(f"{path}: unknown codec {codec}")


def encode_slice(data: SliceData) -> bytes:
    """The bytes of a slice file."""
    size = data.material.size
    if (data.dtc is None or data.packed.shape != ((size + 3) // 4,)
            or data.dtc.shape != (size,)):
        raise ValueError(f"arrays do not fit slice {data.material.name} of {size} positions")
    dtc_bytes = data.dtc.dtype.itemsize
    values_codec, values = _compressed(data.packed.astype(np.uint8).tobytes())
    dtc_codec, dtc = _compressed(data.dtc.astype(f"<u{dtc_bytes}").tobytes())
    header = _HEADER.pack(MAGIC, *data.material, size, values_codec, dtc_bytes, dtc_codec,
                          len(values), len(dtc))
    body = header + values + dtc
    return body + hashlib.sha256(body).digest()


def decode_slice(blob: bytes, path: Path, *, with_dtc: bool = True) -> SliceData:
    """The slice a file's bytes hold (its DTC left out unless ``with_dtc``).

    :raises TableError: the bytes are not a whole, undamaged slice file.
    """
    if len(blob) < _HEADER.size + _DIGEST_BYTES or not blob.startswith(MAGIC):
        raise TableError(f"{path}: not an endgame table file of this version")
    body, digest = blob[:-_DIGEST_BYTES], blob[-_DIGEST_BYTES:]
    if hashlib.sha256(body).digest() != digest:
        raise TableError(f"{path}: checksum mismatch (damaged or cut short)")
    (_, black_men, black_kings, white_men, white_kings, size, values_codec, dtc_bytes,
     dtc_codec, values_length, dtc_length) = _HEADER.unpack_from(body)
    material = Material(black_men, black_kings, white_men, white_kings)
    if size != material.size or dtc_bytes not in (1, 2):
        raise TableError(f"{path}: header does not describe slice {material.name}")
    start = _HEADER.size
    values = _expanded(values_codec, body[start:start + values_length], path, (size + 3) // 4)
    if len(values) != (size + 3) // 4:
        raise TableError(f"{path}: payload lengths do not match slice {material.name}")
    if not with_dtc:
        return SliceData(material, np.frombuffer(values, np.uint8).copy(), None)
    dtc = _expanded(dtc_codec, body[start + values_length:start + values_length + dtc_length],
                    path, size * dtc_bytes)
    if len(dtc) != size * dtc_bytes:
        raise TableError(f"{path}: payload lengths do not match slice {material.name}")
    return SliceData(material, np.frombuffer(values, np.uint8).copy(),
                     np.frombuffer(dtc, f"<u{dtc_bytes}").copy())


def write_slice(directory: Path, data: SliceData) -> Path:
    """Write a slice file atomically (temporary file, fsync, rename); its path.

    :raises FileError: the file cannot be written, or something other than a
        regular file is in its place (a symbolic link is written through).
    """
    directory.mkdir(parents=True, exist_ok=True)
    target = slice_path(directory, data.material)
    atomic_write(target, encode_slice(data), what="endgame table file")
    return target


class DamagedTableError(TableError):
    """A slice file is there but damaged; the message names it and the command that rebuilds it.

    ``path`` is the file, ``pieces`` the ``--pieces`` of ``doublecorner egtb
    build`` that rebuilds it (a build replaces a file it cannot read).
    """

    def __init__(self, message: str, *, path: Path, pieces: int) -> None:
        super().__init__(message)
        self.path = path
        self.pieces = pieces


def rebuild_command(directory: Path, pieces: int) -> str:
    """The command that builds, or rebuilds, the slices of up to ``pieces`` pieces in ``directory``.

    >>> rebuild_command(Path("/tmp/my tables"), 3)
    "doublecorner egtb build --pieces 3 --dir '/tmp/my tables'"
    """
    return f"doublecorner egtb build --pieces {pieces} --dir {shlex.quote(str(directory))}"


def read_slice(directory: Path, material: Material, *, with_dtc: bool = True) -> SliceData:
    """Read and check the file of a slice (its DTC left out unless ``with_dtc``).

    :raises TableError: the file is missing, or is no regular file.
    :raises DamagedTableError: the file is damaged, larger than the slice
        can be, or holds another slice.
    """
    path = slice_path(directory, material)
    problem = reading_problem(path)
    if problem == "it does not exist":
        raise TableError(f"{path}: no table for material {material.name}")
    if problem is not None:
        raise TableError(f"{path}: {problem}")
    largest = max_slice_bytes(material)
    if path.stat().st_size > largest:  # a rebuild replaces it: damage, not a wrong path
        raise DamagedTableError(
            f"{path}: {path.stat().st_size:,} bytes, more than slice {material.name} can take "
            f"({largest:,}): the table file is damaged; rebuild it with "
            f"'{rebuild_command(directory, material.pieces)}'",
            path=path, pieces=material.pieces)
    try:
        blob = read_bounded(path, max_bytes=largest, what="endgame table file")
    except FileError as error:
        raise TableError(str(error)) from None
    try:
        data = decode_slice(blob, path, with_dtc=with_dtc)
        if data.material != material:
            raise TableError(f"{path}: holds slice {data.material.name}, not {material.name}")
    except TableError as error:
        raise DamagedTableError(
            f"{error}: the table file is damaged; rebuild it with "
            f"'{rebuild_command(directory, material.pieces)}'",
            path=path, pieces=material.pieces) from None
    return data
