"""Start positions for self-play: middlegames drawn from earlier games.

Games from the deck's openings spend most of their positions in the opening
and in long endings; the phase where a level game is won or lost (about 14
down to 8 pieces, issue 28) gets a quarter of them. Self-play started from
positions of that phase, taken from earlier games, puts many more of its
positions there (see ``SelfPlayConfig.starts``).

A starts file is UTF-8 text: lines starting with ``#`` say where the
positions came from, every other non-blank line is one FEN.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> path = write_starts(folder / "starts.txt", [Position.start()], source="an example")
>>> [position.fen() for position in read_starts(path)]
['B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12']
"""

from __future__ import annotations

import functools
import os
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from doublecorner.color import Color
from doublecorner.errors import DraughtsError, EngineError, FileError
from doublecorner.files import atomic_write, read_bounded, shown_path
from doublecorner.kernel.movegen import has_captures
from doublecorner.kernel.scores import TABLE_BOUND
from doublecorner.position import Position
from doublecorner.train.records import read_records, records_files

MAX_STARTS_BYTES = 64 << 20  # a million FENs of about 60 characters


@dataclass(frozen=True, slots=True, kw_only=True)
class StartsRequest:
    """Which positions of the records to draw: their piece counts, how level, how many."""

    min_pieces: int = 10
    max_pieces: int = 16
    max_score: int = 150
    """Only positions the game's own search scored within this many hundredths of a man."""
    count: int = 10_000
    seed: int = 1

    def __post_init__(self) -> None:
        check_piece_range(self.min_pieces, self.max_pieces)
        if self.count < 1 or self.max_score < 0:
            raise EngineError("the count must be at least 1 and the score bound 0 or more")


def check_piece_range(low: int, high: int) -> None:
    """:raises EngineError: ``low``-``high`` pieces is not a range within 2-24."""
    if not 2 <= low <= high <= 24:
        raise EngineError(f"piece counts {low}-{high} are not a range within 2-24")


def sample_starts(sources: Sequence[Path], request: StartsRequest) -> list[Position]:
    """Quiet positions of the records in ``sources`` that fit ``request``, drawn evenly.

    Each position is quiet (no capture pending) and judged close to level by
    the game's own search; duplicates are dropped. At most ``request.count``
    are drawn, seeded.

    :raises EngineError: a records file cannot be read, or no position fits.
    """
    seen: set[Position] = set()
    found: list[Position] = []
    for path in records_files(sources):
        for record in read_records(path):
            for (black, white, kings, turn, _), score in zip(record.states(), record.scores,
                                                             strict=True):
                pieces = (black | white).bit_count()
                if (not request.min_pieces <= pieces <= request.max_pieces
                        or abs(score) > request.max_score or abs(score) > TABLE_BOUND
                        or has_captures(black, white, kings, turn)):
                    continue
                position = Position(black, white, kings, Color(turn))
                if position not in seen:
                    seen.add(position)
                    found.append(position)
    if not found:
        raise EngineError(f"no quiet position of {request.min_pieces}-{request.max_pieces} "
                          f"pieces within {request.max_score} of level in the records")
    chance = random.Random(request.seed)
    return chance.sample(found, min(request.count, len(found)))


def write_starts(path: Path, positions: Iterable[Position], *, source: str) -> Path:
    """Write a starts file (``source`` goes into its comment line); returns the path written."""
    lines = [f"# doublecorner self-play start positions: {source}"]
    lines += [position.fen() for position in positions]
    return atomic_write(path, ("\n".join(lines) + "\n").encode(), what="starts file")


def read_starts(path: Path) -> tuple[Position, ...]:
    """The positions of a starts file (read once per process and file version).

    :raises EngineError: the file cannot be read, holds no position, or a line is no FEN.
    """
    try:
        stat = os.stat(path)
    except OSError as error:
        raise EngineError(f"cannot read the starts file {shown_path(path)}: "
                          f"{error.strerror or error}") from None
    return _read_starts(os.fspath(path), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _read_starts(path: str, size: int, modified: int) -> tuple[Position, ...]:
    try:
        text = read_bounded(path, max_bytes=MAX_STARTS_BYTES, what="starts file").decode()
    except (FileError, UnicodeDecodeError) as error:
        raise EngineError(str(error)) from None
    positions = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.startswith("#"):
            try:
                positions.append(Position.from_fen(line.strip()))
            except DraughtsError as error:
                raise EngineError(f"{shown_path(path)}, line {number}: {error}") from None
    if not positions:
        raise EngineError(f"the starts file {shown_path(path)} holds no position")
    return tuple(positions)
