"""The game database: games imported per second, bytes per game, explore latency.

Usage::

    python bench/db.py                       # 10,000 random games (about a minute)
    python bench/db.py --games 100000        # and 1000000: the sizes of issue 17
    python bench/db.py --records data/gen1   # the games of self-play records
    python bench/db.py --json                # one JSON document on stdout instead

The corpus is one PDN file. Random games start from the ACF three-move
ballots (game ``g`` from ballot ``g mod 156``) and go on with uniformly random
legal moves (seeded) until the rules end them or 150 plies; players, events
and dates are drawn so that searches have something to find. It is cached in
``bench/.cache/``, so a second run times the import alone. Games from
self-play records (``doublecorner train selfplay``) are written as they were
played: from the position after the ballot and random plies (a set-up
position), with the record's moves and result.

Measured, on a fresh database in a temporary folder:

* **import**: ``GameDatabase.import_files`` on the file, wall-clock, in games
  per second (PDN reading, replay and hashing included); beside it the
  reading alone (the same reader and builder on the file's first 100,000
  games, nothing written), to tell the reader's share from SQLite's;
* **bytes per game**: the database file after a WAL checkpoint, divided by
  the games stored;
* **explore**: ``GameDatabase.explore`` (counts per move and the ten newest
  games) on ``--queries`` positions drawn from the games (a random game, a
  random ply), in ms: median, 99th percentile and worst; and the start
  position (reached by every random game: the biggest answer) on its own.

Progress goes to stderr. Exit status 0.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from doublecorner import Board, Move
from doublecorner.db import GameDatabase, GameDatabaseError, ImportProgress
from doublecorner.db.records import IndexingBuilder
from doublecorner.match import three_move_deck
from doublecorner.pdn import PdnReader

BENCH_DIR = Path(__file__).resolve().parent
CACHE_DIR = BENCH_DIR / ".cache"
SEED = 20261130
MAX_PLIES = 150
DEFAULT_GAMES = 10_000
DEFAULT_QUERIES = 2_000
READ_ALONE_GAMES = 100_000
PLAYERS = 200
EVENTS = 40
RESULTS = {1: "1-0", 0: "1/2-1/2", -1: "0-1"}


@dataclass
class Report:
    source: str
    games_in_file: int
    games_stored: int
    file_mb: float
    import_seconds: float
    import_games_per_second: float
    read_games_per_second: float
    database_mb: float
    bytes_per_game: float
    queries: int
    explore_p50_ms: float
    explore_p99_ms: float
    explore_max_ms: float
    start_position_games: int
    start_position_ms: float


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- the corpus ---------------------------------------------------------------


def movetext(moves: list[Move], *, white_first: bool = False) -> str:
    """Moves with their numbers, in full paths (the reader resolves nothing)."""
    parts = []
    for index, move in enumerate(moves):
        ply = index + white_first
        if ply % 2 == 0:
            parts.append(f"{ply // 2 + 1}.")
        elif index == 0:
            parts.append("1...")
        parts.append(str(move))
    lines, line = [], ""
    for part in parts:
        if len(line) + len(part) + 1 > 79:
            lines.append(line)
            line = part
        else:
            line = f"{line} {part}" if line else part
    return "\n".join([*lines, line])


def game_text(number: int, rng: random.Random, moves: list[Move], result: str,
              fen: str | None = None) -> str:
    black, white = rng.randrange(PLAYERS), rng.randrange(PLAYERS)
    year = rng.randint(1950, 2026)
    tags = {"Event": f"Event {rng.randrange(EVENTS)}", "Site": "?",
            "Date": f"{year}.{rng.randint(1, 12):02d}.{rng.randint(1, 28):02d}",
            "Round": str(number), "Black": f"Player {black}", "White": f"Player {white}",
            "Result": result, "GameType": "21"}
    if fen is not None:
        tags.update(SetUp="1", FEN=fen)
    head = "".join(f'[{name} "{value}"]\n' for name, value in tags.items())
    white_first = fen is not None and fen.startswith("W")
    return f"{head}\n{movetext(moves, white_first=white_first)} {result}\n\n"


def random_corpus(games: int) -> Path:
    path = CACHE_DIR / f"db-random-{games}-{SEED}.pdn"
    if path.exists():
        return path
    CACHE_DIR.mkdir(exist_ok=True)
    deck = three_move_deck()
    rng = random.Random(SEED)
    started = time.monotonic()
    temporary = path.with_suffix(".tmp")
    with temporary.open("w", encoding="utf-8") as out:
        for number in range(games):
            board = deck[number % len(deck)].board()
            while len(board.move_stack) < MAX_PLIES:
                moves = list(board.legal_moves)
                if not moves or board.outcome(claim_draw=True) is not None:
                    break
                board.push(rng.choice(moves))
            outcome = board.outcome(claim_draw=True)  # random players claim draws at once
            result = "*" if outcome is None else outcome.result()
            out.write(game_text(number, rng, board.move_stack, result))
            if (number + 1) % 10_000 == 0:
                progress(f"corpus: {number + 1:,} of {games:,} random games "
                         f"({time.monotonic() - started:.0f} s)")
    temporary.rename(path)
    return path


def records_corpus(directory: Path, games: int | None) -> Path:
    """The games of the self-play records in ``directory``, as one PDN file."""
    from doublecorner.train.records import read_records, records_paths

    path = Path(tempfile.mkdtemp(prefix="db-bench-")) / "selfplay.pdn"
    rng = random.Random(SEED)
    written = 0
    with path.open("w", encoding="utf-8") as out:
        for records in records_paths(directory):
            for record in read_records(records):
                if games is not None and written >= games:
                    break
                out.write(game_text(record.number, rng, list(record.moves),
                                    RESULTS[record.result], fen=record.start.fen()))
                written += 1
    progress(f"corpus: {written:,} games of the self-play records in {directory}")
    return path


# -- the measurements -------------------------------------------------------------


def read_only(path: Path) -> tuple[int, float]:
    """The file's first games read with the importer's builder, nothing written.

    Returns (games, seconds); ``READ_ALONE_GAMES`` at most are read, enough for a rate.
    """
    started = time.perf_counter()
    count = 0
    with path.open("rb") as handle:
        reader = PdnReader(handle)
        builder = IndexingBuilder()
        while count < READ_ALONE_GAMES and reader.read_game(builder) is not None:
            count += 1
    return count, time.perf_counter() - started


def sample_positions(database: GameDatabase, count: int, rng: random.Random,
                     stored: int) -> list[Board]:
    """``count`` positions: a random stored game (by id), a random ply of it.

    The games are read back from the database, so drawing them costs the same
    at any size (streaming the PDN again took minutes at a million games).
    """
    boards: list[Board] = []
    for _ in range(20 * count):  # ids are 1 to ``stored``; a few may be unused
        if len(boards) == count:
            break
        try:
            game = database.game(rng.randint(1, stored))
        except GameDatabaseError:
            continue  # an id left unused
        board = Board(game.start_fen)
        for move in game.moves[:rng.randint(0, len(game.moves))]:
            board.push_str(move)
        boards.append(board)
    return boards


def measure(path: Path, source: str, queries: int) -> Report:
    size = path.stat().st_size
    len(Board().legal_moves)  # the kernel loaded (or compiled) before any clock starts
    with tempfile.TemporaryDirectory(prefix="db-bench-") as folder:
        database_path = Path(folder) / "games.sqlite3"
        with GameDatabase(database_path) as database:
            progress(f"import: {path.name} ({size / 1e6:.1f} MB)")
            started = time.perf_counter()
            last = [0.0]

            def report(step: ImportProgress) -> None:
                now = time.perf_counter()
                if now - last[0] >= 10:
                    last[0] = now
                    progress(f"import: {step.games:,} games, {now - started:.0f} s")

            summary = database.import_files([path], progress=report)
            import_seconds = time.perf_counter() - started
            stored = database.count_games()
            games_in_file = summary.imported + summary.duplicates + summary.skipped
        # Closing the last connection folds the WAL into the file (and removes it).
        database_bytes = sum(file.stat().st_size for file in Path(folder).iterdir())
        with GameDatabase(database_path) as database:
            boards = sample_positions(database, queries, random.Random(SEED), stored)
            progress(f"explore: {len(boards):,} positions")
            times = []
            for board in boards:
                started = time.perf_counter()
                database.explore(board)
                times.append(1000 * (time.perf_counter() - started))
            started = time.perf_counter()
            start = database.explore(Board())
            start_ms = 1000 * (time.perf_counter() - started)
    progress("read alone: the same file's first games, nothing written")
    read_games, read_seconds = read_only(path)
    times.sort()
    return Report(
        source=source, games_in_file=games_in_file, games_stored=stored, file_mb=size / 1e6,
        import_seconds=import_seconds,
        import_games_per_second=games_in_file / import_seconds,
        read_games_per_second=read_games / read_seconds,
        database_mb=database_bytes / 1e6, bytes_per_game=database_bytes / max(stored, 1),
        queries=len(times), explore_p50_ms=statistics.median(times),
        explore_p99_ms=times[min(len(times) - 1, int(0.99 * len(times)))],
        explore_max_ms=times[-1], start_position_games=start.games,
        start_position_ms=start_ms)


def print_report(report: Report) -> None:
    print(f"corpus      {report.source}: {report.games_in_file:,} games, "
          f"{report.file_mb:.1f} MB of PDN; {report.games_stored:,} stored")
    print(f"import      {report.import_games_per_second:,.0f} games/s "
          f"({report.import_seconds:.1f} s; reading the PDN alone: "
          f"{report.read_games_per_second:,.0f} games/s)")
    print(f"database    {report.database_mb:.1f} MB, {report.bytes_per_game:,.0f} bytes per game")
    print(f"explore     {report.queries:,} positions: p50 {report.explore_p50_ms:.2f} ms, "
          f"p99 {report.explore_p99_ms:.2f} ms, max {report.explore_max_ms:.2f} ms; "
          f"the start position ({report.start_position_games:,} games) "
          f"{report.start_position_ms:.2f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=None,
                        help=f"games in the corpus (default {DEFAULT_GAMES:,}; with --records "
                             "all the records hold)")
    parser.add_argument("--records", type=Path, metavar="DIR",
                        help="the games of the self-play records in DIR")
    parser.add_argument("--queries", type=int, default=DEFAULT_QUERIES,
                        help=f"positions explored (default {DEFAULT_QUERIES:,})")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    arguments = parser.parse_args()
    if arguments.records is not None:
        path = records_corpus(arguments.records, arguments.games)
        source = f"self-play records in {arguments.records}"
    else:
        path = random_corpus(arguments.games or DEFAULT_GAMES)
        source = "random games from the three-move ballots"
    report = measure(path, source, arguments.queries)
    if arguments.records is not None:
        path.unlink()
        path.parent.rmdir()
    if arguments.json:
        print(json.dumps(asdict(report)))
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
