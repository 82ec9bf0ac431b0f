"""Self-play shards as PDN games, for the game database and the opening books.

A shard keeps every position the engine searched, in order, but not the moves
(see :mod:`.selfplay`). The moves are rebuilt: each position after the first
must be the child of the one before by one legal move, found by making the
legal moves in turn. The first position is the game's start after its ballot
and random plies, so the game is written from it as a set-up position (the
``SetUp`` and ``FEN`` tags). The move made from the last searched position is
not stored: the game's moves stop there, and its ``Result`` tag comes from the
shard's result column.

Rows that stop chaining (a ply missing, or a position that no legal move
reaches) end the game there: it is written up to the gap, a comment marking
the cut, and counted as faulty. Games are read one shard at a time and written
as they are rebuilt, so an export of any size holds one shard in memory.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.errors import DraughtsError, EngineError
from doublecorner.files import shown_path
from doublecorner.pdn import Game, StringExporter
from doublecorner.position import Position
from doublecorner.train.selfplay import COLUMNS, SelfPlayConfig, open_shard

EVENT = "doublecorner self-play"
# The result column is Black's (see selfplay.COLUMNS); PDN's GameType 21 counts
# "1-0" as a win for Black, who moves first.
_RESULTS = {1: "1-0", 0: "1/2-1/2", -1: "0-1"}
_DEFAULTS = SelfPlayConfig()


@dataclass(frozen=True, slots=True)
class SelfPlayGame:
    """One game of a shard, rebuilt: its number, the PDN game, and what is wrong with it."""

    number: int
    game: Game | None
    """The game; ``None`` when its first row is no position to start from."""
    fault: str | None
    """Why the game is cut short (its rows stop chaining), or ``None``."""

    @property
    def is_faulty(self) -> bool:
        """Whether the game is cut short, or not written at all."""
        return self.fault is not None


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What an export read and wrote."""

    games: int
    """Games read, the faulty ones among them."""
    written: int
    faulty: int


def player_name(config: Mapping[str, Any] | None) -> str:
    """The name of the engine that played a shard's games, from its :class:`SelfPlayConfig`.

    >>> player_name({"evaluation": "nn", "network_generation": 3, "nodes": 6000})
    'doublecorner nn gen 3 6000 nodes'
    >>> player_name({"evaluation": "linear", "nodes": 10000})
    'doublecorner linear 10000 nodes'
    >>> player_name(None)
    'doublecorner'
    """
    if not isinstance(config, Mapping):
        return "doublecorner"
    evaluation = config.get("evaluation", _DEFAULTS.evaluation)
    nodes = config.get("nodes", _DEFAULTS.nodes)
    generation = config.get("network_generation", _DEFAULTS.network_generation)
    described = f"{evaluation} gen {generation}" if evaluation == "nn" else f"{evaluation}"
    return f"doublecorner {described} {nodes} nodes"


def rebuild_game(rows: Mapping[str, Sequence[int]], *, player: str) -> SelfPlayGame:
    """The game of one game's rows (:data:`~.selfplay.COLUMNS`, in ply order).

    >>> positions = [Position.from_fen("B:WK18:BK1"), Position.from_fen("W:WK18:BK6")]
    >>> rows = {"black": [p.black for p in positions], "white": [p.white for p in positions],
    ...         "kings": [p.kings for p in positions], "turn": [0, 1], "ply": [9, 10],
    ...         "result": [1, 1], "game": [7, 7]}
    >>> rebuilt = rebuild_game(rows, player="me")
    >>> rebuilt.game.headers["FEN"], [str(move) for move in rebuilt.game.mainline_moves()]
    ('B:WK18:BK1', ['1-6'])
    >>> rebuilt.game.headers["Result"], rebuilt.game.headers["Round"], rebuilt.fault
    ('1-0', '7', None)
    """
    number = int(rows["game"][0])
    black, white, kings, turn, plies = (rows[name] for name in ("black", "white", "kings",
                                                                "turn", "ply"))
    try:
        board = Board.from_position(Position(int(black[0]), int(white[0]), int(kings[0]),
                                             Color(int(turn[0]))))
    except (DraughtsError, ValueError) as error:
        return SelfPlayGame(number, None, f"its first row is no position: {error}")
    fault = None
    for index in range(1, len(black)):
        target = (int(black[index]), int(white[index]), int(kings[index]))
        if (int(plies[index]) != int(plies[index - 1]) + 1
                or int(turn[index]) == int(turn[index - 1])):
            fault = f"ply {plies[index]} follows ply {plies[index - 1]}"
            break
        # Two capture paths may end in the same position (a king's round trip):
        # the first in the library's move order is taken, as the rows cannot tell.
        for move in board.legal_moves:
            board.push(move)
            if board.bitboards() == target:
                break
            board.pop()
        else:
            fault = f"no legal move leads from ply {plies[index - 1]} to ply {plies[index]}"
            break
    game = Game.from_board(board)  # from a set-up position: the SetUp and FEN tags
    game.headers.update(Event=EVENT, Round=str(number), Black=player, White=player,
                        Result=_RESULTS.get(int(rows["result"][0]), "*"))
    if fault is not None:
        end = game.end()
        end.comment = f"doublecorner: the self-play rows stop here: {fault}"
    return SelfPlayGame(number, game, fault)


def shard_games(path: Path) -> Iterator[SelfPlayGame]:
    """The games of the shard at ``path``, rebuilt, in the order of their numbers.

    :raises EngineError: the shard cannot be read, or lacks a column.
    """
    try:
        with open_shard(path) as shard:
            missing = [name for name in COLUMNS if name not in shard]
            if missing:
                raise EngineError(f"shard {path} has no column {missing[0]!r}")
            columns = {name: shard[name] for name in COLUMNS}
            meta = _config(shard["meta"]) if "meta" in shard else None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise EngineError(f"cannot read the self-play shard {shown_path(path)}: "
                          f"{error}") from None
    player = player_name(meta)
    order = np.lexsort((columns["ply"], columns["game"]))  # stable: game, then ply
    rows = {name: values[order].tolist() for name, values in columns.items()}
    games = rows["game"]
    start = 0
    while start < len(games):
        end = start
        while end < len(games) and games[end] == games[start]:
            end += 1
        yield rebuild_game({name: values[start:end] for name, values in rows.items()},
                           player=player)
        start = end


def _config(meta: np.ndarray) -> dict[str, Any] | None:
    """The self-play configuration a shard's ``meta`` holds, or ``None``."""
    try:
        config = json.loads(str(meta))
    except ValueError:
        return None
    return config if isinstance(config, dict) else None


def export_pdn(paths: Sequence[Path], stream: TextIO, *, limit: int | None = None,
               on_game: Callable[[int, SelfPlayGame], None] | None = None) -> ExportReport:
    """Write the games of the shards at ``paths`` to ``stream`` as PDN, as they are rebuilt.

    ``limit`` stops after that many games; ``on_game(index, game)`` is called
    after each, ``index`` being its shard's place in ``paths``. A faulty game
    is written up to its fault (one with no start position is not written).

    :raises EngineError: a shard cannot be read, or lacks a column.
    """
    games = written = faulty = 0
    for index, path in enumerate(paths):
        for rebuilt in shard_games(path):
            games += 1
            faulty += rebuilt.is_faulty
            if rebuilt.game is not None:
                text = rebuilt.game.accept(StringExporter())
                stream.write(("\n" if written else "") + text)
                written += 1
            if on_game is not None:
                on_game(index, rebuilt)
            if games == limit:
                return ExportReport(games, written, faulty)
    return ExportReport(games, written, faulty)
