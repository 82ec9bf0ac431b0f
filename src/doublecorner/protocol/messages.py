"""The lines of the engine protocol (docs/engine-protocol.md): parsing and writing them.

Both sides use this module: the engine server parses commands and writes
``info``/``bestmove`` lines; the client writes commands and parses answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from doublecorner.color import Color
from doublecorner.engine import Limit, Score, SearchResult
from doublecorner.engine.limit import MAX_DEPTH
from doublecorner.engine.search import NO_NODE_LIMIT
from doublecorner.errors import EngineError, quoted
from doublecorner.fen import STARTING_FEN
from doublecorner.kernel.scores import MATE, TABLE_WIN

GO_NUMBERS = ("depth", "nodes", "movetime", "btime", "wtime", "binc", "winc", "movestogo")
MAX_MILLISECONDS = 10**12  # some 30 years: any clock or move time beyond is a typing error
# The range of each number of ``go``: the engine counts nodes in 64 bits.
GO_RANGES = {"depth": (1, MAX_DEPTH), "nodes": (1, NO_NODE_LIMIT - 1),
             "movetime": (1, MAX_MILLISECONDS), "btime": (0, MAX_MILLISECONDS),
             "wtime": (0, MAX_MILLISECONDS), "binc": (0, MAX_MILLISECONDS),
             "winc": (0, MAX_MILLISECONDS), "movestogo": (1, 10**6)}
GO_UNITS = {"depth": "plies", "nodes": "nodes", "movestogo": "moves"}  # the rest: milliseconds


@dataclass(frozen=True, slots=True)
class PositionCommand:
    """``position startpos|fen FEN [moves ...]``."""

    fen: str
    moves: tuple[str, ...]

    def line(self) -> str:
        start = "startpos" if self.fen == STARTING_FEN else f"fen {self.fen}"
        return f"position {start}" + (f" moves {' '.join(self.moves)}" if self.moves else "")


def parse_position(words: list[str]) -> PositionCommand:
    """The ``position`` command split into words.

    >>> command = parse_position("position startpos moves 11-15 23-19".split())
    >>> command.fen == STARTING_FEN, command.moves
    (True, ('11-15', '23-19'))

    :raises EngineError: the command is malformed.
    """
    if len(words) >= 2 and words[1] == "startpos":
        fen, rest = STARTING_FEN, words[2:]
    elif len(words) >= 3 and words[1] == "fen":
        fen, rest = words[2], words[3:]
    else:
        raise EngineError("expected 'position startpos|fen FEN [moves ...]'")
    if rest and rest[0] != "moves":
        raise EngineError(f"expected 'moves' after the position, not {rest[0]!r}")
    return PositionCommand(fen, tuple(rest[1:]))


@dataclass(frozen=True, slots=True)
class GoCommand:
    """``go`` with its limits, in the protocol's units (plies, nodes, milliseconds)."""

    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    btime: int | None = None
    wtime: int | None = None
    binc: int | None = None
    winc: int | None = None
    movestogo: int | None = None
    infinite: bool = False

    def limit(self, turn: Color) -> Limit:
        """The engine's :class:`Limit` for the side to move.

        :raises EngineError: a limit is out of range.
        """
        clock = self.btime if turn is Color.BLACK else self.wtime
        increment = self.binc if turn is Color.BLACK else self.winc
        if self.infinite:
            return Limit()
        return Limit(depth=self.depth, nodes=self.nodes,
                     time=None if self.movetime is None else self.movetime / 1000,
                     clock=None if clock is None else max(clock, 1) / 1000,
                     increment=(increment or 0) / 1000, moves_to_go=self.movestogo)

    def line(self) -> str:
        words = ["go"]
        for name in GO_NUMBERS:
            value = getattr(self, name)
            if value is not None:
                words += [name, str(value)]
        if self.infinite:
            words.append("infinite")
        return " ".join(words)


def parse_go(words: list[str]) -> GoCommand:
    """The ``go`` command split into words.

    >>> parse_go("go movetime 100 depth 8".split())
    GoCommand(depth=8, nodes=None, movetime=100, btime=None, wtime=None, binc=None, \
winc=None, movestogo=None, infinite=False)

    >>> parse_go("go depth 0".split())
    Traceback (most recent call last):
    ...
    doublecorner.errors.EngineError: go depth needs a whole number from 1 to 100 plies, not '0'

    :raises EngineError: an unknown word, or a number missing, not in ASCII digits, or
        outside its range (:data:`GO_RANGES`).
    """
    values: dict[str, int] = {}
    infinite = False
    index = 1
    while index < len(words):
        word = words[index]
        if word == "infinite":
            infinite = True
            index += 1
            continue
        if word not in GO_NUMBERS:
            raise EngineError(f"unknown go parameter {quoted(word)}")
        values[word] = _go_number(word, words[index + 1] if index + 1 < len(words) else None)
        index += 2
    return GoCommand(infinite=infinite, **values)


def _go_number(word: str, text: str | None) -> int:
    """The number after ``go``'s ``word``, checked against its range."""
    low, high = GO_RANGES[word]
    expected = (f"go {word} needs a whole number from {low} to {high} "
                f"{GO_UNITS.get(word, 'milliseconds')}")
    if text is None:
        raise EngineError(expected)
    # ASCII digits only: str.isdigit() takes '²', which int() refuses.
    digits = text.removeprefix("-")
    if not (digits.isascii() and digits.isdigit()):
        raise EngineError(f"{expected}, not {quoted(text)}")
    if len(digits.lstrip("0")) > len(str(high)) or not low <= int(text) <= high:
        raise EngineError(f"{expected}, not {quoted(text, limit=30)}")
    return int(text)


def info_line(result: SearchResult) -> str:
    """An ``info`` line for a finished depth, or for a move from the book (``book``).

    >>> from doublecorner.move import Move
    >>> info_line(SearchResult(Move(11, 15), Score(12), 3, 5, 900, 0.01, (Move(11, 15),)))
    'info depth 3 seldepth 5 score cp 12 nodes 900 nps 90000 time 10 pv 11-15'
    >>> info_line(SearchResult(Move(11, 15), Score(0), 0, 0, 0, 0.0, (Move(11, 15),),
    ...                        is_book=True))
    'info depth 0 seldepth 0 score cp 0 nodes 0 nps 0 time 0 book pv 11-15'
    """
    pv = " ".join(str(move) for move in result.pv)
    hits = f" tbhits {result.table_hits}" if result.table_hits else ""
    book = " book" if result.is_book else ""
    return (f"info depth {result.depth} seldepth {result.seldepth} "
            f"score {score_words(result.score)} nodes {result.nodes} nps {result.nps} "
            f"time {round(result.seconds * 1000)}{hits}{book}" + (f" pv {pv}" if pv else ""))


def score_words(score: Score) -> str:
    """``cp N``, ``win N`` or ``loss N`` (plies to the end), or ``table win|loss``."""
    if score.is_table_result:
        return f"table {'win' if score.is_win else 'loss'}"
    plies = score.plies_to_end
    if plies is None:
        return f"cp {score.value}"
    return f"{'win' if score.is_win else 'loss'} {plies}"


@dataclass(frozen=True, slots=True)
class Info:
    """An ``info`` line as the client reads it."""

    depth: int
    seldepth: int
    score: Score
    nodes: int
    nps: int
    milliseconds: int
    pv: tuple[str, ...]
    is_book: bool = False
    """The engine played the move from its book (``book`` in the line)."""


def parse_info(line: str) -> Info:
    """An engine's ``info`` line.

    >>> parse_info("info depth 3 seldepth 5 score win 7 nodes 900 nps 90000 time 10 pv 11-15")
    Info(depth=3, seldepth=5, score=Score(value=29993), nodes=900, nps=90000, milliseconds=10, \
pv=('11-15',), is_book=False)

    :raises EngineError: the line is malformed.
    """
    words = line.split()
    numbers: dict[str, int] = {}
    score = Score(0)
    pv: tuple[str, ...] = ()
    is_book = False
    index = 1
    try:
        while index < len(words):
            word = words[index]
            if word == "pv":
                pv = tuple(words[index + 1:])
                break
            if word == "book":
                is_book = True
                index += 1
                continue
            if word == "score" and words[index + 1] == "table":
                score = Score(TABLE_WIN if words[index + 2] == "win" else -TABLE_WIN)
                index += 3
                continue
            if word == "score":
                kind, value = words[index + 1], int(words[index + 2])
                score = {"cp": Score(value), "win": Score(MATE - value),
                         "loss": Score(-(MATE - value))}[kind]
                index += 3
                continue
            numbers[word] = int(words[index + 1])
            index += 2
    except (IndexError, KeyError, ValueError):
        raise EngineError(f"malformed info line: {line!r}") from None
    return Info(numbers.get("depth", 0), numbers.get("seldepth", 0), score,
                numbers.get("nodes", 0), numbers.get("nps", 0), numbers.get("time", 0), pv,
                is_book)
