"""Checking and extending a book with the engine, by drop-out expansion from the deck's openings.

The book grows as a tree of positions (transpositions merged) from its
roots, the positions after the three moves of each opening of the ACF deck
(or the start position; the caller gives them). Expanding a position searches every one of its
moves (the position after it, with ``limit``), so that each move has the
engine's score; a position not expanded yet is a leaf, scored by the search
that reached it. Scores are backed up by negamax through the expanded
positions.

Which leaf to expand next is drop-out expansion (Lincke, 2001), for each
side as the book's owner: the cost of a line is one per ply, plus, on the
opponent's moves, ``drop_out`` per hundredth of a man the move falls short
of the best (a weak reply is less likely, so less worth preparing), while the
owner only follows its own moves within ``margin`` of its best (it never
plays the others). The leaf of least cost, over both owners, is expanded
next, until ``positions`` positions are expanded.

The book written holds, for every expanded position, its moves within
``margin`` of the best, weighted by
:func:`~doublecorner.book.weights.engine_weight` and carrying the engine's
score. Where the book given (``book``) already holds the position, its own
moves are kept with their weights and records, each checked: it gets the
engine's score, and weight 0 if it falls more than ``margin`` short of the
best (the engine refutes it); only a position whose every move is refuted
takes the engine's moves instead. The book's other positions are kept as
they were.
"""

from __future__ import annotations

import datetime
import heapq
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from doublecorner import __version__
from doublecorner.book.format import ENTRY
from doublecorner.book.move_code import fits, move_code
from doublecorner.book.reader import Book
from doublecorner.book.weights import engine_weight
from doublecorner.color import Color
from doublecorner.engine import Engine, Limit
from doublecorner.kernel import generate_moves
from doublecorner.move import Move
from doublecorner.position import Position

DEFAULT_MARGIN = 10  # hundredths of a man
DEFAULT_DROP_OUT = 0.1  # plies of cost per hundredth of a man an opponent's move gives away
SCORE_LIMIT = 32767  # the file's score is 16 bits


@dataclass(frozen=True)
class DeepenProgress:
    """How far a deepening has gone: positions expanded (of ``positions``), searches made."""

    expanded: int
    positions: int
    searches: int
    leaves: int


DeepenCallback = Callable[[DeepenProgress], None]


@dataclass
class _Node:
    position: Position
    leaf_value: int  # the score of the search that reached it, for its side to move
    moves: list[tuple[Move, int, int]] | None = None  # (move, child key, searched value)
    value: int = 0
    move_values: list[int] = field(default_factory=list)


def deepen_book(engine: Engine, roots: Sequence[Position], *, positions: int, limit: Limit,
                book: Book | None = None, margin: int = DEFAULT_MARGIN,
                drop_out: float = DEFAULT_DROP_OUT, progress: DeepenCallback | None = None,
                stop: threading.Event | None = None) -> Book:
    """The book checked and extended by ``positions`` expansions; see the module's docstring.

    ``stop`` ends the work early; what was expanded is kept.

    :raises ValueError: no roots, or ``positions`` below 1 or ``margin`` below 0.
    """
    if not roots or positions < 1 or margin < 0:
        raise ValueError(f"deepening needs roots, positions >= 1 and margin >= 0, not "
                         f"{len(roots)} roots, {positions} and {margin}")
    nodes: dict[int, _Node] = {}
    order: list[int] = []
    for root in roots:
        key = root.zobrist_key()
        if key not in nodes:
            nodes[key] = _Node(root, 0)
            order.append(key)
    searches = 0
    expanded = 0
    while expanded < positions and not (stop is not None and stop.is_set()):
        leaf = _next_leaf(nodes, order, margin, drop_out)
        if leaf is None:
            break
        searches += _expand(engine, nodes, leaf, limit, stop)
        expanded += 1
        if progress is not None:
            progress(DeepenProgress(expanded, positions, searches,
                                    sum(node.moves is None for node in nodes.values())))
    _back_up(nodes)
    return Book(_entries(nodes, book, margin), _provenance(
        book, roots=len(order), positions=expanded, searches=searches, limit=limit,
        margin=margin, drop_out=drop_out))


def _expand(engine: Engine, nodes: dict[int, _Node], key: int, limit: Limit,
            stop: threading.Event | None) -> int:
    """Search every move of the position ``key``; the number of searches."""
    node = nodes[key]
    position = node.position
    rows = generate_moves(position.black, position.white, position.kings, int(position.turn))
    moves = []
    searches = 0
    for black, white, kings, move_key in rows:
        move = Move._from_kernel_key(int(move_key))
        child = Position(int(black), int(white), int(kings), position.turn.opponent)
        child_key = child.zobrist_key()
        known = nodes.get(child_key)
        if known is not None:
            value = -(known.value if known.moves is not None else known.leaf_value)
        else:
            found = engine.search(child, limit, stop=stop, use_book=False)
            searches += 1
            value = -found.score.value
            nodes[child_key] = _Node(child, found.score.value)
        moves.append((move, child_key, value))
    node.moves = moves
    return searches


def _back_up(nodes: dict[int, _Node]) -> None:
    """Negamax values of the expanded positions (leaves keep their search's score)."""
    done: set[int] = set()
    busy: set[int] = set()

    def value(key: int) -> int:
        node = nodes[key]
        if node.moves is None:
            return node.leaf_value
        if key in done or key in busy:  # a cycle: take what it has
            return node.value if key in done else node.leaf_value
        busy.add(key)
        node.move_values = [-value(child) if nodes[child].moves is not None else searched
                            for _, child, searched in node.moves]
        busy.discard(key)
        node.value = max(node.move_values, default=node.leaf_value)
        done.add(key)
        return node.value

    for key in list(nodes):
        value(key)


def _next_leaf(nodes: dict[int, _Node], order: list[int], margin: int,
               drop_out: float) -> int | None:
    """The unexpanded position of least drop-out cost over both owners (None: none left)."""
    _back_up(nodes)
    best: tuple[float, int] | None = None
    for owner in (Color.BLACK, Color.WHITE):
        costs: dict[int, float] = {}
        queue = [(0.0, index, key) for index, key in enumerate(order)]
        heapq.heapify(queue)
        tie = len(queue)
        while queue:
            cost, _, key = heapq.heappop(queue)
            if key in costs:
                continue
            costs[key] = cost
            node = nodes[key]
            if node.moves is None:
                if best is None or cost < best[0]:
                    best = (cost, key)
                continue
            for (_, child, _), move_value in zip(node.moves, node.move_values, strict=True):
                shortfall = node.value - move_value
                if node.position.turn is owner:
                    if shortfall > margin:
                        continue
                    step = 1.0
                else:
                    step = 1.0 + drop_out * shortfall
                if child not in costs:
                    tie += 1
                    heapq.heappush(queue, (cost + step, tie, child))
    return None if best is None else best[1]


def _entries(nodes: dict[int, _Node], book: Book | None, margin: int) -> np.ndarray:
    rows: dict[tuple[int, int], tuple[int, ...]] = {}
    if book is not None:
        for row in book.array.tolist():
            rows[(row[0], row[1])] = tuple(row)
    for key, node in nodes.items():
        if node.moves is None:
            continue
        scores = {move_code(move): _clip(value) for (move, _, _), value
                  in zip(node.moves, node.move_values, strict=True) if fits(move)}
        best = max(scores.values(), default=0)
        held = [int(code) for code in book.rows(key)["move"]] if book is not None else []
        kept = [code for code in held if code in scores]
        checked_any = False
        for code in kept:
            old = rows[(key, code)]
            weight = old[2] if best - scores[code] <= margin else 0
            checked_any = checked_any or weight > 0
            rows[(key, code)] = (key, code, weight, scores[code], *old[4:])
        if checked_any:
            continue
        for code, score in scores.items():
            weight = engine_weight(best=best, score=score, margin=margin)
            if weight and (key, code) not in rows:
                rows[(key, code)] = (key, code, weight, score, 0, 0, 0)
            elif weight:
                old = rows[(key, code)]
                rows[(key, code)] = (key, code, weight, score, *old[4:])
    return np.array(list(rows.values()), ENTRY)


def _clip(value: int) -> int:
    return max(-SCORE_LIMIT, min(SCORE_LIMIT, value))


def _provenance(book: Book | None, *, roots: int, positions: int, searches: int,
                limit: Limit, margin: int, drop_out: float) -> dict[str, Any]:
    provenance: dict[str, Any] = dict(book.provenance) if book is not None else {}
    provenance.setdefault("built_by", f"doublecorner {__version__}")
    provenance.setdefault("built", datetime.datetime.now(datetime.timezone.utc).isoformat(
        timespec="seconds"))
    steps = list(provenance.get("steps", []))
    steps.append({"step": "deepen", "roots": roots, "positions_expanded": positions,
                  "searches": searches,
                  "limit": {name: getattr(limit, name) for name in ("depth", "nodes", "time")
                            if getattr(limit, name) is not None},
                  "margin": margin, "drop_out": drop_out,
                  "weights": "margin + 1 - (best score - score), within the margin"})
    provenance["steps"] = steps
    return provenance
