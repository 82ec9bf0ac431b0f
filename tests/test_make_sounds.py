"""The page's sounds are the project's own: tools/make_sounds.py makes the committed files.

The script runs into a temporary folder and each committed WAV must hold the samples it
makes (within one step of rounding, which another numpy's sine may flip), in the format
static/sounds.js expects: short, mono, 16-bit, not clipped.
"""

from __future__ import annotations

import importlib.util
import wave
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "src" / "doublecorner" / "web" / "static" / "sounds"
NAMES = ["capture", "crown", "end", "move"]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_sounds", ROOT / "tools" / "make_sounds.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read(path: Path) -> tuple[Any, np.ndarray]:
    with wave.open(str(path), "rb") as sound:
        return sound.getparams(), np.frombuffer(sound.readframes(sound.getnframes()), "<i2")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sounds")
    assert _script().main(["--out", str(folder)]) == 0
    return folder


def test_the_script_makes_exactly_the_committed_sounds(made: Path) -> None:
    assert sorted(path.stem for path in made.glob("*.wav")) == NAMES
    assert sorted(path.stem for path in COMMITTED.glob("*.wav")) == NAMES
    for name in NAMES:
        (params, mine), (committed_params, committed) = (_read(made / f"{name}.wav"),
                                                         _read(COMMITTED / f"{name}.wav"))
        assert params == committed_params, name
        assert np.max(np.abs(mine.astype(int) - committed.astype(int))) <= 1, name


@pytest.mark.parametrize("name", NAMES)
def test_each_sound_is_short_mono_sixteen_bit_and_not_clipped(name: str) -> None:
    params, frames = _read(COMMITTED / f"{name}.wav")
    assert (params.nchannels, params.sampwidth, params.framerate) == (1, 2, 22_050)
    assert params.nframes / params.framerate <= 1.0  # a sound of the game, not music
    assert 0.5 * 32767 < np.max(np.abs(frames)) < 0.75 * 32767  # heard, with headroom
    assert frames[-1] == 0  # faded out: no click at its end


def test_an_unwritable_folder_is_one_line_on_stderr(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert _script().main(["--out", str(blocker / "sounds")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("make_sounds: cannot write to ")
    assert captured.err.count("\n") == 1
