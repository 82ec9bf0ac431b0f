"""Make the web page's sounds: a move, a capture, a crowning and the end of a game.

Usage::

    python tools/make_sounds.py            # writes src/doublecorner/web/static/sounds/*.wav
    python tools/make_sounds.py --out DIR  # writes them to DIR instead

Each sound is synthesised here with numpy, so the project owns every sample of it: a
move is the knock of a wooden man set down (a short decaying tone under a click of
noise), a capture two knocks, the second lower (the man lands, the taken one is
lifted), a crowning a rising two-note chime, and the end of a game three notes of a
major chord. The output is the same on every run (the noise has a fixed seed):
``tests/test_make_sounds.py`` checks the committed files against it. 16-bit mono
WAV at 22 050 Hz, a few kilobytes each, played by ``static/sounds.js``.
"""

from __future__ import annotations

import argparse
import sys
import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

RATE = 22_050  # samples per second: enough for these sounds, half the size of CD rate
PEAK = 0.7  # of full scale: loud enough to hear, with room so that nothing clips
STATIC = Path(__file__).resolve().parent.parent / "src" / "doublecorner" / "web" / "static"
SOUNDS_DIR = STATIC / "sounds"

Signal = NDArray[np.float64]


def _time(seconds: float) -> Signal:
    return np.arange(round(seconds * RATE)) / RATE


def _knock(pitch: float, seconds: float, seed: int) -> Signal:
    """A piece of wood struck: a tone that dies away fast, and a click of noise at its start."""
    t = _time(seconds)
    tone = np.sin(2 * np.pi * pitch * t) + 0.4 * np.sin(2 * np.pi * 2.7 * pitch * t)
    body = tone * np.exp(-t * 55)
    noise = np.random.default_rng(seed).uniform(-1, 1, t.size) * np.exp(-t * 400)
    return np.asarray(body + 0.6 * noise, dtype=np.float64)


def _bell(pitch: float, seconds: float) -> Signal:
    """A small bell: a tone and two of its partials, rung and fading."""
    t = _time(seconds)
    partials = (np.sin(2 * np.pi * pitch * t) + 0.35 * np.sin(2 * np.pi * 2 * pitch * t)
                + 0.15 * np.sin(2 * np.pi * 3.01 * pitch * t))
    attack = np.minimum(1, t / 0.004)  # 4 ms: no click at its start
    return np.asarray(partials * attack * np.exp(-t * 7), dtype=np.float64)


def _sequence(*parts: tuple[float, Signal]) -> Signal:
    """Sounds laid over one another, each from its start time in seconds."""
    length = max(round(start * RATE) + part.size for start, part in parts)
    mixed = np.zeros(length)
    for start, part in parts:
        begin = round(start * RATE)
        mixed[begin:begin + part.size] += part
    return mixed


def move() -> Signal:
    return _knock(520, 0.09, seed=1)


def capture() -> Signal:
    return _sequence((0, _knock(560, 0.08, seed=2)), (0.07, _knock(360, 0.11, seed=3)))


def crown() -> Signal:
    return _sequence((0, _bell(784, 0.35)), (0.11, _bell(1175, 0.45)))  # G5, then D6


def end() -> Signal:
    # C5, E5, G5, one after the other, each left to ring.
    return _sequence((0, _bell(523, 0.6)), (0.14, _bell(659, 0.6)), (0.28, _bell(784, 0.7)))


SOUNDS: dict[str, Callable[[], Signal]] = {
    "move": move, "capture": capture, "crown": crown, "end": end}


def samples(signal: Signal) -> bytes:
    """The signal scaled to PEAK, faded out over its last 5 ms, as 16-bit little-endian PCM."""
    fade = min(signal.size, round(0.005 * RATE))
    shaped = signal.copy()
    shaped[signal.size - fade:] *= np.linspace(1, 0, fade)
    scaled = shaped / np.max(np.abs(shaped)) * PEAK
    return bytes(np.round(scaled * 32767).astype("<i2").tobytes())


def write_wav(path: Path, signal: Signal) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(samples(signal))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=SOUNDS_DIR,
                        help=f"the folder to write to (default: {SOUNDS_DIR})")
    arguments = parser.parse_args(argv)
    try:
        arguments.out.mkdir(parents=True, exist_ok=True)
        for name, make in SOUNDS.items():
            write_wav(arguments.out / f"{name}.wav", make())
    except OSError as error:
        print(f"make_sounds: cannot write to {arguments.out}: {error.strerror or error}",
              file=sys.stderr)
        return 1
    print(f"wrote {', '.join(f'{name}.wav' for name in SOUNDS)} to {arguments.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
