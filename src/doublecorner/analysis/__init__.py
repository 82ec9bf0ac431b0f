"""Whole-game analysis: the engine on every position of a game, judgements, annotations.

:mod:`~doublecorner.analysis.game` searches a game's moves and judges them
(:func:`analyse_game`, :func:`annotate`, :func:`summary`; the thresholds are
in its docstring), :mod:`~doublecorner.analysis.plot` draws the score over
the game (:func:`evaluation_plot`, with the ``plot`` extra) and
:mod:`~doublecorner.analysis.distributed` spreads the games of an archive
over a Ray cluster (with the ``ray`` extra). ``doublecorner analyse
GAMES.pdn`` is the command line over all three.

>>> from doublecorner.analysis import Judgement
>>> Judgement.BLUNDER.value  # the NAG of a blunder, '??'
4
"""

from doublecorner.analysis.game import (
    DECISIVE,
    SCORE_SIDE,
    THRESHOLDS,
    Judgement,
    MoveAnalysis,
    analyse_game,
    annotate,
    summary,
)
from doublecorner.analysis.plot import evaluation_plot

__all__ = [
    "DECISIVE",
    "SCORE_SIDE",
    "THRESHOLDS",
    "Judgement",
    "MoveAnalysis",
    "analyse_game",
    "annotate",
    "evaluation_plot",
    "summary",
]
