"""Self-play data from a BatchedGame: a shard of positions with their games' results.

Thousands of games are played at once from the ACF deck's openings, each side
choosing uniformly among its legal actions (``BatchedGame.random_actions``;
put a policy there to play better games). Every position where a move
starts is kept with the game's result, in the columns of ``doublecorner train
selfplay``'s shards (``doublecorner.train.selfplay.COLUMNS``), with no search
score (0) and no table value (``UNKNOWN``): labels by result only, for a value
network or for checking a data pipeline at speed. Finished games are counted
and written as one ``shard-00000.npz``.

Run from the repository::

    python examples/batch_selfplay.py                       # 10,000 games, a few seconds
    python examples/batch_selfplay.py --games 100000 --batch 4096 --out /tmp/shards
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from doublecorner.envs import BatchedGame
from doublecorner.train.selfplay import COLUMNS, SHARD_PATTERN, UNKNOWN

OPENING_PLIES = 3  # a deck opening is three moves from the start position


def play(games: int, batch_size: int, seed: int) -> dict[str, np.ndarray]:
    """Play until ``games`` games have finished; the columns of their positions."""
    batch = BatchedGame(batch_size, start="deck", seed=seed)
    number = np.arange(batch_size)  # the game each slot is playing
    ply = np.full(batch_size, OPENING_PLIES, dtype=np.int64)
    next_number = batch_size
    chunks: list[dict[str, np.ndarray]] = []
    results = np.zeros(games + 2 * batch_size, dtype=np.int8)
    finished = 0
    while finished < games:
        starting = np.flatnonzero(~batch.is_jumping)  # a move starts here: keep the position
        positions = batch.positions[starting]
        chunks.append({"black": positions[:, 0], "white": positions[:, 1],
                       "kings": positions[:, 2], "turn": positions[:, 3],
                       "clock": batch.halfmove_clocks[starting].copy(),
                       "ply": ply[starting].copy(), "game": number[starting].copy()})
        _, _, rewards, terminated, truncated = batch.step(batch.random_actions())
        ply[batch.last_moves >= 0] += 1
        for slot in np.flatnonzero(terminated | truncated).tolist():
            results[number[slot]] = int(rewards[slot, 0])  # Black's result
            finished += 1
            number[slot], ply[slot] = next_number, OPENING_PLIES  # a new game in the slot
            next_number += 1
    rows = {name: np.concatenate([chunk[name] for chunk in chunks]) for name in chunks[0]}
    # Keep the games that finished: the slots' last games are cut off.
    unfinished = np.zeros(next_number, dtype=bool)
    unfinished[number] = True
    keep = ~unfinished[rows["game"]]
    columns = {name: np.empty(int(keep.sum()), kind) for name, kind in COLUMNS.items()}
    for name, values in rows.items():
        columns[name][:] = values[keep]
    columns["result"][:] = results[rows["game"][keep]]
    columns["score"][:] = 0
    columns["table"][:] = UNKNOWN
    return columns


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=1024, help="games played at once")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("selfplay-batch"))
    arguments = parser.parse_args(argv)
    start = time.perf_counter()
    columns = play(arguments.games, arguments.batch, arguments.seed)
    elapsed = time.perf_counter() - start
    arguments.out.mkdir(parents=True, exist_ok=True)
    path = arguments.out / SHARD_PATTERN.format(0)
    np.savez_compressed(path, **columns)
    games = len(np.unique(columns["game"]))
    wins = np.bincount(columns["result"][np.unique(columns["game"], return_index=True)[1]] + 1,
                       minlength=3)
    print(f"{games:,} games, {len(columns['game']):,} positions in {elapsed:.1f} s "
          f"(Black won {wins[2]:,}, drew {wins[1]:,}, lost {wins[0]:,}); wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
