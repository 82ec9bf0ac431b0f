"""Self-play on Ray (``train selfplay --ray``): the same shards as a local run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from doublecorner.train.selfplay import COLUMNS, SelfPlayConfig, run_selfplay

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.usefixtures("local_ray")  # see conftest.py

CONFIG = SelfPlayConfig(nodes=200, evaluation="linear", games_per_shard=2, random_plies=3)


def test_ray_shards_are_the_local_shards(tmp_path: Path) -> None:
    local, remote = tmp_path / "local", tmp_path / "ray"
    run_selfplay(local, 4, CONFIG)
    reports = run_selfplay(remote, 4, CONFIG, use_ray=True)
    assert sorted(report.index for report in reports) == [0, 1]
    for name in ("shard-00000.npz", "shard-00001.npz"):
        with np.load(local / name) as mine, np.load(remote / name) as theirs:
            for column in COLUMNS:
                assert np.array_equal(mine[column], theirs[column])
    assert run_selfplay(remote, 4, CONFIG, use_ray=True) == []  # nothing left to play
