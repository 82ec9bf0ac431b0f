"""Whole-game analysis: the engine on every position of a game, judgements, annotations.

:func:`analyse_game` searches each position of a game's main line (with the
game's history, so repetitions and the 40-move count are seen) and compares
the move played with the engine's best move. The loss of a move is how much
worse, for the side that made it, the position after it scores than the
position before it, in hundredths of a man (wins and losses count as
:data:`DECISIVE` either way). The judgements and their thresholds:

=================  ==========  =========================================
judgement          loss        also
=================  ==========  =========================================
blunder (``??``)   >= 300      or a won position thrown into a draw or loss,
                               or a drawn one into a loss
mistake (``?``)    >= 100
inaccuracy (``?!``) >= 50
=================  ==========  =========================================

A move that only keeps a win (a longer road to the same end) is never marked,
nor a forced move (the only legal one), nor the move the engine itself would
have played: a mark always comes with a better move.
:func:`annotate` writes the results into the game, beside the game's own
comments and NAGs: a comment after every move with the score and, where it
differs, the engine's move with the score it keeps; the judgement as a NAG
(in the comment where the move has a mark of its own). Scores in the comments
are from Black's side (positive: Black is better), as in
:func:`~doublecorner.analysis.plot.evaluation_plot`, which draws them over
the game (needs the ``plot`` extra, matplotlib).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.engine import Limit, Score, SearchResult
from doublecorner.move import Move
from doublecorner.pdn import Game, nags
from doublecorner.position import Position

DECISIVE = 1500  # a won or lost game, in hundredths of a man, for losses and plots
PLOT_LIMIT = 10.0  # men: the plot's vertical range either side of 0, at most
SCORE_SIDE = "Black"  # whose view the comments and the plot give


class Judgement(enum.Enum):
    """How bad a move was; the value is its NAG."""

    INACCURACY = nags.DUBIOUS_MOVE
    MISTAKE = nags.MISTAKE
    BLUNDER = nags.BLUNDER


# The NAGs that judge a move (! ? !! ?? !? ?!): a move has one, written as its mark.
MOVE_MARKS = frozenset(range(nags.GOOD_MOVE, nags.DUBIOUS_MOVE + 1))

# (judgement, smallest loss), worst first.
THRESHOLDS = ((Judgement.BLUNDER, 300), (Judgement.MISTAKE, 100), (Judgement.INACCURACY, 50))


@dataclass(frozen=True, slots=True)
class MoveAnalysis:
    """The engine's view of one move of the game.

    ``before`` scores the position the move was played in, ``after`` the
    position it made, both for ``mover``; ``best`` is the engine's choice;
    ``forced`` tells that the move was the only legal one.
    """

    ply: int
    mover: Color
    move: Move
    best: Move | None
    before: Score
    after: Score
    depth: int
    forced: bool = False

    @property
    def loss(self) -> int:
        """Hundredths of a man the move gave away (0 for the best move or better)."""
        return max(0, _value(self.before) - _value(self.after))

    @property
    def judgement(self) -> Judgement | None:
        """How bad the move was; ``None`` for a good, forced or engine-approved move."""
        if self.forced or (self.best is not None and self.best == self.move):
            return None
        if self.before.is_win and not self.after.is_win:
            return Judgement.BLUNDER
        if not self.before.is_loss and self.after.is_loss:
            return Judgement.BLUNDER
        if self.before.is_win and self.after.is_win:
            return None
        loss = self.loss
        return next((judgement for judgement, least in THRESHOLDS if loss >= least), None)

    def black_score(self) -> float:
        """The score after the move, in men, from Black's side, clipped for plotting."""
        return black_view(self.after, self.mover)

    def black_after(self) -> Score:
        """The score after the move from Black's side."""
        return self.after if self.mover is Color.BLACK else -self.after

    def black_before(self) -> Score:
        """The score the engine's move keeps, from Black's side."""
        return self.before if self.mover is Color.BLACK else -self.before


def black_view(score: Score, side: Color) -> float:
    """``score``, which is for ``side``, in men from Black's side, clipped for plotting."""
    value = max(-PLOT_LIMIT, min(PLOT_LIMIT, _value(score) / 100))
    return value if side is Color.BLACK else -value


def _value(score: Score) -> int:
    if score.is_win:
        return DECISIVE
    if score.is_loss:
        return -DECISIVE
    return max(-DECISIVE, min(DECISIVE, score.value))


ProgressCallback = Callable[[int, int], None]


class GameSearcher(Protocol):
    """What :func:`analyse_game` needs of an engine: an :class:`~doublecorner.engine.Engine`,
    or the web server's queue of engines, which searches each position in its turn."""

    def new_game(self) -> None:
        """Forget what earlier games taught (the transposition table)."""
        ...

    def search(self, position: Position, limit: Limit | None = None, *,
               history: Sequence[Position] = (), halfmove_clock: int = 0) -> SearchResult:
        """Search ``position``; see :meth:`doublecorner.engine.Engine.search`."""
        ...


def analyse_game(game: Game, engine: GameSearcher, limit: Limit, *,
                 on_move: ProgressCallback | None = None) -> list[MoveAnalysis]:
    """Search every position of the main line; one :class:`MoveAnalysis` per move.

    ``on_move(done, total)`` is called after each move is analysed.

    :raises InvalidFenError: the game's ``FEN`` tag is not a valid FEN.
    :raises IllegalMoveError: a move of the main line is illegal (a tree built by hand).
    """
    moves = game.mainline_moves()
    board = game.board()
    engine.new_game()
    scores: list[Score] = []
    best_moves: list[Move | None] = []
    depths: list[int] = []
    forced: list[bool] = []
    for index in range(len(moves) + 1):
        forced.append(len(board.legal_moves) == 1)
        result = engine.search(board.position(), limit, history=board.position_history(),
                               halfmove_clock=board.halfmove_clock)
        scores.append(_final_score(board, result.score))
        best_moves.append(result.move)
        depths.append(result.depth)
        if index < len(moves):
            board.push(moves[index])
            if on_move is not None:
                on_move(index + 1, len(moves))
    start = game.board()
    return [MoveAnalysis(ply=index + 1,
                         mover=start.turn if index % 2 == 0 else start.turn.opponent,
                         move=move, best=best_moves[index], before=scores[index],
                         after=-scores[index + 1], depth=depths[index],
                         forced=forced[index])
            for index, move in enumerate(moves)]


def _final_score(board: Board, score: Score) -> Score:
    """The engine's score, or 0 where a draw by the rules is on the board.

    The game record goes on past such a draw when nobody claimed it, but the
    position is worth a draw: a player may claim it, and the engine's search
    scores it so.
    """
    outcome = board.outcome(claim_draw=True)
    if outcome is not None and outcome.winner is None:
        return Score(0)
    return score


def annotate(game: Game, analyses: Sequence[MoveAnalysis]) -> None:
    """Write the analysis into the game's main line, beside the game's own notes.

    After each move, a bracketed note follows the move's own comment: the
    score after the move from Black's side, and the engine's move with the
    score it keeps where the engine would have played something else. The
    judgement is the move's NAG, unless the move already carries a mark of
    its own (``!``, ``?``, ``!!``, ``??``, ``!?`` or ``?!``): that mark stays,
    and the engine's is written in the note (``; mistake (?)``). No NAG or
    comment of the game is taken away. An ``Annotator`` tag, unless the game
    has one, says whose the scores are.

    >>> from doublecorner import Move
    >>> from doublecorner.engine import Score
    >>> game = Game()
    >>> node = game.add_variation(Move(11, 15), comment="my move", nags={nags.DUBIOUS_MOVE})
    >>> slip = MoveAnalysis(1, Color.BLACK, Move(11, 15), Move(9, 13), Score(0), Score(-150), 8)
    >>> annotate(game, [slip])
    >>> node.comment, node.nags == {nags.DUBIOUS_MOVE}
    ('my move [-1.50; best 9-13 0.00; mistake (?)]', True)
    """
    game.headers.setdefault("Annotator", f"doublecorner (scores for {SCORE_SIDE})")
    for node, analysis in zip(game.mainline(), analyses, strict=False):
        note = f"{analysis.black_after()}"
        if analysis.best is not None and analysis.best != analysis.move:
            note += f"; best {analysis.best} {analysis.black_before()}"
        judgement = analysis.judgement
        if judgement is not None and node.nags & MOVE_MARKS:  # one mark a move: the game's
            note += f"; {judgement.name.lower()} ({nags.mark_of_nag(judgement.value)})"
        elif judgement is not None:
            node.nags.add(judgement.value)
        node.comment = f"{node.comment} [{note}]".strip() if node.comment else f"[{note}]"


def summary(analyses: Sequence[MoveAnalysis]) -> dict[str, dict[str, int]]:
    """Judgements counted per side: ``{"Black": {"blunder": n, ...}, "White": {...}}``."""
    counts = {str(color): {judgement.name.lower(): 0 for judgement in Judgement}
              for color in Color}
    for analysis in analyses:
        if analysis.judgement is not None:
            counts[str(analysis.mover)][analysis.judgement.name.lower()] += 1
    return counts
