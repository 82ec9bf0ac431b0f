"""Portable Draughts Notation (PDN): a game tree, a streaming reader and a writer.

Modelled on python-chess's ``chess.pgn``: :class:`Game` is the root of a tree
of :class:`ChildNode` moves with comments, NAGs and variations; the reader
hands what it reads to a :class:`Visitor` (by default one that builds a
``Game``); the writer is a visitor too.

>>> import io
>>> from doublecorner.pdn import iter_games
>>> text = "1. 11-15 23-19 1-0\\n\\n[FEN \\"W:W18:B14\\"]\\n1... 18x9 0-1\\n"
>>> [(game.result, [str(move) for move in game.mainline_moves()])
...  for game in iter_games(io.StringIO(text))]
[('1-0', ['11-15', '23-19']), ('0-1', ['18x9'])]
"""

from doublecorner.pdn.game import ChildNode, Game, GameBuilder, GameNode, write_game
from doublecorner.pdn.reader import NotPdnError, PdnReader, iter_games, read_game
from doublecorner.pdn.tags import SEVEN_TAG_ROSTER
from doublecorner.pdn.visitor import SKIP, HeadersBuilder, Skip, Visitor
from doublecorner.pdn.writer import StringExporter, move_text, result_text

__all__ = [
    "SEVEN_TAG_ROSTER",
    "SKIP",
    "ChildNode",
    "Game",
    "GameBuilder",
    "GameNode",
    "HeadersBuilder",
    "NotPdnError",
    "PdnReader",
    "Skip",
    "StringExporter",
    "Visitor",
    "iter_games",
    "move_text",
    "read_game",
    "result_text",
    "write_game",
]
