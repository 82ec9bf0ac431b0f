"""SVG pictures of a board: pure functions that return the drawing as a string.

Four styles. :attr:`Style.TOURNAMENT` draws the board as the rules describe the
real thing: green playing squares, buff light squares, and flat discs seen from
above, red for Black and white for White. :attr:`Style.WOOD` and
:attr:`Style.SLATE` are the same board in other colours (brown wood, blue and
grey). :attr:`Style.BOOK` draws a diagram as checkers books print one. A king
wears a crown (:attr:`Kings.CROWNED`), or is two men stacked as on a real board
(:attr:`Kings.STACKED`): seen from above, the lower man shows below the upper.

**The book convention.** Books print the playing squares light and shade the
others, "for the sake of clearness" (Encyclopaedia Britannica, 11th edition,
1911, *Draughts*: "In printed diagrams the men are usually shown on the white
squares ... but in actual play the black squares are generally used"; Jim Loy,
*The Numbered Board*: "in checkers diagrams the pieces are on the light squares,
to enhance readability"). Nothing else moves: the Britannica's numbered diagram
keeps square 1 second from the left in Black's row, so each player still has a
playing square in the near left corner and the double corner on the near right.
The book style therefore exchanges the two colours of the board instead of
moving the pieces: a piece stands on the same spot of the picture in both
styles, and in a book diagram that spot is light. Moving the pieces onto the
neighbouring light squares would draw a different board: shifted by a file the
diagonals break apart, and mirrored the single corner goes to the right and
square 1 to the top right corner, a layout no reader of the notation knows.
Books print in ink, so the pieces are black and white there.

Every element that tests or style sheets may look for has a class:
``square playing`` (with ``data-square``) and ``square unused``, ``piece black
man`` / ``piece white king`` (a group holding the disc and, for a king, a
``crown`` or the ``lower`` disc under it), ``coordinate``, ``last-move``,
``highlight`` and ``arrow``.
Output is deterministic and uses no ``id``, so that several boards can share
one HTML page (as in a Jupyter notebook).

>>> from doublecorner import Board
>>> picture = board(Board(), size=200, coordinates=Coordinates.ALGEBRAIC)
>>> picture.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
True
>>> picture.count('class="piece black man"'), picture.count('class="piece white man"')
(12, 12)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, TypeAlias

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.kernel.bits import square_row_file
from doublecorner.move import Move
from doublecorner.position import Position
from doublecorner.squares import SQUARES, Square, check_square

__all__ = ["Coordinates", "HasBoard", "Kings", "SquarePath", "Style", "board"]

SQUARE_SIZE = 45  # user units per square; ``size`` scales the whole picture
MARGIN = 20  # room for the a-h and 1-8 labels around the board
PIECE_RADIUS = 0.39 * SQUARE_SIZE
# How far each man of a stacked king sits from the square's middle, up and down: the lower
# man's edge shows as a crescent below the upper one, and both stay inside the square.
STACK_OFFSET = 0.06 * SQUARE_SIZE


class Style(Enum):
    """How the board is drawn."""

    TOURNAMENT = "tournament"
    """Green and buff squares, red and white discs: the board players sit at."""
    WOOD = "wood"
    """Brown and pale wood squares, red and white discs."""
    SLATE = "slate"
    """Blue-grey and pale grey squares, red and white discs."""
    BOOK = "book"
    """A book diagram: light playing squares, black and white men printed in ink."""


class Coordinates(Enum):
    """Which labels name the squares (``None`` in :func:`board` draws none)."""

    NUMBERS = "numbers"
    """The standard numbers 1-32 in a corner of each playing square."""
    ALGEBRAIC = "algebraic"
    """Files a-h and ranks 1-8 in a margin around the board."""


class Kings(Enum):
    """How a king is drawn."""

    CROWNED = "crowned"
    """A man with a crown on it."""
    STACKED = "stacked"
    """Two men, one on the other, as a king is made on a real board."""


class HasBoard(Protocol):
    """Anything with a ``board()`` method, such as a node of a game tree."""

    def board(self) -> Board:
        """The board at this point, with the moves that led to it."""
        ...


SquarePath: TypeAlias = Move | Sequence[Square]
"""A move, or the squares it visits: ``(11, 15)`` or ``Move(9, 18, 27)``."""


@dataclass(frozen=True)
class _Palette:
    playing: str
    unused: str
    frame: str
    border: str
    label: str
    number: str
    disc: dict[Color, tuple[str, str]]  # fill and rim
    crown: dict[Color, tuple[str, str]]  # fill and outline
    last_move: str
    highlight: str
    arrow: str


_PALETTES = {
    Style.TOURNAMENT: _Palette(
        playing="#3a7d44", unused="#f0dcaa", frame="#3b2a1a", border="#3b2a1a", label="#f0dcaa",
        number="#f0dcaa",
        disc={Color.BLACK: ("#c62828", "#7f1212"), Color.WHITE: ("#f7f3e8", "#8f8a7a")},
        # Gold reads on both discs and belongs to neither side.
        crown={Color.BLACK: ("#f4c430", "#6b4e00"), Color.WHITE: ("#f4c430", "#6b4e00")},
        last_move="#fff176", highlight="#4fc3f7", arrow="#1565c0"),
    # The red men's rim is darker on wood and slate than on the green: red on these
    # squares is 1.3:1, the rim 3:1 or more (WCAG's 3:1 for a shape on its ground).
    Style.WOOD: _Palette(
        playing="#9a6434", unused="#ecd2a4", frame="#4a2c14", border="#4a2c14", label="#ecd2a4",
        number="#ffffff",
        disc={Color.BLACK: ("#c62828", "#2b0606"), Color.WHITE: ("#f7f3e8", "#8f8a7a")},
        crown={Color.BLACK: ("#f4c430", "#6b4e00"), Color.WHITE: ("#f4c430", "#6b4e00")},
        last_move="#fff176", highlight="#4fc3f7", arrow="#1565c0"),
    Style.SLATE: _Palette(
        playing="#4f6d8a", unused="#d9e1e8", frame="#263545", border="#263545", label="#d9e1e8",
        number="#ffffff",
        disc={Color.BLACK: ("#c62828", "#2b0606"), Color.WHITE: ("#f7f3e8", "#8f8a7a")},
        crown={Color.BLACK: ("#f4c430", "#6b4e00"), Color.WHITE: ("#f4c430", "#6b4e00")},
        last_move="#fff176", highlight="#80deea", arrow="#ef6c00"),
    Style.BOOK: _Palette(
        playing="#ffffff", unused="#a6a6a6", frame="#ffffff", border="#000000", label="#000000",
        number="#6e6e6e",
        disc={Color.BLACK: ("#1a1a1a", "#000000"), Color.WHITE: ("#ffffff", "#000000")},
        crown={Color.BLACK: ("#ffffff", "#ffffff"), Color.WHITE: ("#1a1a1a", "#1a1a1a")},
        last_move="#ffd54f", highlight="#81d4fa", arrow="#d84315"),
}

# The crown, in units of the disc's radius around its centre: a band with three
# points, then a ball on each point (x, y, radius).
_CROWN_OUTLINE = ((-0.5, 0.34), (0.5, 0.34), (0.6, -0.26), (0.27, 0.02), (0.0, -0.38),
                  (-0.27, 0.02), (-0.6, -0.26))
_CROWN_BALLS = ((-0.6, -0.33, 0.09), (0.0, -0.46, 0.09), (0.6, -0.33, 0.09))


def board(source: Board | Position | HasBoard, /, *, size: int | None = 400,
          coordinates: Coordinates | None = Coordinates.NUMBERS, flipped: bool = False,
          style: Style = Style.TOURNAMENT, kings: Kings = Kings.CROWNED,
          last_move: SquarePath | None = None, arrows: Iterable[SquarePath] = (),
          highlight: Iterable[Square] = ()) -> str:
    """An SVG picture of a board, as one string.

    ``source`` is a :class:`~doublecorner.board.Board`, a
    :class:`~doublecorner.position.Position`, or anything whose ``board()``
    returns a Board (a game node calls ``svg.board(self)``). White is at the
    bottom unless ``flipped``. ``size`` sets ``width`` and ``height`` in pixels;
    ``None`` leaves them out, so that the picture fills its container.

    ``last_move`` marks the squares a move visited; when it is ``None`` and
    ``source`` has moves made, the last of them is marked (draw
    ``board.position()`` for a picture without it). ``arrows`` are moves or
    squares to join, a capture drawn along every jump of its path;
    ``highlight`` marks squares. ``kings`` draws kings crowned or stacked.

    >>> from doublecorner import Position
    >>> picture = board(Position.from_fen("W:WK15,20:BK28,12"), style=Style.BOOK,
    ...                 arrows=[(15, 24)], highlight=[19])
    >>> picture.count('class="piece white king"'), picture.count('class="crown"')
    (1, 2)
    >>> '<title>Checkers position W:WK15,20:B12,K28</title>' in picture
    True
    >>> stacked = board(Position.from_fen("W:WK15:B12"), kings=Kings.STACKED)
    >>> stacked.count('class="lower"'), stacked.count('class="crown"')
    (1, 0)

    :raises InvalidSquareError: a square is not in 1-32.
    :raises ValueError: ``size`` is below 1, or an arrow names fewer than two squares.
    :raises TypeError: ``source``, ``style``, ``kings`` or ``coordinates`` has the wrong type.
    """
    position, made = _position_and_last_move(source)
    if last_move is None:
        last_move = made
    if not isinstance(style, Style):
        raise TypeError(f"style must be a Style such as Style.BOOK, not {style!r}")
    if not isinstance(kings, Kings):
        raise TypeError(f"kings must be a Kings such as Kings.STACKED, not {kings!r}")
    if coordinates is not None and not isinstance(coordinates, Coordinates):
        raise TypeError("coordinates must be a Coordinates such as Coordinates.ALGEBRAIC, "
                        f"or None, not {coordinates!r}")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
        raise ValueError(f"size must be a whole number of pixels, 1 or more, not {size!r}")
    marked = [] if last_move is None else list(_path(last_move))
    arrow_paths = [_path(arrow) for arrow in arrows]
    lit = [check_square(square) for square in highlight]

    palette = _PALETTES[style]
    grid = _Grid(MARGIN if coordinates is Coordinates.ALGEBRAIC else 0, flipped)
    side = 8 * SQUARE_SIZE + 2 * grid.margin
    dimensions = "" if size is None else f' width="{size}" height="{size}"'
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {side} {side}"'
        f'{dimensions} role="img">',
        f"<title>Checkers position {position.fen()}</title>",
        f"<desc>{_describe(position)}</desc>",
    ]
    if grid.margin:
        parts.append(f'<rect class="frame" x="0" y="0" width="{side}" height="{side}" '
                     f'fill="{palette.frame}"/>')
        parts += _algebraic_labels(grid, palette)
    parts.append(_board_squares(grid, palette))
    parts += _square_marks(grid, marked, "last-move", palette.last_move)
    parts += _square_marks(grid, lit, "highlight", palette.highlight)
    if coordinates is Coordinates.NUMBERS:
        parts += _square_numbers(grid, palette)
    parts += _pieces(grid, palette, position, kings)
    parts.append(_border(grid, palette))
    parts += (_arrow(grid, path, palette.arrow) for path in arrow_paths)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _position_and_last_move(source: object) -> tuple[Position, Move | None]:
    if isinstance(source, Position):
        return source, None
    game_board = source
    if not isinstance(source, Board) and callable(getattr(source, "board", None)):
        game_board = source.board()  # type: ignore[attr-defined]
    if not isinstance(game_board, Board):
        raise TypeError(f"expected a Board, a Position or an object with a board() method, "
                        f"not {source!r}")
    try:
        made: Move | None = game_board.peek()
    except IndexError:  # no move made yet
        made = None
    return game_board.position(), made


def _path(move: SquarePath) -> tuple[Square, ...]:
    if isinstance(move, Move):
        return move.path
    if isinstance(move, str):
        raise TypeError(f"expected a Move or a sequence of squares, not the text {move!r}; "
                        "Move.parse() reads text")
    path = tuple(check_square(square) for square in move)
    if len(path) < 2:
        raise ValueError(f"a move or an arrow joins at least two squares, not {move!r}")
    return path


@dataclass(frozen=True)
class _Grid:
    """Where the squares fall in the picture."""

    margin: int
    flipped: bool

    def corner(self, row: int, file: int) -> tuple[int, int]:
        """The top-left corner of a cell of the board (row 0 is rank 8, file 0 is a)."""
        if self.flipped:
            row, file = 7 - row, 7 - file
        return self.margin + file * SQUARE_SIZE, self.margin + row * SQUARE_SIZE

    def square_corner(self, square: Square) -> tuple[int, int]:
        """The top-left corner of a playing square."""
        return self.corner(*square_row_file(square - 1))

    def centre(self, square: Square) -> tuple[float, float]:
        """The middle of a playing square."""
        x, y = self.square_corner(square)
        return x + SQUARE_SIZE / 2, y + SQUARE_SIZE / 2


def _board_squares(grid: _Grid, palette: _Palette) -> str:
    # One rectangle of the unused colour under the 32 playing squares keeps the
    # picture small; each playing square stays its own element for style sheets.
    side = 8 * SQUARE_SIZE
    rows = [f'<rect class="square unused" x="{grid.margin}" y="{grid.margin}" width="{side}" '
            f'height="{side}" fill="{palette.unused}"/>']
    for square in SQUARES:
        x, y = grid.square_corner(square)
        rows.append(f'<rect class="square playing" data-square="{square}" x="{x}" y="{y}" '
                    f'width="{SQUARE_SIZE}" height="{SQUARE_SIZE}" fill="{palette.playing}"/>')
    return "\n".join(rows)


def _border(grid: _Grid, palette: _Palette) -> str:
    # Drawn over the marks on the edge squares; without it the light edge
    # squares of a printed diagram would run into the page.
    side = 8 * SQUARE_SIZE
    return (f'<rect class="border" x="{grid.margin}" y="{grid.margin}" width="{side}" '
            f'height="{side}" fill="none" stroke="{palette.border}" stroke-width="2"/>')


def _square_marks(grid: _Grid, squares: Iterable[Square], kind: str, colour: str) -> list[str]:
    marks = []
    for square in dict.fromkeys(squares):  # a square visited twice is marked once
        x, y = grid.square_corner(square)
        marks.append(f'<rect class="{kind}" data-square="{square}" x="{x}" y="{y}" '
                     f'width="{SQUARE_SIZE}" height="{SQUARE_SIZE}" fill="{colour}" '
                     'fill-opacity="0.6"/>')
    return marks


def _square_numbers(grid: _Grid, palette: _Palette) -> list[str]:
    # In the top-left corner, under the pieces: a disc hides the middle of its
    # square, so the corner is where the number of an occupied square still shows.
    labels = []
    for square in SQUARES:
        x, y = grid.square_corner(square)
        labels.append(f'<text class="coordinate number" x="{x + 2}" y="{y + 9}" '
                      f'font-family="sans-serif" font-size="8" fill="{palette.number}">'
                      f"{square}</text>")
    return labels


def _algebraic_labels(grid: _Grid, palette: _Palette) -> list[str]:
    labels = []
    bottom = grid.margin + 8 * SQUARE_SIZE
    baseline = 0.35 * 12  # lifts a 12-unit glyph so that its middle sits on the line
    for index in range(8):
        x, y = grid.corner(index, index)
        file_name = "abcdefgh"[index]
        rank_name = str(8 - index)
        labels.append(f'<text class="coordinate file" x="{_num(x + SQUARE_SIZE / 2)}" '
                      f'y="{_num(bottom + grid.margin / 2 + baseline)}" text-anchor="middle" '
                      f'font-family="sans-serif" font-size="12" fill="{palette.label}">'
                      f"{file_name}</text>")
        labels.append(f'<text class="coordinate rank" x="{_num(grid.margin / 2)}" '
                      f'y="{_num(y + SQUARE_SIZE / 2 + baseline)}" text-anchor="middle" '
                      f'font-family="sans-serif" font-size="12" fill="{palette.label}">'
                      f"{rank_name}</text>")
    return labels


def _pieces(grid: _Grid, palette: _Palette, position: Position, kings: Kings) -> list[str]:
    drawn = []
    for square in SQUARES:
        piece = position.piece_at(square)
        if piece is None:
            continue
        cx, cy = grid.centre(square)
        fill, rim = palette.disc[piece.color]
        if not piece.is_king:
            body = _disc(cx, cy, fill, rim)
        elif kings is Kings.STACKED:
            # The lower man first: the upper is painted over it.
            body = (_disc(cx, cy + STACK_OFFSET, fill, rim, ' class="lower"')
                    + _disc(cx, cy - STACK_OFFSET, fill, rim))
        else:
            body = _disc(cx, cy, fill, rim) + _crown(cx, cy, *palette.crown[piece.color])
        kind = "king" if piece.is_king else "man"
        drawn.append(f'<g class="piece {piece.color.name.lower()} {kind}" '
                     f'data-square="{square}">{body}</g>')
    return drawn


def _disc(cx: float, cy: float, fill: str, rim: str, attributes: str = "") -> str:
    return (f'<circle{attributes} cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(PIECE_RADIUS)}" '
            f'fill="{fill}" stroke="{rim}" stroke-width="1.5"/>')


def _crown(cx: float, cy: float, fill: str, outline: str) -> str:
    scale = PIECE_RADIUS

    def point(x: float, y: float) -> str:
        return f"{_num(cx + x * scale)} {_num(cy + y * scale)}"

    outline_path = "M " + " L ".join(point(x, y) for x, y in _CROWN_OUTLINE) + " Z"
    balls = [f"M {point(x - r, y)} a {_num(r * scale)} {_num(r * scale)} 0 1 0 "
             f"{_num(2 * r * scale)} 0 a {_num(r * scale)} {_num(r * scale)} 0 1 0 "
             f"{_num(-2 * r * scale)} 0 Z" for x, y, r in _CROWN_BALLS]
    return (f'<path class="crown" d="{" ".join([outline_path, *balls])}" fill="{fill}" '
            f'stroke="{outline}" stroke-width="1" stroke-linejoin="round"/>')


def _arrow(grid: _Grid, path: tuple[Square, ...], colour: str) -> str:
    points = [grid.centre(square) for square in path]
    head_length, head_width, shaft = 0.45 * SQUARE_SIZE, 0.5 * SQUARE_SIZE, 0.18 * SQUARE_SIZE
    (x0, y0), (x1, y1) = points[-2], points[-1]
    length = math.hypot(x1 - x0, y1 - y0)
    if length == 0:  # an arrow from a square to itself: ring the square instead
        return (f'<circle class="arrow" cx="{_num(x1)}" cy="{_num(y1)}" '
                f'r="{_num(0.45 * SQUARE_SIZE)}" fill="none" stroke="{colour}" '
                f'stroke-width="{_num(shaft / 2)}" stroke-opacity="0.8"/>')
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    # The shaft stops where the head starts, so the two do not overlap and
    # darken where the colour is translucent.
    base_x, base_y = x1 - ux * head_length, y1 - uy * head_length
    shaft_points = [*points[:-1], (base_x, base_y)]
    shaft_path = "M " + " L ".join(f"{_num(x)} {_num(y)}" for x, y in shaft_points)
    half = head_width / 2
    head = " ".join(f"{_num(x)},{_num(y)}" for x, y in (
        (x1, y1), (base_x - uy * half, base_y + ux * half),
        (base_x + uy * half, base_y - ux * half)))
    return (f'<g class="arrow" fill="{colour}" stroke="{colour}" opacity="0.8">'
            f'<path d="{shaft_path}" fill="none" stroke-width="{_num(shaft)}" '
            f'stroke-linecap="butt" stroke-linejoin="round"/>'
            f'<polygon points="{head}" stroke="none"/></g>')


def _describe(position: Position) -> str:
    """The position in words, for screen readers: side to move, then each side's pieces."""
    sentences = [f"{position.turn} to move."]
    for color in Color:
        men: list[str] = []
        kings: list[str] = []
        for square in SQUARES:
            piece = position.piece_at(square)
            if piece is not None and piece.color is color:
                (kings if piece.is_king else men).append(str(square))
        groups = [f"{name} on {', '.join(squares)}"
                  for name, squares in (("men", men), ("kings", kings)) if squares]
        sentences.append(f"{color}: {'; '.join(groups) if groups else 'no pieces'}.")
    return " ".join(sentences)


def _num(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros, the same on every run."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
