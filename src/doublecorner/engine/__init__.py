"""The engine: search, evaluation, transposition table and time management.

>>> from doublecorner import Board, Position
>>> from doublecorner.engine import Engine, Limit
>>> result = Engine(hash_mb=4).search(Position.start(), Limit(depth=6))
>>> result.depth, result.move in Board().legal_moves
(6, True)
"""

from doublecorner.engine.limit import Limit
from doublecorner.engine.score import Score
from doublecorner.engine.search import Engine, InfoCallback, SearchResult
from doublecorner.engine.weights import Weights

__all__ = ["Engine", "InfoCallback", "Limit", "Score", "SearchResult", "Weights"]
