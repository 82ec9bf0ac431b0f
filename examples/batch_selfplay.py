"""Self-play data from a BatchedGame: a records file of games, for the training pipeline.

Thousands of games are played at once from the ACF deck's openings, each side
choosing uniformly among its legal actions (``BatchedGame.random_actions``;
put a policy there to play better games). Each finished game becomes a record
in the format of ``doublecorner train selfplay`` (:mod:`doublecorner.train.records`):
its start after the opening, its moves, its result, and no search score (0
before every move): labels by result only, for a value network or for checking
a data pipeline at speed. The games are written as one ``games-00000.txt.xz``,
which ``doublecorner train fit`` and ``train export`` read like any other.

Run from the repository::

    python examples/batch_selfplay.py                       # 10,000 games, a few seconds
    python examples/batch_selfplay.py --games 100000 --batch 4096 --out /tmp/records
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from doublecorner import Move
from doublecorner.envs import BatchedGame
from doublecorner.kernel import decode_path
from doublecorner.train.records import GameRecord, records_path, write_records


def play(games: int, batch_size: int, seed: int) -> list[GameRecord]:
    """Play until ``games`` games have finished; their records, in the order they ended."""
    batch = BatchedGame(batch_size, start="deck", seed=seed)
    starts = [batch.position(slot) for slot in range(batch_size)]
    moves: list[list[Move]] = [[] for _ in range(batch_size)]
    number = list(range(batch_size))  # the game each slot is playing
    next_number = batch_size
    finished: list[GameRecord] = []
    while len(finished) < games:
        _, _, rewards, terminated, truncated = batch.step(batch.random_actions())
        keys = batch.last_moves  # a move completed (not a hop of a multi-jump in progress)
        for slot in np.flatnonzero(keys >= 0).tolist():
            moves[slot].append(Move(*decode_path(int(keys[slot]))))
        for slot in np.flatnonzero(terminated | truncated).tolist():
            played = tuple(moves[slot])
            finished.append(GameRecord(number[slot], starts[slot], played, (0,) * len(played),
                                       int(rewards[slot, 0])))  # Black's result
            # The batch has already set the slot's next game up (autoreset="same-step").
            starts[slot], moves[slot] = batch.position(slot), []
            number[slot], next_number = next_number, next_number + 1
    return finished[:games]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=1024, help="games played at once")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("selfplay-batch"))
    arguments = parser.parse_args(argv)
    start = time.perf_counter()
    records = play(arguments.games, arguments.batch, arguments.seed)
    elapsed = time.perf_counter() - start
    arguments.out.mkdir(parents=True, exist_ok=True)
    path = records_path(arguments.out, 0)
    write_records(path, records, config={"evaluation": "random", "nodes": 0,
                                         "seed": arguments.seed})
    results = [record.result for record in records]
    moves = sum(len(record.moves) for record in records)
    print(f"{len(records):,} games, {moves:,} moves in {elapsed:.1f} s (Black won "
          f"{results.count(1):,}, drew {results.count(0):,}, lost {results.count(-1):,}); "
          f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
