"""Write games as standard PDN: the seven tags, GameType 21, short-form moves, wrapped lines.

:class:`StringExporter` is a visitor: ``game.accept(StringExporter())`` (or
``str(game)``) writes a game tree with its comments, NAGs and variations;
:func:`~doublecorner.pdn.game.write_game` writes a plain list of moves. The
writer knows no game tree, only the visits: the tree imports it, not the
other way round.

>>> import io
>>> from doublecorner.pdn import read_game
>>> game = read_game(io.StringIO("1. 11-15 22-18 2. 15x22 {forced} 2... 25x18 *"))
>>> print(game.accept(StringExporter(columns=None)))  # doctest: +ELLIPSIS
[Event "?"]
...
[GameType "21"]
<BLANKLINE>
1. 11-15 22-18 2. 15x22 {forced} 2... 25x18 *
<BLANKLINE>
"""

from __future__ import annotations

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.errors import AmbiguousMoveError, DraughtsError
from doublecorner.move import Move
from doublecorner.outcome import Outcome
from doublecorner.pdn.nags import mark_of_nag
from doublecorner.pdn.tags import (
    GAME_TYPE,
    RESULTS,
    SEVEN_TAG_ROSTER,
    TWO_POINT_RESULTS,
    UNKNOWN_DATE,
)
from doublecorner.pdn.visitor import SKIP, Skip, Visitor
from doublecorner.position import Position

LINE_WIDTH = 79
_LINE_END = "\n"  # ends a unit of movetext that must end its line


def result_text(outcome: Outcome | None) -> str:
    """The PDN result of a game: ``1-0`` (Black won), ``0-1``, ``1/2-1/2`` or ``*``."""
    return "*" if outcome is None else outcome.result()


def move_text(board: Board, move: Move) -> str:
    """``move`` as PDN writes it: the short form (``9x27``) unless that is ambiguous here.

    >>> board = Board("W:W18:B14")
    >>> move_text(board, board.parse_move("18x9"))
    '18x9'
    """
    path = move.path
    short = f"{path[0]}{'x' if move.is_capture else '-'}{path[-1]}"
    try:
        if board.parse_move(short) == move:
            return short
    except AmbiguousMoveError:
        pass
    return str(move)


class StringExporter(Visitor[str]):
    """A visitor that writes the game it walks as PDN text, ending in a newline.

    The seven standard tags come first (a missing one as ``?``), then
    ``GameType``, ``SetUp`` and ``FEN`` (canonical) for a game from a set-up
    position, then the other tags in their order. Moves are in short form
    unless that is ambiguous; Black's moves carry the move number, White's
    carry ``N...`` where a comment or variation comes between. NAGs 1-6 are
    written as marks (``11-15!?``), others as ``$n``. Lines are wrapped at
    ``columns`` (``None``: not at all); ``comments=False`` and
    ``variations=False`` leave those out.
    """

    def __init__(self, *, columns: int | None = LINE_WIDTH, comments: bool = True,
                 variations: bool = True) -> None:
        self.columns = columns
        self.comments = comments
        self.variations = variations
        self._text = ""
        self.begin_game()

    def begin_game(self) -> None:
        self._headers: dict[str, str] = {}
        self._tokens: list[str] = []
        # Where the variations' own parentheses are: a comment may hold a lone "(" or ")".
        self._parentheses: set[int] = set()
        self._ply = 0  # plies from a position with Black to move, so 1. is Black's move
        self._variation_plies: list[int] = []
        self._needs_number = True
        self._markable = -1  # the index of a move token that has no mark yet
        self._result = "*"

    def visit_header(self, name: str, value: str) -> None:
        self._headers[name] = value

    def end_headers(self) -> None:
        self._ply = 1 if self._headers.get("FEN", "B").strip().upper().startswith("W") else 0

    def visit_move(self, board: Board, move: Move) -> None:
        number = self._ply // 2 + 1
        text = move_text(board, move)
        # A move number stays on the line of its move.
        if board.turn is Color.BLACK:
            text = f"{number}. {text}"
        elif self._needs_number:
            text = f"{number}... {text}"
        self._tokens.append(text)
        self._markable = len(self._tokens) - 1
        self._ply += 1
        self._needs_number = False

    def visit_nag(self, nag: int) -> None:
        mark = mark_of_nag(nag)
        if mark is not None and self._markable == len(self._tokens) - 1:
            self._tokens[-1] += mark
            self._markable = -1
        else:
            self._tokens.append(f"${nag}")

    def visit_comment(self, comment: str) -> None:
        text = " ".join(comment.split())
        if not (self.comments and text):
            return
        if "}" in text:  # it would end a {...} comment early: a ";" comment runs to the line end
            self._tokens.append(f"; {text}{_LINE_END}")
        else:
            self._tokens.extend(f"{{{text}}}".split(" "))  # a comment may break at its spaces
        self._needs_number = True

    def begin_variation(self) -> Skip | None:
        if not self.variations:
            return SKIP
        self._parentheses.add(len(self._tokens))
        self._tokens.append("(")
        self._variation_plies.append(self._ply)
        self._ply -= 1  # the variation replaces the move just written
        self._needs_number = True
        return None

    def end_variation(self) -> None:
        self._parentheses.add(len(self._tokens))
        self._tokens.append(")")
        self._ply = self._variation_plies.pop()
        self._needs_number = True

    def visit_result(self, result: str) -> None:
        # A Result tag of any other text still ends the moves with a result a reader knows;
        # spaces round it are the reader's to forgive (it compares the tag stripped).
        result = result.strip()
        self._result = result if result in RESULTS or result in TWO_POINT_RESULTS else "*"

    def end_game(self) -> None:
        headers = self._ordered_headers()
        tags = "".join(f'[{name} "{_escape(value)}"]\n' for name, value in headers.items())
        movetext = _wrap(_glue_parentheses([*self._tokens, self._result], self._parentheses),
                         self.columns)
        self._text = f"{tags}\n{movetext}\n"

    def result(self) -> str:
        return self._text

    def _ordered_headers(self) -> dict[str, str]:
        given = self._headers
        headers = {name: given.get(name, "?") for name in SEVEN_TAG_ROSTER}
        if "Date" not in given:
            headers["Date"] = UNKNOWN_DATE
        headers["Result"] = given.get("Result", self._result)  # even "?" or a typo: kept
        headers["GameType"] = given.get("GameType", GAME_TYPE)
        if "FEN" in given:
            headers["SetUp"] = "1"
            try:
                headers["FEN"] = Position.from_fen(given["FEN"]).fen()
            except (DraughtsError, ValueError):  # written as given: not ours to fix
                headers["FEN"] = given["FEN"]
        for name, value in given.items():
            headers.setdefault(name, value)
        return headers


def _escape(value: str) -> str:
    """A tag value between quotes: backslash and quote escaped, line breaks made spaces."""
    value = value.replace("\r", " ").replace("\n", " ")
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _glue_parentheses(units: list[str], parentheses: set[int]) -> list[str]:
    """The units with each variation's ``(`` joined to the next unit and its ``)`` to the last.

    ``parentheses`` are the indices of the variations' own parentheses; a
    parenthesis that is a word of a comment is left as it is.
    """
    glued: list[str] = []
    opening = False
    for index, unit in enumerate(units):
        # A ")" stays off a unit that ends its line: that is a ";" comment, which would take it.
        closing = (index in parentheses and unit == ")" and glued
                   and not glued[-1].endswith(_LINE_END))
        if opening or closing:
            glued[-1] += unit
        else:
            glued.append(unit)
        opening = index in parentheses and unit == "("
    return glued


def _wrap(units: list[str], columns: int | None) -> str:
    """The units joined by spaces, in lines of at most ``columns`` (``None``: one line).

    A longer unit stands alone; a unit ending in a line break ends its line.
    """
    lines: list[str] = []
    line = ""
    for unit in units:
        ends_line = unit.endswith(_LINE_END)
        unit = unit.removesuffix(_LINE_END)
        if line and columns is not None and len(line) + 1 + len(unit) > columns:
            lines.append(line)
            line = unit
        else:
            line = f"{line} {unit}" if line else unit
        if ends_line:
            lines.append(line)
            line = ""
    if line:
        lines.append(line)
    return "\n".join(lines)
