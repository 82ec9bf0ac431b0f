"""Read PDN: the games of a file or stream one at a time, as real files write them.

The reader takes a line at a time, so reading the first game of a huge file
reads only that game's lines. It accepts what PDN files in the wild contain:

- UTF-8 or Latin-1 text (decided line by line), with or without a byte-order mark,
  and UTF-16 text that starts with its byte-order mark;
- move numbers ``1.`` and ``1...`` (also ``1.11-15``), or none at all;
- moves in full path (``9x18x27``) or short form (``9x27``), resolved against the
  position; ``x``, ``X``, ``-`` and ``:`` as separators, a king's jump written
  with hyphens (``1-10-3-12``), ``10x15`` written for a plain move;
- ``{...}`` comments over several lines, ``;`` comments to the end of the line,
  ``%`` lines (skipped), ``$n`` NAGs and the marks ``!`` ``?`` ``!!`` ``??``
  ``!?`` ``?!``, nested variations in parentheses;
- ``1-0``, ``0-1``, ``1/2-1/2`` and ``*`` as the end of a game (under GameType
  21, ``1-0`` means Black, who moves first, won); a start position from a
  ``FEN`` tag, with or without ``SetUp``; any tags beyond the standard ones.

By default the reader is lenient: a problem is recorded in the game (with its
line and column, see :attr:`Game.errors`), the rest of a line of play after an
illegal move is skipped, and the next game is read as usual. With
``strict=True`` the first problem raises :class:`~doublecorner.errors.PdnError`
instead. A move where the side to move has none left and a ``Result`` tag
that disagrees with the result of the movetext are problems too; moves after a
threefold repetition or 40 moves without a man move or capture are not, since
those draws end a game only when a player claims them (the ``Result`` tag says
how it ended). Nothing else escapes from
reading text; a stream that is no text at all (bytes with a NUL among them, a
line of over :data:`MAX_LINE_CHARACTERS`) raises :class:`NotPdnError` in either
mode.

>>> import io
>>> text = '''[Event "Demo"]
... [Black "Tinsley"]
...
... 1. 11-15 23-19 {the Old Fourteenth} 2. 8-11 (2. 9-14?! 22-17) 22-17 1/2-1/2
... '''
>>> game = read_game(io.StringIO(text))
>>> game.headers["Black"], game.result, len(game.mainline_moves())
('Tinsley', '1/2-1/2', 4)
>>> game.variations[0].variations[0].comment
'the Old Fourteenth'
>>> bad = read_game(io.StringIO("1. 11-15 11-16 *"))
>>> bad.errors  # doctest: +ELLIPSIS
[PdnError("line 1, column 10: illegal move '11-16' in ...")]
>>> read_game(io.StringIO("1. 11-15 11-16 *"), strict=True)
Traceback (most recent call last):
...
doublecorner.errors.PdnError: line 1, column 10: illegal move '11-16' in ...
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Iterator
from typing import IO, Any, TypeVar, overload

from doublecorner.board import Board
from doublecorner.errors import DraughtsError, PdnError, quoted
from doublecorner.move import Move
from doublecorner.pdn.game import Game, GameBuilder
from doublecorner.pdn.nags import MAX_NAG, nag_of_mark
from doublecorner.pdn.tags import GAME_TYPE, RESULTS, TWO_POINT_RESULTS
from doublecorner.pdn.visitor import SKIP, Visitor

ResultT = TypeVar("ResultT")
Source = IO[str] | IO[bytes]

MAX_LINE_CHARACTERS = 1 << 20  # no PDN writer makes a line this long; /dev/zero is one line
_UTF16_MARKS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_CHUNK = 1 << 16


class NotPdnError(PdnError):
    """A stream that is not PDN text at all (binary data), raised even by a lenient reader."""

# One token of movetext after optional space. The alternatives are tried in
# order: a result (1-0) before a move, a move number (1.) before a move; the
# last one takes any character, so every position matches. The results of
# games scored out of two (2-0, 1-1, 0-2, 0-0) end a game too, so that a file
# of another game type is still cut into its games.
_SCORES = "|".join(re.escape(result) for result in (*RESULTS, *TWO_POINT_RESULTS)
                   if result != "*")
_TOKEN = re.compile(rf"""\s*(?:
    (?P<result>(?:{_SCORES})(?=[\s{{}}();]|$)|\*)
  | (?P<move>(\d+(?:[-xX:]\d+)+)([!?]*))(?=[\s{{}}();$]|$)
  | (?P<number>\d+\s*\.+)
  | (?P<end>$)
  | (?P<comment>\{{)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<nag>\$\d*)
  | (?P<mark>[!?]+)
  | (?P<dots>\.+)
  | (?P<line_comment>;)
  | (?P<junk>[^\s{{}}();]+|.)
)""", re.VERBOSE | re.DOTALL)
_MOVE_TEXT = _TOKEN.groupindex["move"] + 1
_MOVE_MARK = _MOVE_TEXT + 1
_TAG = re.compile(r'\[\s*([^\s"\]]+)\s*"((?:[^"\\]|\\.)*)"\s*\]')
_ESCAPED = re.compile(r"\\(.)")
_NOT_SPACE = re.compile(r"\S")


class _Line:
    """A line of play being read: a variation, or the main line at the bottom."""

    __slots__ = ("column", "is_live", "is_visited", "line", "plies", "replaced")

    def __init__(self, *, is_live: bool, line: int = 0, column: int = 0) -> None:
        self.is_live = is_live  # moves are replayed and visited (not after an error or a skip)
        self.is_visited = False  # the visitor saw begin_variation, so it must see the end
        self.plies = 0  # moves made on the board in this line
        self.replaced: Move | None = None  # the move taken back to play this variation
        self.line = line
        self.column = column


class PdnReader:
    """The games of a PDN stream, read one at a time.

    ``source`` is a text stream, or a binary one whose lines are decoded as
    UTF-8, else Latin-1. Iterating gives :class:`Game` objects;
    :meth:`read_game` takes a visitor for other uses.

    >>> import io
    >>> reader = PdnReader(io.BytesIO(b'[Black "M\\xfcller"]\\n1. 9-14 *\\n\\n1. 11-15 1-0\\n'))
    >>> [(game.headers.get("Black"), game.result) for game in reader]
    [('Müller', '*'), (None, '1-0')]
    """

    def __init__(self, source: Source, *, strict: bool = False) -> None:
        self._lines = _text_lines(source)
        self._strict = strict
        self._text = ""
        self._pos = 0
        self._line_number = 0
        self._result_place = (0, 0)  # the line and column of the last result read

    @property
    def line_number(self) -> int:
        """The number of the line the reader is on (1 for the first; 0 before reading)."""
        return self._line_number

    def __iter__(self) -> Iterator[Game]:
        while (game := self.read_game()) is not None:
            yield game

    @overload
    def read_game(self) -> Game | None: ...

    @overload
    def read_game(self, visitor: Visitor[ResultT]) -> ResultT | None: ...

    def read_game(self, visitor: Visitor[Any] | None = None) -> Any:
        """Read the next game and return what the visitor made of it; ``None`` at the end.

        The visitor defaults to a :class:`GameBuilder`. In lenient mode a problem
        goes to ``visitor.handle_error``: the game builder records it, the
        :class:`Visitor` default raises it.

        :raises PdnError: in strict mode, at the first problem, naming its line and column.
        """
        if visitor is None:
            visitor = GameBuilder()
        start = self._skip_to_game()
        if start is None:
            return None
        comments, open_comment = start
        skip_game = visitor.begin_game() is SKIP
        if open_comment is not None:  # the stream ended inside it: all there is to read
            self._unclosed_comment(visitor, *open_comment, skip=skip_game)
            if not skip_game:
                visitor.end_game()
            return visitor.result()
        setup_tags = self._read_headers(visitor, skip=skip_game)
        skip_moves = skip_game or visitor.end_headers() is SKIP
        board = None
        if not skip_moves:
            board = self._start_board(visitor, setup_tags)
            for comment in comments:
                visitor.visit_comment(comment)
        result = self._read_movetext(visitor, board, skip=skip_moves)
        tagged = setup_tags.get("Result")
        if result is not None and tagged is not None and tagged[0].strip() != result:
            self._error(visitor, f"the Result tag says {quoted(tagged[0])}, the moves end with "
                        f"{result!r}", *self._result_place, skip=skip_moves)
        if not skip_game:
            if result is not None:
                visitor.visit_result(result)
            visitor.end_game()
        return visitor.result()

    # -- lines -----------------------------------------------------------------

    def _next_line(self, *, in_comment: bool = False) -> bool:
        """Move to the next line, skipping ``%`` lines outside comments; ``False`` at the end."""
        for text in self._lines:
            self._line_number += 1
            if text.startswith("%") and not in_comment:
                continue  # an escape line: private data of some program, never PDN
            self._text, self._pos = text, 0
            return True
        self._text, self._pos = "", 0
        return False

    def _skip_space(self) -> bool:
        """Move to the next character that is not a space; ``False`` at the end of the stream."""
        while True:
            found = _NOT_SPACE.search(self._text, self._pos)
            if found is not None:
                self._pos = found.start()
                return True
            if not self._next_line():
                return False

    def _error(self, visitor: Visitor[Any], message: str, line: int, column: int,
               *, skip: bool = False) -> None:
        if skip:
            return
        error = PdnError(message, line=line, column=column)
        if self._strict:
            raise error
        visitor.handle_error(error)

    def _comment_text(self) -> str | None:
        """The ``{...}`` comment whose brace was just passed, spaces collapsed.

        ``None`` if the stream ends before its ``}``.
        """
        end = self._text.find("}", self._pos)
        if end >= 0:
            body = self._text[self._pos:end]
            self._pos = end + 1
            return " ".join(body.split())
        parts = [self._text[self._pos:]]
        while self._next_line(in_comment=True):
            end = self._text.find("}")
            if end >= 0:
                parts.append(self._text[:end])
                self._pos = end + 1
                return " ".join(" ".join(parts).split())
            parts.append(self._text)
        return None

    def _unclosed_comment(self, visitor: Visitor[Any], line: int, column: int, *,
                          skip: bool) -> None:
        self._error(visitor, "a comment opened with '{' is never closed with '}'", line, column,
                    skip=skip)

    # -- a game ------------------------------------------------------------------

    def _skip_to_game(self) -> tuple[list[str], tuple[int, int] | None] | None:
        """Move to the start of the next game; ``None`` if there is none.

        Returns the comments before the game and, if one of them is never
        closed, the line and column of its brace.
        """
        comments: list[str] = []
        while self._skip_space():
            char = self._text[self._pos]
            if char == "{":
                brace = (self._line_number, self._pos + 1)
                self._pos += 1
                comment = self._comment_text()
                if comment is None:
                    return comments, brace
                if comment:
                    comments.append(comment)
            elif char == ";":
                comment = " ".join(self._text[self._pos + 1:].split())
                if comment:
                    comments.append(comment)
                self._pos = len(self._text)
            else:
                return comments, None
        return None

    def _read_headers(self, visitor: Visitor[Any], *,
                      skip: bool) -> dict[str, tuple[str, int, int]]:
        """Read the tag pairs; returns the ``FEN``, ``GameType`` and ``Result`` tags with
        their places."""
        setup_tags: dict[str, tuple[str, int, int]] = {}
        while self._skip_space() and self._text[self._pos] == "[":
            while self._pos < len(self._text) and self._text[self._pos] == "[":
                match = _TAG.match(self._text, self._pos)
                if match is None:
                    self._error(visitor, f"malformed tag {self._text[self._pos:].strip()!r} "
                                "(expected [Name \"value\"])", self._line_number,
                                self._pos + 1, skip=skip)
                    self._pos = len(self._text)
                    break
                name, value = match.group(1), _ESCAPED.sub(r"\1", match.group(2))
                if name in ("FEN", "GameType", "Result"):
                    setup_tags[name] = (value, self._line_number, self._pos + 1)
                if not skip:
                    visitor.visit_header(name, value)
                self._pos = match.end()
        return setup_tags

    def _start_board(self, visitor: Visitor[Any],
                     setup_tags: dict[str, tuple[str, int, int]]) -> Board | None:
        """The board to replay the moves on, or ``None`` if the tags forbid it (an error)."""
        game_type = setup_tags.get("GameType")
        if game_type is not None and game_type[0].split(",")[0].strip() != GAME_TYPE:
            self._error(visitor, f"GameType {game_type[0]!r} is not English draughts "
                        f"({GAME_TYPE}); its moves are not read", *game_type[1:])
            return None
        fen = setup_tags.get("FEN")
        if fen is None:
            return Board()
        try:
            return Board(fen[0])
        except (DraughtsError, ValueError) as error:  # ValueError: a number too long for int()
            self._error(visitor, f"bad FEN tag: {error}", *fen[1:])
            return None

    def _read_movetext(self, visitor: Visitor[Any], board: Board | None, *,
                       skip: bool) -> str | None:
        """Read moves up to the game's result and return it (``None`` if there is none)."""
        lines = [_Line(is_live=board is not None)]
        line = lines[0]
        text, pos = self._text, self._pos
        last_line, last_column = self._line_number, pos + 1  # just after the last token
        while True:
            match = _TOKEN.match(text, pos)
            assert match is not None  # the last alternative matches any character
            kind = match.lastgroup or "junk"  # every alternative is a named group
            if kind == "end":
                self._pos = len(text)
                if not self._skip_space() or self._text[self._pos] == "[":
                    break  # the end, or the next game's tags: this game has no result
                text, pos = self._text, self._pos
                continue
            pos = match.end()
            last_line, last_column = self._line_number, pos + 1
            if kind == "move":
                if line.is_live:
                    assert board is not None  # a live line has a board
                    self._play(visitor, board, line, match)
            elif kind == "number" or kind == "dots":
                continue
            elif kind == "comment":
                brace = (self._line_number, pos)
                self._pos = pos
                comment = self._comment_text()
                if comment is None:
                    self._unclosed_comment(visitor, *brace, skip=skip)
                    break
                text, pos = self._text, self._pos
                last_line, last_column = self._line_number, pos + 1
                if comment and line.is_live:
                    visitor.visit_comment(comment)
            elif kind == "line_comment":
                comment = " ".join(text[pos:].split())
                pos = len(text)
                if comment and line.is_live:
                    visitor.visit_comment(comment)
            elif kind == "open":
                line = self._open_variation(visitor, board, line, pos, skip=skip)
                lines.append(line)
            elif kind == "close":
                if len(lines) == 1:
                    self._error(visitor, "')' closes no variation", self._line_number, pos,
                                skip=skip)
                    continue
                self._close_variation(visitor, board, lines.pop())
                line = lines[-1]
            elif kind == "result":
                self._text, self._pos = text, pos
                self._result_place = (self._line_number, match.start(kind) + 1)
                if len(lines) > 1:
                    self._error(visitor, f"result {match.group(kind)!r} inside a variation",
                                self._line_number, match.start(kind) + 1, skip=skip)
                    while len(lines) > 1:
                        self._close_variation(visitor, board, lines.pop())
                return match.group(kind)
            elif kind == "nag" or kind == "mark":
                if line.is_live:
                    self._annotate(visitor, line, match.group(kind), match.start(kind) + 1)
            else:  # junk
                self._error(visitor, f"unexpected {match.group(kind)!r} in the moves",
                            self._line_number, match.start(kind) + 1, skip=skip)
        while len(lines) > 1:
            open_line = lines.pop()
            self._error(visitor, "'(' opens a variation that is never closed",
                        open_line.line, open_line.column, skip=skip)
            self._close_variation(visitor, board, open_line)
        self._error(visitor, "the game has no result (1-0, 0-1, 1/2-1/2 or *) at its end",
                    last_line, last_column, skip=skip)
        return None

    def _play(self, visitor: Visitor[Any], board: Board, line: _Line,
              match: re.Match[str]) -> None:
        """Resolve the move of ``match`` on ``board``, visit it and make it."""
        # A record never ends on a draw nobody claimed (a repetition, the 40-move
        # rule): the players went on, and so does the reader. After the last
        # legal move, parse_move refuses the next.
        try:
            move = board.parse_move(match.group(_MOVE_TEXT))
        except DraughtsError as error:
            self._error(visitor, str(error), self._line_number, match.start(_MOVE_TEXT) + 1)
            line.is_live = False  # the rest of this line cannot be replayed
            return
        visitor.visit_move(board, move)
        board.push(move)
        line.plies += 1
        mark = match.group(_MOVE_MARK)
        if mark:
            self._annotate(visitor, line, mark, match.end(_MOVE_TEXT) + 1)

    def _open_variation(self, visitor: Visitor[Any], board: Board | None, parent: _Line,
                        column: int, *, skip: bool) -> _Line:
        line = _Line(is_live=False, line=self._line_number, column=column)
        if not parent.is_live:
            return line
        if parent.plies == 0:
            self._error(visitor, "a variation must follow the move it replaces",
                        self._line_number, column, skip=skip)
            return line
        if visitor.begin_variation() is SKIP:
            return line
        assert board is not None  # a live line has a board
        line.is_live = line.is_visited = True
        line.replaced = board.pop()
        return line

    def _close_variation(self, visitor: Visitor[Any], board: Board | None, line: _Line) -> None:
        if line.replaced is not None:
            assert board is not None  # only a live line replaces a move
            for _ in range(line.plies):
                board.pop()
            board.push(line.replaced)
        if line.is_visited:
            visitor.end_variation()

    def _annotate(self, visitor: Visitor[Any], line: _Line, text: str, column: int) -> None:
        """Visit a ``$n`` NAG or a move mark (``!?``) as a NAG of the last move."""
        if line.plies == 0:
            self._error(visitor, f"{text!r} comes before any move it could annotate",
                        self._line_number, column)
            return
        if text.startswith("$"):
            digits = text[1:]
            nag = int(digits) if digits and len(digits) <= 3 else None
            if nag is None or nag > MAX_NAG:
                self._error(visitor, f"bad NAG {text!r} (expected $0 to ${MAX_NAG})",
                            self._line_number, column)
                return
        else:
            nag = nag_of_mark(text)
            if nag is None:
                self._error(visitor, f"unknown move mark {text!r} (expected ! ? !! ?? !? or ?!)",
                            self._line_number, column)
                return
        visitor.visit_nag(nag)


def _text_lines(source: Source) -> Iterator[str]:
    """The lines of ``source`` without their line ends.

    Bytes are decoded as UTF-8, else Latin-1, line by line; UTF-16 when the
    stream starts with its byte-order mark.

    :raises NotPdnError: a NUL byte, or a line longer than :data:`MAX_LINE_CHARACTERS`.
    """
    first = source.readline(MAX_LINE_CHARACTERS + 1)
    if isinstance(first, bytes) and first.startswith(_UTF16_MARKS):
        lines: Iterator[str | bytes] = _utf16_lines(first, source)  # type: ignore[arg-type]
    else:
        lines = _read_lines(first, source)
    for number, line in enumerate(lines, start=1):
        newline = "\n" if isinstance(line, str) else b"\n"
        if len(line) > MAX_LINE_CHARACTERS and not line.endswith(newline):  # type: ignore[arg-type]
            raise NotPdnError(f"not a PDN file: line {number} is longer than "
                              f"{MAX_LINE_CHARACTERS:,} characters", line=number, column=1)
        if isinstance(line, bytes):
            if b"\0" in line:  # text files have none; executables and images are full of them
                raise NotPdnError("not a PDN file: it holds binary data (a NUL byte)",
                                  line=number, column=line.index(b"\0") + 1)
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                text = line.decode("latin-1")  # never fails: every byte is a character
        else:
            text = line
        if number == 1:
            text = text.removeprefix("\ufeff")  # the byte-order mark, in either encoding
        yield text.rstrip("\r\n")


def _read_lines(first: str | bytes, source: Source) -> Iterator[str | bytes]:
    """``first``, then the lines of ``source``, none longer than the limit allows."""
    line = first
    while line:
        yield line
        line = source.readline(MAX_LINE_CHARACTERS + 1)


def _utf16_lines(first: bytes, source: IO[bytes]) -> Iterator[str]:
    """The lines of a UTF-16 stream whose first bytes, its mark, are in ``first``."""
    decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
    pending = decoder.decode(first)
    while True:
        chunk = source.read(_CHUNK)
        pending += decoder.decode(chunk, final=not chunk)
        *complete, pending = pending.split("\n")
        for line in complete:
            yield line + "\n"
        if len(pending) > MAX_LINE_CHARACTERS:
            yield pending
            return
        if not chunk:
            if pending:
                yield pending
            return


@overload
def read_game(source: Source, *, strict: bool = False) -> Game | None: ...


@overload
def read_game(source: Source, *, strict: bool = False,
              visitor: Visitor[ResultT]) -> ResultT | None: ...


def read_game(source: Source, *, strict: bool = False,
              visitor: Visitor[Any] | None = None) -> Any:
    """Read one game from ``source`` (a text or binary stream); ``None`` if none is left.

    With a ``visitor``, returns what it made of the game instead of a
    :class:`Game`. The stream is left after the line that holds the game's
    result (the rest of that line is not read again); to read every game of a
    stream use :func:`iter_games` or :class:`PdnReader`.

    :raises PdnError: in strict mode, at the first problem, naming its line and column.
    """
    reader = PdnReader(source, strict=strict)
    return reader.read_game() if visitor is None else reader.read_game(visitor)


def iter_games(source: str | os.PathLike[str] | Source, *,
               strict: bool = False) -> Iterator[Game]:
    """The games of a PDN file (given by its path) or stream, one at a time.

    A file opened here is closed when the iteration ends.

    :raises OSError: the file cannot be opened or read.
    :raises PdnError: in strict mode, at the first problem, naming its line and column.
    """
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as handle:
            yield from PdnReader(handle, strict=strict)
    else:
        yield from PdnReader(source, strict=strict)
