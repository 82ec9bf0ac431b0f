"""The game tree: a game's tags, its main line, variations, comments and NAGs.

A :class:`Game` is the root node; every move is a :class:`ChildNode` below it.
A node's first variation continues the main line, the others are
alternatives. Nodes hold moves, never boards: :meth:`GameNode.board` replays
the moves from the start position when asked.

>>> from doublecorner.pdn import nags
>>> game = Game()
>>> node = game.add_variation(Move(11, 15))
>>> reply = node.add_variation(Move(23, 19), comment="the Old Fourteenth awaits")
>>> _ = node.add_variation(Move(22, 17), nags={nags.DUBIOUS_MOVE})
>>> game.mainline_moves()
[Move(11, 15), Move(23, 19)]
>>> reply.ply(), reply.board().turn
(2, <Color.BLACK: 0>)
>>> print(game)  # doctest: +ELLIPSIS
[Event "?"]
...
1. 11-15 23-19 {the Old Fourteenth awaits} (1... 22-17?!) *
<BLANKLINE>
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TypeVar

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.errors import IllegalMoveError, PdnError
from doublecorner.fen import STARTING_FEN
from doublecorner.move import Move
from doublecorner.pdn.tags import GAME_TYPE as GAME_TYPE  # where db.records finds it
from doublecorner.pdn.tags import SEVEN_TAG_ROSTER, UNKNOWN_DATE
from doublecorner.pdn.visitor import SKIP, Visitor
from doublecorner.pdn.writer import StringExporter, result_text
from doublecorner.position import Position

ResultT = TypeVar("ResultT")

_RESULT_WINNERS = {"1-0": Color.BLACK, "0-1": Color.WHITE}


class GameNode:
    """A node of the tree: the game itself (:class:`Game`) or a move (:class:`ChildNode`)."""

    __slots__ = ("comment", "nags", "parent", "starting_comment", "variations")

    parent: GameNode | None
    variations: list[ChildNode]
    comment: str
    """The comment after the move (on the game: the comment before the first move)."""
    starting_comment: str
    """The comment before the move, where it opens a variation."""
    nags: set[int]
    """The NAGs of the move (``!`` is 1, ``?`` 2 ... see :mod:`doublecorner.pdn.nags`)."""

    def __init__(self) -> None:
        self.parent = None
        self.variations = []
        self.comment = ""
        self.starting_comment = ""
        self.nags = set()

    @property
    def move(self) -> Move | None:
        """The move that leads to this node (``None`` for the game)."""
        return None

    # -- where the node is ---------------------------------------------------

    def game(self) -> Game:
        """The game this node belongs to.

        :raises ValueError: the node has been detached from its game.
        """
        node = self
        while node.parent is not None:
            node = node.parent
        if not isinstance(node, Game):
            raise ValueError("the node is not part of a game")
        return node

    def path(self) -> list[Move]:
        """The moves from the start of the game to this node, first to last."""
        moves = []
        node: GameNode = self
        while isinstance(node, ChildNode):
            moves.append(node.move)
            node = node.parent
        moves.reverse()
        return moves

    def ply(self) -> int:
        """How many moves lead here from the start of the game (0 for the game itself)."""
        count = 0
        node = self
        while node.parent is not None:
            count += 1
            node = node.parent
        return count

    def board(self) -> Board:
        """A new board at this node: the game's start position with the moves leading here.

        :raises InvalidFenError: the game's ``FEN`` tag is not a valid FEN.
        :raises IllegalMoveError: a move on the way is not legal (a tree built by hand).
        """
        board = self.game().board()
        for move in self.path():
            board.push(move)
        return board

    def _repr_svg_(self) -> str:
        """The position at this node as SVG, its move marked: how Jupyter shows a node."""
        from doublecorner import svg  # drawing is rare: keep it out of every import

        return svg.board(self)

    def is_main_variation(self) -> bool:
        """Whether this node is its parent's first variation (the game itself is)."""
        return self.parent is None or self.parent.variations[0] is self

    def is_mainline(self) -> bool:
        """Whether this node lies on the game's main line."""
        node: GameNode = self
        while node.parent is not None:
            if node.parent.variations[0] is not node:
                return False
            node = node.parent
        return True

    def is_end(self) -> bool:
        """Whether no move follows this node."""
        return not self.variations

    def next(self) -> ChildNode | None:
        """The main continuation, or ``None`` at the end of a line."""
        return self.variations[0] if self.variations else None

    def end(self) -> GameNode:
        """The last node of the main continuation from here."""
        node = self
        while node.variations:
            node = node.variations[0]
        return node

    def mainline(self) -> Iterator[ChildNode]:
        """The nodes of the main continuation after this one."""
        node = self.next()
        while node is not None:
            yield node
            node = node.next()

    def mainline_moves(self) -> list[Move]:
        """The moves of the main continuation after this node."""
        return [node.move for node in self.mainline()]

    # -- changing the tree ---------------------------------------------------

    def add_variation(self, move: Move, *, comment: str = "", starting_comment: str = "",
                      nags: Iterable[int] = ()) -> ChildNode:
        """Add ``move`` after this node, as the last variation; returns the new node.

        The move is not checked here (that would replay the game for every
        move); :meth:`board`, :meth:`Game.accept` and the writer check it.

        :raises TypeError: ``move`` is not a :class:`~doublecorner.move.Move`.
        """
        if not isinstance(move, Move):
            raise TypeError(f"add_variation() takes a Move, not {move!r}")
        node = ChildNode(self, move, comment=comment, starting_comment=starting_comment,
                         nags=nags)
        self.variations.append(node)
        return node

    def add_main_variation(self, move: Move, *, comment: str = "",
                           nags: Iterable[int] = ()) -> ChildNode:
        """Add ``move`` after this node as its main continuation; returns the new node.

        :raises TypeError: ``move`` is not a :class:`~doublecorner.move.Move`.
        """
        node = self.add_variation(move, comment=comment, nags=nags)
        self.variations.insert(0, self.variations.pop())
        return node

    def add_line(self, moves: Iterable[Move]) -> GameNode:
        """Add ``moves`` one after another from this node; returns the last node.

        :raises TypeError: an item is not a :class:`~doublecorner.move.Move`.
        """
        node: GameNode = self
        for move in moves:
            node = node.add_variation(move)
        return node

    def variation(self, move: Move) -> ChildNode:
        """The variation that starts with ``move``.

        :raises KeyError: no variation starts with it.
        """
        for node in self.variations:
            if node.move == move:
                return node
        raise KeyError(f"no variation starts with {move}")

    def has_variation(self, move: Move) -> bool:
        """Whether a variation starts with ``move``."""
        return any(node.move == move for node in self.variations)

    def promote_to_main(self, move: Move) -> None:
        """Make the variation that starts with ``move`` the main continuation.

        :raises KeyError: no variation starts with it.
        """
        node = self.variation(move)
        self.variations.remove(node)
        self.variations.insert(0, node)

    def remove_variation(self, move: Move) -> None:
        """Remove the variation that starts with ``move``, and all that follows it.

        :raises KeyError: no variation starts with it.
        """
        self.variations.remove(self.variation(move))


class ChildNode(GameNode):
    """A move in the tree, with its annotations."""

    __slots__ = ("_move",)

    parent: GameNode

    def __init__(self, parent: GameNode, move: Move, *, comment: str = "",
                 starting_comment: str = "", nags: Iterable[int] = ()) -> None:
        super().__init__()
        self.parent = parent
        self._move = move
        self.comment = comment
        self.starting_comment = starting_comment
        self.nags = set(nags)

    @property
    def move(self) -> Move:
        """The move that leads to this node."""
        return self._move

    def __repr__(self) -> str:
        return f"<ChildNode {self._move} at ply {self.ply()}>"


class Game(GameNode):
    """A game: its tags, its errors and the tree of its moves.

    ``headers`` keeps every tag in order, unknown ones too. A new game has the
    seven standard tags with unknown values; a game read from a file has the
    tags the file gave. The start position comes from the ``FEN`` tag (with or
    without ``SetUp``), else it is the usual one.

    >>> game = Game.from_board(Board("W:W18:B14"))
    >>> game.headers["FEN"], game.board().turn
    ('W:W18:B14', <Color.WHITE: 1>)
    """

    __slots__ = ("errors", "headers")

    headers: dict[str, str]
    errors: list[PdnError]
    """What a lenient reader found wrong in the text, each with its line and column."""

    def __init__(self, headers: Mapping[str, str] | None = None) -> None:
        super().__init__()
        if headers is None:
            headers = dict.fromkeys(SEVEN_TAG_ROSTER, "?")
            headers.update(Date=UNKNOWN_DATE, Result="*")
        self.headers = dict(headers)
        self.errors = []

    @classmethod
    def from_board(cls, board: Board) -> Game:
        """A game of the moves made on ``board``, from the position before the first of them."""
        history = board.position_history()
        game = cls()
        start = history[0].fen() if history else board.fen()
        if start != STARTING_FEN:
            game.setup(start)
        game.add_line(board.move_stack)
        return game

    def setup(self, fen: str) -> None:
        """Start the game from ``fen``: sets the ``SetUp`` and ``FEN`` tags.

        :raises InvalidFenError: ``fen`` is not a valid FEN.
        """
        fen = Board(fen).fen()
        self.headers["SetUp"] = "1"
        self.headers["FEN"] = fen

    def board(self) -> Board:
        """A new board at the start position of the game.

        :raises InvalidFenError: the ``FEN`` tag is not a valid FEN.
        """
        return Board(self.headers.get("FEN", STARTING_FEN))

    @property
    def result(self) -> str:
        """The ``Result`` tag: ``1-0`` (Black, who moves first, won), ``0-1``, ``1/2-1/2`` or ``*``.

        A game read from a file without the tag takes its result from the end of the moves.
        """
        return self.headers.get("Result", "*")

    def winner(self) -> Color | None:
        """Who won by the ``Result`` tag; ``None`` for a draw or an unknown result."""
        return _RESULT_WINNERS.get(self.result)

    def accept(self, visitor: Visitor[ResultT]) -> ResultT:
        """Walk the game in PDN order, calling ``visitor``; returns ``visitor.result()``.

        Each alternative comes right after the move it replaces, as PDN
        writes it, and the board given with each move is at the position
        before it.

        :raises InvalidFenError: the ``FEN`` tag is not a valid FEN.
        :raises IllegalMoveError: a move of the tree is not legal where it stands.
        """
        if visitor.begin_game() is not SKIP:
            for name, value in self.headers.items():
                visitor.visit_header(name, value)
            if visitor.end_headers() is not SKIP:
                if self.comment:
                    visitor.visit_comment(self.comment)
                _walk(self, self.board(), visitor)
            visitor.visit_result(self.result)
            visitor.end_game()
        return visitor.result()

    def __str__(self) -> str:
        return self.accept(StringExporter())

    def __repr__(self) -> str:
        black, white = self.headers.get("Black", "?"), self.headers.get("White", "?")
        return f"<Game {black!r} vs {white!r}, {len(self.mainline_moves())} plies>"


class _Line:
    """One line being walked: the node reached, moves pushed, alternatives still to visit."""

    __slots__ = ("alternatives", "node", "pending", "pushed")

    def __init__(self, node: GameNode, pushed: int) -> None:
        self.node = node
        self.pushed = pushed
        self.pending: ChildNode | None = None  # visited, not yet made on the board
        self.alternatives: list[ChildNode] = []


def _walk(start: GameNode, board: Board, visitor: Visitor[ResultT]) -> None:
    """Visit the tree below ``start``, with an explicit stack (games nest deeper than Python)."""
    lines = [_Line(start, 0)]
    while lines:
        line = lines[-1]
        if line.alternatives:
            alternative = line.alternatives.pop(0)
            if visitor.begin_variation() is SKIP:
                continue
            _visit_node(alternative, board, visitor)
            board.push(alternative.move)
            lines.append(_Line(alternative, 1))
            continue
        if line.pending is not None:
            board.push(line.pending.move)
            line.node, line.pending = line.pending, None
            line.pushed += 1
        if line.node.variations:
            main, *line.alternatives = line.node.variations
            _visit_node(main, board, visitor)
            line.pending = main
            continue
        for _ in range(line.pushed):
            board.pop()
        lines.pop()
        if lines:
            visitor.end_variation()


def _visit_node(node: ChildNode, board: Board, visitor: Visitor[ResultT]) -> None:
    if node.starting_comment:
        visitor.visit_comment(node.starting_comment)
    visitor.visit_move(board, node.move)
    for nag in sorted(node.nags):
        visitor.visit_nag(nag)
    if node.comment:
        visitor.visit_comment(node.comment)


class GameBuilder(Visitor[Game]):
    """The visitor that builds a :class:`Game`; it records errors in ``game.errors``."""

    def __init__(self) -> None:
        self.game = Game({})
        self._node: GameNode = self.game
        self._variation_stack: list[GameNode] = []
        self._starting_comments: list[str] | None = None

    def begin_game(self) -> None:
        self.game = Game({})
        self._node = self.game
        self._variation_stack = []
        self._starting_comments = None

    def visit_header(self, name: str, value: str) -> None:
        self.game.headers[name] = value

    def visit_move(self, board: Board, move: Move) -> None:
        node = ChildNode(self._node, move)
        self._node.variations.append(node)
        self._node = node
        if self._starting_comments is not None:
            node.starting_comment = " ".join(self._starting_comments)
            self._starting_comments = None

    def visit_comment(self, comment: str) -> None:
        if self._starting_comments is not None:
            self._starting_comments.append(comment)
        elif self._node.comment:
            self._node.comment += " " + comment
        else:
            self._node.comment = comment

    def visit_nag(self, nag: int) -> None:
        self._node.nags.add(nag)

    def begin_variation(self) -> None:
        parent = self._node.parent
        if parent is None:  # a reader never opens a variation before a move
            raise ValueError("a variation must follow a move")
        self._variation_stack.append(self._node)
        self._node = parent
        self._starting_comments = []

    def end_variation(self) -> None:
        self._node = self._variation_stack.pop()
        self._starting_comments = None

    def visit_result(self, result: str) -> None:
        # The terminator fills in a Result tag that is missing or unknown ("*" or "?").
        if self.game.headers.get("Result", "*") in ("*", "?"):
            self.game.headers["Result"] = result

    def handle_error(self, error: PdnError) -> None:
        self.game.errors.append(error)

    def result(self) -> Game:
        return self.game


def write_game(moves: Sequence[Move], *, tags: Mapping[str, str] | None = None,
               start_fen: str = STARTING_FEN, result: str | None = None) -> str:
    """A game of plain moves as PDN text, ending in a newline.

    The seven standard tags come first (unset ones as ``?``, the date as
    today), then ``GameType`` and, for a game not from the start position,
    ``SetUp`` and ``FEN``, then any other tags. ``result`` defaults to the
    outcome the rules give by themselves after the last move: a win when the
    side to move has no move, else ``*``. A draw by repetition or the
    40-move rule ends a game only when claimed, so whoever claimed it passes
    ``result="1/2-1/2"``.

    :raises IllegalMoveError: a move is not legal where it is played.
    :raises InvalidFenError: ``start_fen`` is not a valid FEN.

    >>> tags = {"Event": "Demo", "Date": "2026.11.30"}
    >>> print(write_game([Move(11, 15), Move(23, 19)], tags=tags))
    [Event "Demo"]
    [Site "?"]
    [Date "2026.11.30"]
    [Round "?"]
    [Black "?"]
    [White "?"]
    [Result "*"]
    [GameType "21"]
    <BLANKLINE>
    1. 11-15 23-19 *
    <BLANKLINE>
    """
    board = Board(start_fen)
    for number, move in enumerate(moves, start=1):
        if move not in board.legal_moves:
            raise IllegalMoveError(f"move {number}, {move}, is not legal in {board.fen()}")
        board.push(move)
    game = Game()
    game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    game.headers.update(tags or {})
    game.headers["Result"] = (result if result is not None
                              else result_text(board.outcome(claim_draw=False)))
    if Position.from_fen(start_fen) != Position.start():
        game.setup(start_fen)
    game.add_line(moves)
    return game.accept(StringExporter())
