"""Self-play: the engine plays itself from the deck's openings, every searched position kept.

Game ``g`` starts from ballot ``g mod 156`` of the ACF three-move deck, then a
few random plies (0 to ``random_plies``, seeded by ``g``) so that no two games
repeat; a folder's games are numbered from its ``first_game``, so that a new
generation can start from other positions than the last. Then the engine
plays both sides at a fixed node budget until the rules end the game (or
``max_plies``, scored a draw). Each position the engine searched becomes one
row of a shard: the position, the 40-move count, the search's score for the
side to move, the game's result, and the endgame tables' value where they
hold the position.

Games are grouped into shards of ``games_per_shard``; shard ``k`` holds games
``first_game + k * games_per_shard`` onwards and is written whole, atomically, as
``shard-KKKKK.npz``. A run that finds a shard on disk skips it, so an
interrupted run resumes where it stopped and a longer run extends a shorter one.
"""

from __future__ import annotations

import json
import random
import re
import zipfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.egtb.probe import Value
from doublecorner.engine import Engine, Limit
from doublecorner.errors import EngineError, FileError, TableError
from doublecorner.files import atomic_writer, open_bounded, shown_path
from doublecorner.match.ballots import three_move_deck
from doublecorner.outcome import Outcome
from doublecorner.position import Position

SHARD_PATTERN = "shard-{:05d}.npz"
SHARD_NAME = re.compile(r"shard-\d{5,}\.npz")
UNKNOWN = -2  # the tables' value of a position they do not hold
# Tables loaded by each self-play process: 5 pieces take 30 MB, 6 would take 0.8 GB each.
TABLE_PIECES = 5
MAX_SHARD_BYTES = 1 << 30  # a shard of 100 games takes about 300 KB

# The columns of a shard, one entry per position, and their types.
COLUMNS: dict[str, Any] = {
    "black": np.uint32,
    "white": np.uint32,
    "kings": np.uint32,
    "turn": np.uint8,  # 0 Black to move, 1 White
    "clock": np.uint8,  # plies since the last man move or capture
    "ply": np.uint16,  # plies since the start position
    "score": np.int32,  # the search's score, for the side to move
    "result": np.int8,  # the game's result for Black: 1 won, 0 drawn, -1 lost
    "table": np.int8,  # the tables' value for the side to move: 1, 0, -1, or UNKNOWN
    "game": np.int32,  # the game's number
}


@dataclass(frozen=True, slots=True, kw_only=True)
class SelfPlayConfig:
    """How the games are played; stored in every shard, so a run can be told apart."""

    nodes: int = 20_000
    evaluation: str = "linear"
    network: str | None = None  # a weights file; None: the one shipped
    network_generation: int = 0  # the generation of the network that plays (0: linear)
    random_plies: int = 4
    max_plies: int = 400
    hash_mb: int = 16
    egtb_dir: str | None = None
    games_per_shard: int = 100
    # The number of the folder's first game: another generation's folder can start
    # where the last one stopped, so that its games begin from other random plies.
    first_game: int = 0

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
    """What one finished shard holds."""

    index: int
    games: int
    positions: int
    black_wins: int
    draws: int
    white_wins: int


def shard_path(directory: Path, index: int) -> Path:
    return directory / SHARD_PATTERN.format(index)


def shard_paths(directory: Path) -> list[Path]:
    """The whole shards in ``directory``, in order (never a file still being written)."""
    return sorted(path for path in directory.glob("shard-*.npz")
                  if SHARD_NAME.fullmatch(path.name))


def missing_shards(directory: Path, games: int, games_per_shard: int) -> list[int]:
    """The shards of the first ``games`` games not yet on disk."""
    count = -(-games // games_per_shard)
    return [index for index in range(count) if not shard_path(directory, index).exists()]


def make_engine(config: SelfPlayConfig) -> Engine:
    """The engine the games are played with, its tables loaded if ``egtb_dir`` is set."""
    tables = None
    if config.egtb_dir is not None:
        from doublecorner.egtb import load_tables

        tables = load_tables(Path(config.egtb_dir), max_pieces=TABLE_PIECES, lazy_dtc=True)
    return Engine(hash_mb=config.hash_mb, tables=tables, evaluation=config.evaluation,
                  network=config.network)


def _ending(board: Board) -> Outcome | None:
    """How a self-play game has ended: self-play claims a draw by repetition or the
    40-move rule for the players as soon as one is on the board, as a referee would."""
    return board.outcome(claim_draw=True)


def play_game(engine: Engine, number: int, config: SelfPlayConfig) -> dict[str, np.ndarray]:
    """Play game ``number``; return its columns (see :data:`COLUMNS`)."""
    deck = three_move_deck()
    board = deck[number % len(deck)].board()
    chance = random.Random(number)
    for _ in range(chance.randint(0, config.random_plies)):
        moves = sorted(board.legal_moves, key=lambda move: move.path)
        if not moves or _ending(board) is not None:
            break
        board.push(chance.choice(moves))
    engine.new_game()
    limit = Limit(nodes=config.nodes)
    rows: dict[str, list[int]] = {name: [] for name in COLUMNS if name not in ("result", "game")}
    while _ending(board) is None and len(board.move_stack) < config.max_plies:
        position = board.position()
        result = engine.search(position, limit, history=board.position_history(),
                               halfmove_clock=board.halfmove_clock)
        if result.move is None:
            break
        for name, value in (("black", position.black), ("white", position.white),
                            ("kings", position.kings), ("turn", int(position.turn)),
                            ("clock", board.halfmove_clock), ("ply", len(board.move_stack)),
                            ("score", result.score.value),
                            ("table", _table_value(engine, position))):
            rows[name].append(value)
        board.push(result.move)
    outcome = _ending(board)
    winner = None if outcome is None else outcome.winner  # None also for a game cut short
    black_result = 0 if winner is None else 1 if winner is Color.BLACK else -1
    count = len(rows["black"])
    columns = {name: np.array(values, COLUMNS[name]) for name, values in rows.items()}
    columns["result"] = np.full(count, black_result, COLUMNS["result"])
    columns["game"] = np.full(count, number, COLUMNS["game"])
    return columns


_TABLE_LABEL = {Value.WIN: 1, Value.DRAW: 0, Value.LOSS: -1}


def _table_value(engine: Engine, position: Position) -> int:
    """The tables' value of the position for its side to move, or UNKNOWN."""
    tables = engine.tables
    if tables is None or (position.black | position.white).bit_count() > tables.max_pieces:
        return UNKNOWN
    try:
        return _TABLE_LABEL[tables.value(position)]
    except TableError:  # a slice the folder lacks
        return UNKNOWN


def play_shard(directory: str, index: int, config_items: dict[str, Any]) -> ShardReport:
    """Play and write shard ``index`` (a function of plain arguments, for processes and Ray)."""
    config = SelfPlayConfig(**config_items)
    engine = _worker_engine(config)
    first = config.first_game + index * config.games_per_shard
    games = [play_game(engine, number, config)
             for number in range(first, first + config.games_per_shard)]
    columns = {name: np.concatenate([game[name] for game in games]) for name in COLUMNS}
    path = shard_path(Path(directory), index)
    # Written under another name, then renamed: a killed worker leaves no half shard
    # that a reader would take for a whole one.
    arrays: dict[str, Any] = {"meta": np.array(json.dumps(asdict(config))), **columns}
    with atomic_writer(path, what="self-play shard") as stream:
        np.savez_compressed(stream, **arrays)
    results = [int(game["result"][0]) if len(game["result"]) else 0 for game in games]
    return ShardReport(index, len(games), len(columns["black"]), results.count(1),
                       results.count(0), results.count(-1))


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
    """Play the first ``games`` games into ``directory``, skipping shards already there.

    ``jobs`` processes play shards side by side; with ``use_ray`` each shard
    is a Ray task instead (the folder must be one every node shares).
    ``on_shard`` is called as each shard is written. Returns the new shards' reports.
    """
    directory.mkdir(parents=True, exist_ok=True)
    todo = missing_shards(directory, games, config.games_per_shard)
    arguments = [(str(directory), index, asdict(config)) for index in todo]
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
    return list(_in_processes(arguments, jobs, on_shard))


def _in_processes(arguments: Sequence[tuple[Any, ...]], jobs: int,
                  on_shard: Callable[[ShardReport], None] | None) -> Iterator[ShardReport]:
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        waiting = list(arguments)
        running: set[Future[ShardReport]] = set()
        try:
            while waiting or running:
                while waiting and len(running) < 2 * jobs:
                    running.add(pool.submit(play_shard, *waiting.pop(0)))
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    report = future.result()
                    if on_shard is not None:
                        on_shard(report)
                    yield report
        finally:
            for future in running:
                future.cancel()


@contextmanager
def open_shard(path: Path) -> Iterator[Any]:
    """The arrays of the shard at ``path`` (a ``numpy`` npz archive, read as they are asked for).

    :raises EngineError: the file is missing, no regular file, larger than
        :data:`MAX_SHARD_BYTES`, or no npz archive.
    """
    with ExitStack() as stack:
        try:
            stream = stack.enter_context(open_bounded(path, max_bytes=MAX_SHARD_BYTES,
                                                      what="self-play shard"))
            shard = np.load(stream)
        except FileError as error:
            raise EngineError(str(error)) from None
        except OSError as error:
            raise EngineError(f"cannot read the self-play shard {shown_path(path)}: "
                              f"{error.strerror or error}") from None
        except (ValueError, EOFError, zipfile.BadZipFile):
            shard = None
        if not isinstance(shard, np.lib.npyio.NpzFile):  # numpy's words would speak of pickles
            raise EngineError(f"cannot read the self-play shard {shown_path(path)}: it is no "
                              "npz archive (damaged, or another kind of file)")
        stack.enter_context(shard)
        yield shard


def read_shards(directory: Path) -> dict[str, np.ndarray]:
    """Every shard in ``directory``, concatenated column by column.

    :raises EngineError: there is no shard, one cannot be read, or one lacks a column.
    """
    paths = shard_paths(directory)
    if not paths:
        raise EngineError(f"no self-play shards in {directory}")
    parts: dict[str, list[np.ndarray]] = {name: [] for name in COLUMNS}
    for path in paths:
        with open_shard(path) as shard:
            for name in COLUMNS:
                if name not in shard:
                    raise EngineError(f"shard {path} has no column {name!r}")
                parts[name].append(shard[name].astype(COLUMNS[name], copy=False))
    return {name: np.concatenate(values) for name, values in parts.items()}
