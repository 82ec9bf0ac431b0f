"""Self-play records as PDN games, for the game database and the opening books.

A record holds the game's start (the position after its ballot and random
plies) and every move (:mod:`.records`), so a game is written as it was
played: from its start as a set-up position (the ``SetUp`` and ``FEN`` tags),
its result from the record, both players named by the records file's
configuration. Games are read one at a time and written as they are read, so
an export of any size holds one game in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from doublecorner.board import Board
from doublecorner.pdn import Game, StringExporter
from doublecorner.train.records import GameRecord, read_config, read_records
from doublecorner.train.selfplay import SelfPlayConfig

EVENT = "doublecorner self-play"
# The result is Black's (see records.GameRecord); PDN's GameType 21 counts
# "1-0" as a win for Black, who moves first.
_RESULTS = {1: "1-0", 0: "1/2-1/2", -1: "0-1"}
_DEFAULTS = SelfPlayConfig()


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What an export wrote."""

    games: int


def player_name(config: Mapping[str, Any] | None) -> str:
    """The name of the engine that played a file's games, from its :class:`SelfPlayConfig`.

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


def record_game(record: GameRecord, *, player: str) -> Game:
    """The PDN game of one record.

    >>> board = Board("B:WK18:BK1")
    >>> record = GameRecord(7, board.position(), (board.push_str("1-6"),), (40,), 1)
    >>> game = record_game(record, player="me")
    >>> game.headers["FEN"], [str(move) for move in game.mainline_moves()]
    ('B:WK18:BK1', ['1-6'])
    >>> game.headers["Result"], game.headers["Round"], game.headers["Black"]
    ('1-0', '7', 'me')
    """
    board = Board.from_position(record.start)
    for move in record.moves:
        board.push(move)
    game = Game.from_board(board)  # from a set-up position: the SetUp and FEN tags
    game.headers.update(Event=EVENT, Round=str(record.number), Black=player, White=player,
                        Result=_RESULTS[record.result])
    return game


def export_pdn(paths: Sequence[Path], stream: TextIO, *, limit: int | None = None,
               on_game: Callable[[int, GameRecord], None] | None = None) -> ExportReport:
    """Write the games of the records files at ``paths`` to ``stream`` as PDN.

    ``limit`` stops after that many games; ``on_game(index, record)`` is
    called after each, ``index`` being its file's place in ``paths``.

    :raises EngineError: a file cannot be read, or a line of it is damaged
        (the message names the file and the line).
    """
    games = 0
    for index, path in enumerate(paths):
        player = player_name(read_config(path))
        for record in read_records(path):
            text = record_game(record, player=player).accept(StringExporter())
            stream.write(("\n" if games else "") + text)
            games += 1
            if on_game is not None:
                on_game(index, record)
            if games == limit:
                return ExportReport(games)
    return ExportReport(games)
