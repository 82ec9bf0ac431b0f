"""The neural evaluation's weights: one small versioned file, read once per process.

The file (``network.dcnn`` beside this module is the one shipped) is, in
little-endian order:

- the magic ``b"DCNN"`` and the format version (uint32, :data:`FORMAT_VERSION`);
- the architecture: inputs, hidden, L2 and buckets (four uint32), which
  must match :mod:`doublecorner.kernel.network`; format 2 (since 2026-12-05)
  gives the second layer the position features beside the first layer's
  units (``EXTRA``), so a format-1 network is refused as of another format;
- the provenance: a uint32 length and that many bytes of UTF-8 JSON (how the
  weights were trained: data, generations, losses, the match that accepted them);
- the parameters: :data:`~doublecorner.kernel.network.PARAMETERS` float32 values
  in the kernel's flat layout;
- a CRC-32 (uint32) of everything before it.

A missing, truncated, damaged or mismatched file is one :class:`EngineError`;
so is a path that is no regular file, or a file larger than the format allows
(:data:`MAX_FILE_BYTES`), refused before it is read.
"""

from __future__ import annotations

import json
import struct
import zlib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from doublecorner.errors import EngineError, FileError
from doublecorner.files import atomic_write, read_bounded
from doublecorner.kernel.network import BUCKETS, HIDDEN, INPUTS, L2, PARAMETERS, quantise

MAGIC = b"DCNN"
FORMAT_VERSION = 2
DEFAULT_FILE = "network.dcnn"
ARCHITECTURE = (INPUTS, HIDDEN, L2, BUCKETS)
_HEADER = struct.Struct("<4sI4II")  # magic, version, architecture, provenance length
# The shipped record takes 4 KB, and a generation adds about that much to the history.
MAX_PROVENANCE_BYTES = 1 << 20
MAX_FILE_BYTES = _HEADER.size + MAX_PROVENANCE_BYTES + 4 * PARAMETERS + 4


class Network:
    """The parameters of the evaluation network and the record of how they were made.

    >>> network = Network.default()
    >>> network.parameters.shape == (PARAMETERS,), network.parameters.dtype
    (True, dtype('float32'))
    >>> Network.from_bytes(b"DCNN", source="x.dcnn")
    Traceback (most recent call last):
    ...
    doublecorner.errors.EngineError: x.dcnn is not a network file: truncated at 4 of 28 header bytes
    """

    __slots__ = ("parameters", "provenance", "quantised", "source")

    def __init__(self, parameters: np.ndarray, provenance: dict[str, Any] | None = None, *,
                 source: str = "memory") -> None:
        array = np.ascontiguousarray(parameters, dtype=np.float32)
        if array.shape != (PARAMETERS,):
            raise EngineError(f"network parameters must be {PARAMETERS} floats, "
                              f"not an array of shape {array.shape}")
        if not np.all(np.isfinite(array)):
            raise EngineError(f"network parameters from {source} are not all finite")
        array.flags.writeable = False
        self.parameters = array
        self.quantised = quantise(array)
        """The int32 copy the kernel runs (see :func:`~doublecorner.kernel.network.quantise`)."""
        self.provenance = dict(provenance or {})
        self.source = source

    @classmethod
    def default(cls) -> Network:
        """The trained network shipped with the package (read once per process)."""
        return _default_network()

    @classmethod
    def from_file(cls, path: str | Path) -> Network:
        """Read a network file.

        :raises EngineError: the file is missing, unreadable, no regular file,
            larger than :data:`MAX_FILE_BYTES`, truncated, damaged, of another
            format version or of another architecture.
        """
        try:
            data = read_bounded(path, max_bytes=MAX_FILE_BYTES, what="network file")
        except FileError as error:
            raise EngineError(str(error)) from None
        return cls.from_bytes(data, source=str(path))

    @classmethod
    def from_bytes(cls, data: bytes, *, source: str = "memory") -> Network:
        """Read a network from the bytes of a network file.

        :raises EngineError: as :meth:`from_file`.
        """
        if len(data) < _HEADER.size:
            raise EngineError(f"{source} is not a network file: truncated at {len(data)} "
                              f"of {_HEADER.size} header bytes")
        magic, version, *architecture, notes_length = _HEADER.unpack_from(data)
        if magic != MAGIC:
            raise EngineError(f"{source} is not a network file (no {MAGIC!r} mark)")
        if version != FORMAT_VERSION:
            raise EngineError(f"{source} is network format {version}; "
                              f"this doublecorner reads format {FORMAT_VERSION}")
        if tuple(architecture) != ARCHITECTURE:
            raise EngineError(f"{source} holds a network of shape {tuple(architecture)} "
                              f"(inputs, hidden, L2, buckets); this engine runs "
                              f"{ARCHITECTURE}")
        if notes_length > MAX_PROVENANCE_BYTES:
            raise EngineError(f"{source} is damaged: its header names {notes_length:,} bytes "
                              f"of provenance, more than the {MAX_PROVENANCE_BYTES:,} allowed")
        expected = _HEADER.size + notes_length + 4 * PARAMETERS + 4
        if len(data) != expected:
            raise EngineError(f"{source} is damaged: {len(data)} bytes where {expected} belong "
                              "(truncated or padded)")
        (checksum,) = struct.unpack_from("<I", data, expected - 4)
        if zlib.crc32(data[:expected - 4]) != checksum:
            raise EngineError(f"{source} is damaged: its checksum does not match")
        notes_end = _HEADER.size + notes_length
        try:
            provenance = json.loads(data[_HEADER.size:notes_end].decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise EngineError(f"{source} is damaged: its provenance is not JSON") from None
        if not isinstance(provenance, dict):
            raise EngineError(f"{source} is damaged: its provenance is not a JSON object")
        parameters = np.frombuffer(data, dtype="<f4", count=PARAMETERS, offset=notes_end)
        return cls(parameters.astype(np.float32), provenance, source=source)

    def to_bytes(self) -> bytes:
        """The bytes of a network file holding this network.

        :raises EngineError: the provenance is longer than a file may hold.
        """
        notes = json.dumps(self.provenance, indent=1, sort_keys=True).encode("utf-8")
        if len(notes) > MAX_PROVENANCE_BYTES:
            raise EngineError(f"the network's provenance is {len(notes):,} bytes of JSON, "
                              f"more than the {MAX_PROVENANCE_BYTES:,} a file may hold")
        body = (_HEADER.pack(MAGIC, FORMAT_VERSION, *ARCHITECTURE, len(notes)) + notes
                + self.parameters.astype("<f4").tobytes())
        return body + struct.pack("<I", zlib.crc32(body))

    def save(self, path: str | Path) -> None:
        """Write this network to ``path`` (atomically: a reader never sees half a file).

        A symbolic link is written through; a device, FIFO or folder is refused.

        :raises EngineError: the file cannot be written (the message names it),
            or the provenance is too long.
        """
        data = self.to_bytes()
        try:
            atomic_write(path, data, what="network file")
        except FileError as error:
            raise EngineError(str(error)) from None

    def __repr__(self) -> str:
        return f"Network(source={self.source!r})"


def load_network(spec: str | Path | Network | None) -> Network:
    """The network a spec names: ``None`` for the shipped one, a path, or a network.

    :raises EngineError: as :meth:`Network.from_file`.
    """
    if spec is None:
        return Network.default()
    if isinstance(spec, Network):
        return spec
    return Network.from_file(spec)


@cache
def _default_network() -> Network:
    resource = resources.files("doublecorner.engine").joinpath(DEFAULT_FILE)
    try:
        data = resource.read_bytes()
    except OSError:
        raise EngineError(f"the shipped network file {DEFAULT_FILE} is missing; "
                          "reinstall doublecorner") from None
    return Network.from_bytes(data, source=DEFAULT_FILE)
