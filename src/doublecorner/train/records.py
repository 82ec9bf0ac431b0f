"""Self-play games as compact records: the training data that is kept.

A network is fitted on positions, but positions are bulky (the old shards of
searched positions took about 10 bytes a position compressed, 30 MB a
generation); the games they come from are not (about 1.6 bytes a move, most
of it the search's scores). So the games are what is kept, in git beside the
network they trained, and the positions, their labels and scores are rebuilt
from them whenever a fit needs them (:mod:`.positions`).

A records file (``games-KKKKK.txt.xz``, LZMA-compressed UTF-8 text) starts
with a header line, ``#dcg 1 {JSON}`` (the format's version and the
configuration the games were played with), then holds one game a line, five
fields separated by tabs:

- the game's number (its ballot and random plies follow it, see :mod:`.selfplay`);
- the result for Black: ``1`` won, ``0`` drawn (or cut short), ``-1`` lost;
- the start position as a FEN, with a fresh 40-move count;
- the moves, one character each: the move's index among the position's legal
  moves sorted by their paths, written with the 62 characters ``0-9A-Za-z``
  (an index from 62 up, which no game has yet needed, as ``(index)``);
- the search's score before each move, for the side to move, comma-separated
  (one per move, in the engine's units: see :mod:`doublecorner.kernel.scores`).

A move is named by its index among the sorted legal moves, not by its squares:
one character a move instead of five or more, and a code that still tells
apart two capture routes between the same squares. Sorting by path keeps the
codes independent of the move generator's order.

>>> from doublecorner.board import Board
>>> board = Board()
>>> moves = [board.push_str(text) for text in ("11-15", "23-19", "8-11")]
>>> record = GameRecord(7, Position.start(), tuple(moves), (12, -3, 40), 0)
>>> line = encode_record(record)
>>> line.split("\\t")[3:]
['441', '12,-3,40']
>>> decode_record(line) == record
True
"""

from __future__ import annotations

import hashlib
import io
import json
import lzma
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, TextIO

from doublecorner.board import Board
from doublecorner.errors import DraughtsError, EngineError, FileError, quoted
from doublecorner.files import atomic_writer, open_bounded, shown_path
from doublecorner.move import Move
from doublecorner.position import Position

FORMAT = "dcg"
VERSION = 1
RECORDS_PATTERN = "games-{:05d}.txt.xz"
RECORDS_NAME = re.compile(r"games-\d{5,}\.txt\.xz")
CODE_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_CODE_INDEX = {character: index for index, character in enumerate(CODE_ALPHABET)}
_INTEGER = re.compile(r"-?[0-9]+")  # int() would also take Arabic digits, '1_0', ' 1'
_INDEX = re.compile(r"[0-9]+")
# A line holds one game: at most a few thousand plies, each a code and a score.
MAX_LINE_CHARACTERS = 1 << 20
# A records file of 100 games takes about 20 KB, 80 KB of text: far more than
# these bounds is no records file (or one that would not fit in memory rebuilt).
MAX_FILE_BYTES = 256 << 20
MAX_TEXT_CHARACTERS = 1 << 30
# Compression level: files are far smaller than preset 6's 8 MiB window, and
# preset 9 would take 674 MB of memory in every self-play process to write one.
_PRESET = 6
WHAT = "records file"


# (black, white, kings, turn, clock): a position and its 40-move count.
State = tuple[int, int, int, int, int]


def _state(board: Board) -> State:
    black, white, kings = board.bitboards()
    return black, white, kings, int(board.turn), board.halfmove_clock


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One self-play game: where it started, its moves, the scores and the result."""

    number: int
    start: Position
    """Where the game started (a fresh 40-move count: the ballot's or a set-up position)."""
    moves: tuple[Move, ...]
    scores: tuple[int, ...]
    """The search's score before each move, for the side that made it."""
    result: int
    """The result for Black: 1 won, 0 drawn or cut short, -1 lost."""
    _states: tuple[State, ...] | None = field(default=None, compare=False, repr=False)
    """The states before each move when decoding has seen them (replaying costs as much)."""

    def __post_init__(self) -> None:
        if len(self.scores) != len(self.moves):
            raise ValueError(f"game {self.number}: {len(self.moves)} moves but "
                             f"{len(self.scores)} scores")
        if self.result not in (-1, 0, 1):
            raise ValueError(f"game {self.number}: result {self.result} is not -1, 0 or 1")

    def states(self) -> tuple[State, ...]:
        """``(black, white, kings, turn, clock)`` before each move (the clock from the start)."""
        if self._states is None:
            states = tuple(map(_state, islice(self.boards(), len(self.moves))))
            object.__setattr__(self, "_states", states)  # a cache of what the fields say
            return states
        return self._states

    def boards(self) -> Iterator[Board]:
        """The board before each move, then after the last (one board, moved on in place)."""
        board = Board.from_position(self.start)
        yield board
        for move in self.moves:
            board.push(move)
            yield board


def legal_moves_sorted(board: Board) -> list[Move]:
    """The legal moves in the order the codes count them: by their paths."""
    return sorted(board.legal_moves, key=lambda move: move.path)


def _code(index: int) -> str:
    return CODE_ALPHABET[index] if index < len(CODE_ALPHABET) else f"({index})"


def encode_record(record: GameRecord) -> str:
    """The record as one line (no newline).

    :raises DraughtsError: a move is not legal where it is played.
    """
    board = Board.from_position(record.start)
    codes = []
    for move in record.moves:
        legal = legal_moves_sorted(board)
        board.push(move)  # an illegal move raises here, before its index is looked up
        codes.append(_code(legal.index(move)))
    return "\t".join((str(record.number), str(record.result), record.start.fen(), "".join(codes),
                      ",".join(str(score) for score in record.scores)))


def _integer(text: str, what: str) -> int:
    if not _INTEGER.fullmatch(text):
        raise ValueError(f"{what} {quoted(text)} is not a whole number")
    return int(text)


def decode_record(line: str) -> GameRecord:
    """The record of one line.

    :raises EngineError: the line is no record, or a code names no legal move.
    """
    fields = line.rstrip("\n").split("\t")
    if len(fields) != 5:
        raise EngineError(f"a game record has 5 fields separated by tabs, not {len(fields)}")
    number_text, result_text, fen, codes, scores_text = fields
    game = f"game record {quoted(number_text)}"
    try:
        number = _integer(number_text, "the game's number")
        result = _integer(result_text, "the result")
        scores = (tuple(_integer(score, "a score") for score in scores_text.split(","))
                  if scores_text else ())
        start = Position.from_fen(fen)
    except (ValueError, DraughtsError) as error:
        raise EngineError(f"{game}: {error}") from None
    if result not in (-1, 0, 1):
        raise EngineError(f"{game}: the result {result} is not -1, 0 or 1")
    board = Board.from_position(start)
    moves: list[Move] = []
    states: list[State] = []
    for index in _indices(codes, game):
        legal = legal_moves_sorted(board)
        if index >= len(legal):
            raise EngineError(f"{game}: move {len(moves) + 1} is code {_code(index)!r}, but "
                              f"{board.fen()} has {len(legal)} legal "
                              f"move{'' if len(legal) == 1 else 's'}")
        moves.append(legal[index])
        states.append(_state(board))
        board.push(legal[index])
    if len(scores) != len(moves):
        raise EngineError(f"{game}: {len(moves)} moves but {len(scores)} scores")
    return GameRecord(number, start, tuple(moves), scores, result, tuple(states))


def _indices(codes: str, game: str) -> Iterator[int]:
    position = 0
    while position < len(codes):
        character = codes[position]
        if character == "(":
            close = codes.find(")", position)
            if close < 0 or not _INDEX.fullmatch(codes[position + 1:close]):
                raise EngineError(f"{game}: an unclosed or malformed code at character "
                                  f"{position + 1} of the moves")
            yield int(codes[position + 1:close])
            position = close + 1
        elif character in _CODE_INDEX:
            yield _CODE_INDEX[character]
            position += 1
        else:
            raise EngineError(f"{game}: {character!r} is no move code")


def records_path(directory: Path, index: int) -> Path:
    """The ``index``-th records file of a folder (``games-00003.txt.xz``)."""
    return directory / RECORDS_PATTERN.format(index)


def records_paths(directory: Path) -> list[Path]:
    """The records files in ``directory``, in order (never one still being written)."""
    return sorted(path for path in directory.glob("games-*.txt.xz")
                  if RECORDS_NAME.fullmatch(path.name))


def records_files(sources: Iterable[Path]) -> list[Path]:
    """The records files named: each folder's (in order), and each file itself.

    :raises EngineError: a source does not exist, or a folder holds no records file.
    """
    found: list[Path] = []
    for source in sources:
        if source.is_dir():
            paths = records_paths(source)
            if not paths:
                raise EngineError(f"no self-play records (games-*.txt.xz) in "
                                  f"{shown_path(source)}")
            found += paths
        elif source.exists():
            found.append(source)
        else:
            raise EngineError(f"{shown_path(source)}: no such folder or records file")
    return found


def write_records(path: Path, records: Iterable[GameRecord], *,
                  config: Mapping[str, Any]) -> None:
    """Write ``records`` to ``path`` whole (compressed), replacing any file there.

    Written beside it and renamed into place (:func:`~doublecorner.files.atomic_writer`),
    so that a killed writer leaves no half file a reader would take for a whole one.

    :raises FileError: the file cannot be written.
    :raises DraughtsError: a record's move is not legal where it is played.
    """
    with atomic_writer(path, what=WHAT) as raw, \
            io.TextIOWrapper(lzma.LZMAFile(raw, "w", preset=_PRESET), encoding="utf-8") as stream:
        stream.write(f"#{FORMAT} {VERSION} {json.dumps(dict(config), sort_keys=True)}\n")
        for record in records:
            stream.write(encode_record(record) + "\n")


def read_config(path: Path) -> dict[str, Any]:
    """The configuration in the header of the records file at ``path``.

    :raises EngineError: the file cannot be read or is no records file.
    """
    with numbered_lines(path) as lines:
        return _header(path, next(lines, (1, "")))


def read_records(path: Path) -> Iterator[GameRecord]:
    """The games of the records file at ``path``, in the file's order.

    :raises EngineError: the file cannot be read, is no records file, or a line
        is damaged (the message names the file and the line).
    """
    with numbered_lines(path) as lines:
        _header(path, next(lines, (1, "")))
        for number, line in lines:
            if not line.strip():
                continue
            try:
                record = decode_record(line)
            except EngineError as error:
                raise EngineError(f"{shown_path(path)}, line {number}: {error}") from None
            yield record


def records_digest(path: Path) -> str:
    """The SHA-256 of the records file at ``path`` (its compressed bytes), in hex.

    :raises EngineError: the file cannot be read.
    """
    digest = hashlib.sha256()
    try:
        with open_bounded(path, max_bytes=MAX_FILE_BYTES, what=WHAT) as stream:
            while block := stream.read(1 << 20):
                digest.update(block)
    except FileError as error:
        raise EngineError(str(error)) from None
    except OSError as error:
        raise EngineError(f"cannot read the {WHAT} {shown_path(path)}: "
                          f"{error.strerror or error}") from None
    return digest.hexdigest()


@contextmanager
def numbered_lines(path: Path, *, what: str = WHAT,
                   max_text: int | None = None) -> Iterator[Iterator[tuple[int, str]]]:
    """The numbered lines of an xz text file of the pipeline (a records file, or
    ``what`` another), each and all bounded (``max_text`` characters in all, by
    default a records file's bound); every read error an :class:`EngineError`
    naming the file."""
    if max_text is None:
        max_text = MAX_TEXT_CHARACTERS  # read now: the bound is the module's at the call
    try:
        with open_bounded(path, max_bytes=MAX_FILE_BYTES, what=what) as raw, \
                io.TextIOWrapper(lzma.LZMAFile(raw), encoding="utf-8") as stream:
            yield _lines(path, stream, what, max_text)
    except FileError as error:
        raise EngineError(str(error)) from None


def _lines(path: Path, stream: TextIO, what: str, max_text: int) -> Iterator[tuple[int, str]]:
    total = number = 0
    while True:
        try:
            line = stream.readline(MAX_LINE_CHARACTERS)
        except (OSError, EOFError, lzma.LZMAError, UnicodeDecodeError) as error:
            raise EngineError(f"cannot read the {what} {shown_path(path)}: "
                              f"{_reason(error)}") from None
        if not line:
            return
        number += 1
        total += len(line)
        if not line.endswith("\n") and len(line) >= MAX_LINE_CHARACTERS:
            raise EngineError(f"{shown_path(path)}, line {number}: longer than "
                              f"{MAX_LINE_CHARACTERS:,} characters, no line of a {what}")
        if total > max_text:
            raise EngineError(f"{shown_path(path)}: more than {max_text:,} "
                              f"characters of text, more than a {what} can hold")
        yield number, line


def _reason(error: BaseException) -> str:
    if isinstance(error, EOFError):
        return "it is cut short"
    if isinstance(error, UnicodeDecodeError):
        return "it is no UTF-8 text"
    if isinstance(error, lzma.LZMAError):
        return "it is no xz file, or a damaged one"
    if isinstance(error, OSError):
        return str(error.strerror or error)
    return str(error)


def _header(path: Path, numbered: tuple[int, str]) -> dict[str, Any]:
    return header_of(path, numbered[1], format_name=FORMAT, version=VERSION, what=WHAT)


def header_of(path: Path, line: str, *, format_name: str, version: int,
              what: str) -> dict[str, Any]:
    """The JSON of a header line ``#FORMAT VERSION {...}`` of the file at ``path``.

    :raises EngineError: the line is no such header, or of another version.
    """
    refused = EngineError(f"{shown_path(path)} is no {what}: its first line should be "
                          f"'#{format_name} {version} {{...}}', not "
                          f"{quoted(line.rstrip(), limit=40)}")
    marker, _, rest = line.rstrip("\n").partition(" ")
    found, _, config_text = rest.partition(" ")
    if marker != f"#{format_name}":
        raise refused
    if found != str(version):
        raise EngineError(f"{shown_path(path)} is a {what} of version "
                          f"{quoted(found, limit=20)}; this doublecorner reads version "
                          f"{version}")
    try:
        config = json.loads(config_text)
    except ValueError:
        raise refused from None
    if not isinstance(config, dict):
        raise refused
    return config


def configs_of(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """The distinct configurations in the headers of these records files, in order.

    :raises EngineError: a file cannot be read or is no records file.
    """
    seen: list[dict[str, Any]] = []
    for path in paths:
        config = read_config(path)
        if config not in seen:
            seen.append(config)
    return seen
