"""Self-play: the engine plays itself from the deck's openings; the games are kept as records.

Game ``g`` starts from ballot ``g mod 156`` of the ACF three-move deck (or,
with ``starts``, from position ``g mod n`` of a file of ``n`` start positions:
middlegames to learn the later phases from, see :mod:`.starts`), then a few
random plies (0 to ``random_plies``, seeded by ``g``) so that no two games
repeat; a folder's games are numbered from its ``first_game``, so that a new
generation can start from other positions than the last. Then the engine
plays both sides at a fixed node budget until the rules end the game (or
the game reaches ``max_plies``, the ballot's counted, scored a draw). Each game is kept as a
:class:`~.records.GameRecord`: the position after the ballot and random plies,
the engine's moves, the search's score before each move, and the result; the
positions a fit learns from are rebuilt from them (:mod:`.positions`).

Games are grouped into records files of ``games_per_shard``; file ``k``
(``games-KKKKK.txt.xz``) holds games ``first_game + k * games_per_shard``
onwards and is written whole, atomically. A run that finds a file on disk
skips it, so an interrupted run resumes where it stopped and a longer run
extends a shorter one.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.engine import Engine, Limit
from doublecorner.errors import EngineError
from doublecorner.match.ballots import three_move_deck
from doublecorner.outcome import Outcome
from doublecorner.train.portable import portable_record
from doublecorner.train.records import GameRecord, records_path, write_records
from doublecorner.train.starts import read_starts

# Tables loaded by each self-play process: 5 pieces take 30 MB, 6 would take 0.8 GB each.
TABLE_PIECES = 5

Result = TypeVar("Result")


@dataclass(frozen=True, slots=True, kw_only=True)
class SelfPlayConfig:
    """How the games are played; stored in every records file's header (its paths
    portable: :mod:`.portable`), so that a run can be told apart."""

    nodes: int = 20_000
    evaluation: str = "linear"
    network: str | None = None  # a weights file; None: the one shipped
    network_generation: int = 0  # the generation of the network that plays (0: linear)
    random_plies: int = 4
    max_plies: int = 400
    hash_mb: int = 16
    egtb_dir: str | None = None
    games_per_shard: int = 100  # games a records file holds
    # The number of the folder's first game: another generation's folder can start
    # where the last one stopped, so that its games begin from other random plies.
    first_game: int = 0
    # A file of start positions (see .starts) to play from instead of the deck's ballots.
    starts: str | None = None

    def __post_init__(self) -> None:
        if self.nodes < 1:
            raise EngineError(f"nodes per move must be at least 1, not {self.nodes}")
        if not 0 <= self.random_plies <= 40:
            raise EngineError(f"random plies must be in 0..40, not {self.random_plies}")
        if self.games_per_shard < 1:
            raise EngineError(f"games per shard must be at least 1, not {self.games_per_shard}")
        if self.first_game < 0:
            raise EngineError(f"the first game's number must be 0 or more, not {self.first_game}")


@dataclass(frozen=True, slots=True)
class ShardReport:
    """What one finished records file holds."""

    index: int
    games: int
    positions: int
    """The positions searched: the moves the engine made."""
    black_wins: int
    draws: int
    white_wins: int


def missing_shards(directory: Path, games: int, games_per_shard: int) -> list[int]:
    """The records files of the first ``games`` games not yet on disk."""
    count = -(-games // games_per_shard)
    return [index for index in range(count) if not records_path(directory, index).exists()]


def make_engine(config: SelfPlayConfig) -> Engine:
    """The engine the games are played with, its tables loaded if ``egtb_dir`` is set."""
    return engine_for(evaluation=config.evaluation, network=config.network,
                      egtb_dir=config.egtb_dir, hash_mb=config.hash_mb)


def engine_for(*, evaluation: str, network: str | None, egtb_dir: str | None,
               hash_mb: int) -> Engine:
    """An engine of the training pipeline: the tables of up to :data:`TABLE_PIECES`
    pieces from ``egtb_dir`` if it is set, none otherwise (whatever is installed)."""
    tables = None
    if egtb_dir is not None:
        from doublecorner.egtb import load_tables

        tables = load_tables(Path(egtb_dir), max_pieces=TABLE_PIECES, lazy_dtc=True)
    return Engine(hash_mb=hash_mb, tables=tables, evaluation=evaluation, network=network)


def _ending(board: Board) -> Outcome | None:
    """How a self-play game has ended: self-play claims a draw by repetition or the
    40-move rule for the players as soon as one is on the board, as a referee would."""
    return board.outcome(claim_draw=True)


def play_game(engine: Engine, number: int, config: SelfPlayConfig) -> GameRecord:
    """Play game ``number``; return its record (from the position after the random plies)."""
    if config.starts is not None:
        positions = read_starts(Path(config.starts))
        board = Board.from_position(positions[number % len(positions)])
    else:
        deck = three_move_deck()
        board = deck[number % len(deck)].board()
    chance = random.Random(number)
    for _ in range(chance.randint(0, config.random_plies)):
        moves = sorted(board.legal_moves, key=lambda move: move.path)
        if not moves or _ending(board) is not None:
            break
        board.push(chance.choice(moves))
    # The ballot and random plies are all men's moves: the record's start has a fresh
    # 40-move count, and no position before it can come again. (From a start position
    # with kings a random king move may have begun a count: the record starts it afresh.)
    start = board.position()
    engine.new_game()
    limit = Limit(nodes=config.nodes)
    moves, scores = [], []
    while _ending(board) is None and len(board.move_stack) < config.max_plies:
        result = engine.search(board.position(), limit, history=board.position_history(),
                               halfmove_clock=board.halfmove_clock)
        if result.move is None:
            break
        moves.append(result.move)
        scores.append(result.score.value)
        board.push(result.move)
    outcome = _ending(board)
    winner = None if outcome is None else outcome.winner  # None also for a game cut short
    black_result = 0 if winner is None else 1 if winner is Color.BLACK else -1
    return GameRecord(number, start, tuple(moves), tuple(scores), black_result)


def play_shard(directory: str, index: int, config_items: dict[str, Any],
               header: dict[str, Any]) -> ShardReport:
    """Play and write records file ``index`` (a function of plain arguments, for processes
    and Ray); ``header`` is the configuration as the file keeps it."""
    config = SelfPlayConfig(**config_items)
    engine = _worker_engine(config)
    first = config.first_game + index * config.games_per_shard
    games = [play_game(engine, number, config)
             for number in range(first, first + config.games_per_shard)]
    write_records(records_path(Path(directory), index), games, config=header)
    results = [game.result for game in games]
    return ShardReport(index, len(games), sum(len(game.moves) for game in games),
                       results.count(1), results.count(0), results.count(-1))


_ENGINES: dict[str, Engine] = {}


def _worker_engine(config: SelfPlayConfig) -> Engine:
    """One engine per process and configuration (its tables take seconds to load)."""
    key = json.dumps(asdict(config), sort_keys=True)
    if key not in _ENGINES:
        _ENGINES.clear()
        _ENGINES[key] = make_engine(config)
    return _ENGINES[key]


def run_selfplay(directory: Path, games: int, config: SelfPlayConfig, *, jobs: int = 1,
                 ray_address: str | None = None, use_ray: bool = False,
                 on_shard: Callable[[ShardReport], None] | None = None) -> list[ShardReport]:
    """Play the first ``games`` games into ``directory``, skipping records files already there.

    ``jobs`` processes play files side by side; with ``use_ray`` each file is
    a Ray task instead (the folder must be one every node shares).
    ``on_shard`` is called as each file is written. Returns the new files' reports.
    """
    directory.mkdir(parents=True, exist_ok=True)
    todo = missing_shards(directory, games, config.games_per_shard)
    # The records are kept in git: their header names no folder of this machine (the
    # network and the tables by their names), made here, where the command runs.
    header = portable_record(asdict(config))
    arguments = [(str(directory), index, asdict(config), header) for index in todo]
    if use_ray:
        from doublecorner.distributed import run_on_ray

        return run_on_ray(play_shard, arguments, address=ray_address, on_result=on_shard)
    if jobs <= 1:
        reports = []
        for args in arguments:
            reports.append(play_shard(*args))
            if on_shard is not None:
                on_shard(reports[-1])
        return reports
    return list(in_processes(play_shard, arguments, jobs, on_shard))


def in_processes(function: Callable[..., Result], arguments: Sequence[tuple[Any, ...]],
                 jobs: int, on_result: Callable[[Result], None] | None) -> Iterator[Result]:
    """``function(*args)`` for each of ``arguments`` in ``jobs`` processes, as each ends
    (a few queued ahead, so that no process waits; the rest cancelled on an error)."""
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        waiting = list(arguments)
        running: set[Future[Result]] = set()
        try:
            while waiting or running:
                while waiting and len(running) < 2 * jobs:
                    running.add(pool.submit(function, *waiting.pop(0)))
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    result = future.result()
                    if on_result is not None:
                        on_result(result)
                    yield result
        finally:
            for future in running:
                future.cancel()
