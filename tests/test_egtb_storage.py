"""The slice file format: round trip, checksum, atomic write, default folder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from doublecorner.egtb import Material, TableError
from doublecorner.egtb.storage import (
    SliceData,
    decode_slice,
    encode_slice,
    read_slice,
    slice_path,
    write_slice,
)

MATERIAL = Material(1, 0, 0, 1)


def _data(dtc_type: type = np.uint8) -> SliceData:
    rng = np.random.default_rng(1)
    size = MATERIAL.size
    return SliceData(MATERIAL, rng.integers(0, 256, (size + 3) // 4).astype(np.uint8),
                     rng.integers(0, 300 if dtc_type is np.uint16 else 9, size)
                     .astype(dtc_type))


@pytest.mark.parametrize("dtc_type", [np.uint8, np.uint16])
def test_round_trip(tmp_path: Path, dtc_type: type) -> None:
    data = _data(dtc_type)
    path = write_slice(tmp_path, data)
    assert path == slice_path(tmp_path, MATERIAL) and path.name == "1001.dcdb"
    back = read_slice(tmp_path, MATERIAL)
    assert back.material == MATERIAL
    assert np.array_equal(back.packed, data.packed)
    assert np.array_equal(back.dtc, data.dtc) and back.dtc.dtype == dtc_type
    assert [p.name for p in tmp_path.iterdir()] == ["1001.dcdb"]


def test_compression_is_used_where_it_pays() -> None:
    size = MATERIAL.size
    flat = SliceData(MATERIAL, np.zeros((size + 3) // 4, np.uint8), np.zeros(size, np.uint8))
    assert len(encode_slice(flat)) < size // 4


@pytest.mark.parametrize("damage", ["flip", "truncate", "magic"])
def test_damage_is_detected(damage: str) -> None:
    blob = bytearray(encode_slice(_data()))
    if damage == "flip":
        blob[len(blob) // 2] ^= 1
    elif damage == "truncate":
        del blob[-10:]
    else:
        blob[0] ^= 1
    with pytest.raises(TableError):
        decode_slice(bytes(blob), Path("x.dcdb"))


def test_missing_and_misnamed_files(tmp_path: Path) -> None:
    with pytest.raises(TableError, match="no table"):
        read_slice(tmp_path, MATERIAL)
    write_slice(tmp_path, _data())
    slice_path(tmp_path, MATERIAL).rename(slice_path(tmp_path, MATERIAL.mirror()))
    with pytest.raises(TableError, match="holds slice 1001"):
        read_slice(tmp_path, MATERIAL.mirror())


def test_arrays_that_do_not_fit_are_refused() -> None:
    with pytest.raises(ValueError, match="do not fit"):
        encode_slice(SliceData(MATERIAL, np.zeros(3, np.uint8), np.zeros(3, np.uint8)))
