"""A match's results as JSON lines, written game by game so an interrupted match can resume.

The first line is a header, ``{"header": {...}}``, naming what makes the match
the same match (players, openings, limits); each further line is one finished
game. Every line is flushed to disk as soon as it is written, so a crash loses
at most the game being written, which shows as a last line without its end.

>>> import io, json
>>> from doublecorner.match import play_game, RandomPlayer, three_move_deck
>>> record = play_game(RandomPlayer(1), RandomPlayer(2), three_move_deck()[0], number=1,
...                    first_is_black=True)
>>> line = json.dumps(record_to_json(record))
>>> record_from_json(json.loads(line), three_move_deck()[:1]) == record
True
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from doublecorner.errors import JournalError
from doublecorner.files import read_bounded
from doublecorner.match.arena import GameRecord
from doublecorner.match.ballots import Ballot
from doublecorner.move import Move

RESULTS = ("1-0", "0-1", "1/2-1/2")
# A match has at most 2 games an opening of the deck, each line a few KB: 64 MB is far above.
MAX_JOURNAL_BYTES = 64 << 20


@dataclass(frozen=True, slots=True)
class JournalContents:
    """What a results file holds: its header, its games, and how much of it is sound."""

    header: dict[str, Any]
    records: list[GameRecord]  # in the order they were written, which is the order they finished
    sound_bytes: int  # the file's length up to the end of its last complete line
    dropped: str | None  # the unfinished last line, if a write was interrupted


def record_to_json(record: GameRecord) -> dict[str, Any]:
    """One game as a JSON object (moves as strings)."""
    return {
        "number": record.number,
        "ballot": record.ballot.number,
        "first_is_black": record.first_is_black,
        "black": record.black,
        "white": record.white,
        "result": record.result,
        "reason": record.reason,
        "moves": [str(move) for move in record.moves],
        "fallback_moves": record.fallback_moves,
    }


def record_from_json(data: Mapping[str, Any], ballots: Sequence[Ballot]) -> GameRecord:
    """The game a line of the journal holds, for a match over ``ballots``.

    :raises JournalError: a field is missing or wrong, or the game is not one of the match's.
    """
    try:
        number = int(data["number"])
        if not 1 <= number <= 2 * len(ballots):
            raise JournalError(f"game {number} is not in a match of {2 * len(ballots)} games")
        ballot = ballots[(number - 1) // 2]
        if data["ballot"] != ballot.number:
            raise JournalError(f"game {number} names ballot {data['ballot']}, "
                               f"not {ballot.number}")
        if data["first_is_black"] is not (number % 2 == 1):
            raise JournalError(f"game {number} has the colours the wrong way round")
        if data["result"] not in RESULTS:
            raise JournalError(f"game {number} has result {data['result']!r}")
        return GameRecord(number, ballot, bool(data["first_is_black"]), str(data["black"]),
                          str(data["white"]), tuple(Move.parse(text) for text in data["moves"]),
                          str(data["result"]), str(data["reason"]), int(data["fallback_moves"]))
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, JournalError):
            raise
        raise JournalError(f"bad game entry {dict(data)!r}: {error!r}") from None


def header_differences(expected: Mapping[str, Any], found: Mapping[str, Any]) -> list[str]:
    """Each setting where ``found`` (the file's header) differs from ``expected``.

    >>> header_differences({"first": "random", "depth": 2}, {"first": "random", "depth": 3})
    ['depth: the file has 3, this match 2']
    """
    return [f"{key}: the file has {found.get(key)!r}, this match {expected.get(key)!r}"
            for key in sorted(set(expected) | set(found)) if expected.get(key) != found.get(key)]


def read_journal(path: Path, ballots: Sequence[Ballot]) -> JournalContents:
    """Read a results file back.

    A last line without its newline (a write cut short) is left out and
    returned in ``dropped``; any other line that does not read is damage.
    The games come in the order they were written, so a sequential test
    (:class:`~doublecorner.match.sprt.SequentialTest`) replayed over them
    sees the pairs finish as the match saw them; a game written twice
    counts once, where it was first written.

    :raises JournalError: no header, or a damaged line (with its number).
    :raises FileError: the file is missing, unreadable, no regular file, or
        larger than :data:`MAX_JOURNAL_BYTES` (an :class:`OSError` too).
    """
    data = read_bounded(path, max_bytes=MAX_JOURNAL_BYTES, what="match results file")
    complete, _, tail = data.rpartition(b"\n")
    lines = complete.split(b"\n") if complete else []
    dropped = tail.decode("utf-8", "replace") if tail else None
    if not lines:
        raise JournalError(f"{path} has no header line: it is not a match's results")
    try:
        header = json.loads(lines[0])["header"]
        if not isinstance(header, dict):
            raise TypeError("the header is not an object")
    except (ValueError, KeyError, TypeError) as error:
        raise JournalError(f"{path}, line 1: not a results header ({error})") from None
    records: dict[int, GameRecord] = {}
    for line_number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict):
                raise JournalError("not an object")
            record = record_from_json(entry, ballots)
        except ValueError as error:  # JSONDecodeError and JournalError alike
            raise JournalError(f"{path}, line {line_number}: {error}") from None
        records.setdefault(record.number, record)
    return JournalContents(header, list(records.values()), len(complete) + 1, dropped)


class JournalWriter:
    """Appends lines to a results file, each flushed to disk before the call returns."""

    def __init__(self, path: Path, *, header: Mapping[str, Any] | None,
                 keep_bytes: int | None = None) -> None:
        """Start ``path`` afresh with ``header``, or (``header=None``) append to it.

        When appending, ``keep_bytes`` cuts the file back to that length first,
        dropping an unfinished last line so the next line starts clean.

        :raises OSError: the file cannot be opened.
        """
        self._file: IO[str] = path.open("w" if header is not None else "r+", encoding="utf-8")
        if header is not None:
            self._write({"header": dict(header)})
        else:
            if keep_bytes is not None:
                self._file.truncate(keep_bytes)
            self._file.seek(0, os.SEEK_END)

    def append(self, record: GameRecord) -> None:
        """Write one finished game."""
        self._write(record_to_json(record))

    def _write(self, entry: Mapping[str, Any]) -> None:
        self._file.write(json.dumps(entry) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        """Close the file."""
        self._file.close()
