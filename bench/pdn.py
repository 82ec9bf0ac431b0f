"""PDN games read and validated per second: doublecorner beside pydraughts, in one run.

Usage::

    python bench/pdn.py            # about two minutes (the first run also installs pydraughts)
    python bench/pdn.py --quick    # a smoke run of some seconds
    python bench/pdn.py --no-peers # doublecorner only
    python bench/pdn.py --json     # one JSON document on stdout instead of the table

The corpus is made here and cached in ``bench/.cache/``: games between random
movers from the ACF three-move ballots (seeded, so every run reads the same
text), written with doublecorner's writer. Every tenth game carries comments,
NAGs and a variation, as annotated files do. The games are random play, so
longer than master games (about 70 plies on average).

* doublecorner reads the whole corpus with ``iter_games`` (a path: bytes
  decoded line by line), building each game tree and checking every move
  against the legal moves as it goes, and then the peer's file below.
* pydraughts 0.6.7 (``pip install pydraughts``, imports as ``draughts``) runs
  in its own virtualenv, ``bench/.venvs/pydraughts`` (created on first use
  with ``bench/perft.py``'s machinery), through
  ``bench/peers/pydraughts_pdn_worker.py``: ``PDNReader`` cuts the file into
  games, and each game's moves are made on a ``Board("english")``, which
  checks them. It gets the first games of the corpus only: its reader splits
  the rest of the file again after every game (time grows with the square of
  the file) and a move costs it milliseconds, so the whole corpus would take
  most of an hour. doublecorner reads that same file too, and the ratio
  compares the two on it.

pydraughts misreads a few of the annotated games (see ``PEER_FAILURE_NOTE``);
the report counts them, and it skips the rest of those games.

Target: doublecorner at least 20 times pydraughts' games per second. Progress
goes to stderr. Exit status 0, or 1 when doublecorner rejects a game of the corpus.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from doublecorner import Board, Move  # noqa: E402
from doublecorner.match import three_move_deck  # noqa: E402
from doublecorner.pdn import Game, GameNode, iter_games  # noqa: E402
from perft import Core, Peer, PeerError, progress, run_worker  # noqa: E402

CACHE_DIR = BENCH_DIR / ".cache"
PEER = Peer("pydraughts", "pydraughts==0.6.7", "pydraughts_pdn_worker.py", Core.PYTHON)
PEER_TIMEOUT = 900.0
TARGET_RATIO = 20.0
SEED = 20261130
MAX_PLIES = 150  # a random game still going after this many plies is stopped, result "*"
ANNOTATE_EVERY = 10
CORPUS_VERSION = 1  # bump when the way the corpus is made changes
# Seen with pydraughts 0.6.7: its reader deletes every repeat of a move number
# such as "12." (a variation of Black's twelfth move repeats it), which shifts
# its pairing of moves to sides.
PEER_FAILURE_NOTE = (" (its reader deletes repeated move numbers, as in '12. 11-16 (12. 13-17 "
                     "...)', and then pairs the moves wrongly; skipping favours its speed)")


@dataclass(frozen=True)
class Plan:
    """How many games the corpus has, how many the peer reads, and runs per timing."""

    games: int
    peer_games: int
    repeat: int


FULL = Plan(games=3000, peer_games=150, repeat=3)
QUICK = Plan(games=300, peer_games=20, repeat=1)


@dataclass(frozen=True)
class Timing:
    """One reader over one file."""

    name: str
    method: str
    file: str
    games: int
    plies: int
    failed: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")


# -- the corpus -------------------------------------------------------------------------


def random_game(rng: random.Random, number: int) -> Game:
    """A game from a random ballot between two random movers, perhaps annotated."""
    deck = three_move_deck()
    ballot = deck[rng.randrange(len(deck))]
    board = Board()
    game = Game()
    game.headers.update(Event="doublecorner PDN bench", Site="random play",
                        Date="2026.11.30", Round=str(number), Black=f"random {2 * number}",
                        White=f"random {2 * number + 1}", Ballot=str(ballot.number))
    node: GameNode = game
    annotate = number % ANNOTATE_EVERY == 0
    moves = list(ballot.moves)
    while len(board.move_stack) < MAX_PLIES and not board.is_game_over(claim_draw=True):
        legal = sorted(board.legal_moves, key=lambda move: move.path)
        move = moves.pop(0) if moves else rng.choice(legal)
        if annotate and len(legal) > 1 and rng.random() < 0.1:
            others = [other for other in legal if other != move]
            _add_sideline(node, board, rng.choice(others), rng)
        node = node.add_variation(move)
        if annotate and rng.random() < 0.1:
            node.comment = rng.choice(["a well-known idea", "forced", "the only move",
                                       "White has to be careful here"])
            node.nags.add(rng.choice([1, 2, 5, 6, 14, 15]))
        board.push(move)
    outcome = board.outcome(claim_draw=True)  # random players claim draws at once
    game.headers["Result"] = "*" if outcome is None else outcome.result()
    return game


def _add_sideline(node: GameNode, board: Board, first: Move, rng: random.Random) -> None:
    """Add a short random line starting with ``first`` after ``node`` (``board`` is left as is)."""
    side = board.copy(stack=False)
    current = node.add_variation(first)
    side.push(first)
    for _ in range(rng.randrange(1, 5)):
        legal = sorted(side.legal_moves, key=lambda move: move.path)
        if not legal:
            break
        move = rng.choice(legal)
        current = current.add_variation(move)
        side.push(move)


def corpus(games: int) -> Path:
    """The path of a corpus of ``games`` games, made and cached on first use."""
    path = CACHE_DIR / f"pdn-corpus-v{CORPUS_VERSION}-{games}-{SEED}.pdn"
    if path.exists():
        return path
    progress(f"writing a corpus of {games} games to {path.relative_to(BENCH_DIR.parent)} ...")
    rng = random.Random(SEED)
    CACHE_DIR.mkdir(exist_ok=True)
    partial = path.with_suffix(".partial")
    with partial.open("w", encoding="utf-8") as out:
        for number in range(1, games + 1):
            out.write(("\n" if number > 1 else "") + str(random_game(rng, number)))
    partial.replace(path)
    return path


def first_games(path: Path, games: int) -> Path:
    """A file of the first ``games`` games of ``path`` (games are separated by blank lines)."""
    target = path.with_name(f"{path.stem}-first-{games}.pdn")
    if not target.exists():
        blocks = path.read_text(encoding="utf-8").split("\n\n[")
        text = "\n\n[".join(blocks[:games])
        target.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    return target


# -- the readers ----------------------------------------------------------------------------


def time_ours(path: Path, repeat: int) -> Timing:
    """doublecorner's lenient reader over ``path``: every game built, every move checked."""
    best = float("inf")
    games = plies = failed = 0
    for _ in range(repeat):
        started = time.perf_counter()
        games = plies = failed = 0
        for game in iter_games(path):
            games += 1
            plies += len(game.mainline_moves())
            failed += bool(game.errors)
        best = min(best, time.perf_counter() - started)
    return Timing("doublecorner", "iter_games(path): game trees, every move checked",
                  path.name, games, plies, failed, best)


def time_peer(path: Path) -> Timing:
    """pydraughts over ``path``, in its virtualenv.

    :raises PeerError: it cannot be installed or run.
    """
    stdout = run_worker(PEER, BENCH_DIR / "peers" / PEER.worker, str(path),
                        timeout=PEER_TIMEOUT)
    try:
        record = json.loads(stdout.strip().splitlines()[-1])
        return Timing("pydraughts", str(record["method"]), path.name, int(record["games"]),
                      int(record["plies"]), int(record["failed"]), float(record["seconds"]))
    except (IndexError, KeyError, TypeError, ValueError) as error:
        raise PeerError(f"unreadable worker output: {stdout[-200:]!r}") from error


# -- the report -------------------------------------------------------------------------------


def format_text(timings: list[Timing], ratio: float | None, failures: list[str]) -> str:
    header = ("reader", "file", "games", "plies", "failed", "seconds", "games/s")
    rows = [header] + [(t.name, t.file, str(t.games), str(t.plies), str(t.failed),
                        f"{t.seconds:.2f}", f"{t.games_per_second:,.1f}") for t in timings]
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    lines = ["  ".join(cell.ljust(width) if column < 2 else cell.rjust(width)
                       for column, (cell, width) in enumerate(zip(row, widths, strict=True)))
             for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    lines += ["", "methods:", *{f"  {t.name}: {t.method}": None for t in timings}]
    lines += [f"  {t.name} could not make a move in {t.failed} of {t.games} games and skipped "
              "the rest of each" + (PEER_FAILURE_NOTE if t.name == PEER.name else "")
              for t in timings if t.failed]
    if failures:
        lines += ["", "not measured:", *(f"  {failure}" for failure in failures)]
    verdict = ("not measured" if ratio is None
               else f"{ratio:.1f}x ({'met' if ratio >= TARGET_RATIO else 'MISSED'})")
    lines += ["", f"target: doublecorner >= {TARGET_RATIO:g}x pydraughts' games/s on the same "
                  f"file: {verdict}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small corpus: a smoke run")
    parser.add_argument("--no-peers", action="store_true", help="doublecorner only")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    arguments = parser.parse_args(argv)
    plan = QUICK if arguments.quick else FULL
    path = corpus(plan.games)
    peer_path = first_games(path, plan.peer_games)
    time_ours(peer_path, 1)  # load the compiled kernel before the clock starts
    progress(f"doublecorner: {plan.games} games ...")
    timings = [time_ours(path, plan.repeat)]
    progress(f"doublecorner: the first {plan.peer_games} games ...")
    ours_small = time_ours(peer_path, plan.repeat)
    timings.append(ours_small)
    failures: list[str] = []
    ratio = None
    if not arguments.no_peers:
        progress(f"pydraughts: the first {plan.peer_games} games (about a second each) ...")
        try:
            peer = time_peer(peer_path)
        except (PeerError, OSError) as error:
            failures.append(f"pydraughts: {error}")
        else:
            timings.append(peer)
            ratio = ours_small.games_per_second / peer.games_per_second
    if arguments.json:
        print(json.dumps({"timings": [dict(asdict(t), games_per_second=t.games_per_second)
                                      for t in timings],
                          "ratio": ratio, "target": TARGET_RATIO, "failures": failures},
                         indent=2))
    else:
        print(format_text(timings, ratio, failures))
    return 1 if any(timing.failed for timing in timings if timing.name == "doublecorner") else 0


if __name__ == "__main__":
    sys.exit(main())
