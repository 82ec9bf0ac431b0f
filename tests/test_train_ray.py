"""Self-play on Ray (``train selfplay --ray``): the same records as a local run."""

from __future__ import annotations

from pathlib import Path

import pytest

from doublecorner.train.records import read_records, records_paths
from doublecorner.train.selfplay import SelfPlayConfig, run_selfplay

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.usefixtures("local_ray")  # see conftest.py

CONFIG = SelfPlayConfig(nodes=200, evaluation="linear", games_per_shard=2, random_plies=3)


def test_ray_records_are_the_local_records(tmp_path: Path) -> None:
    local, remote = tmp_path / "local", tmp_path / "ray"
    run_selfplay(local, 4, CONFIG)
    reports = run_selfplay(remote, 4, CONFIG, use_ray=True)
    assert sorted(report.index for report in reports) == [0, 1]
    assert [path.name for path in records_paths(remote)] == ["games-00000.txt.xz",
                                                            "games-00001.txt.xz"]
    for mine, theirs in zip(records_paths(local), records_paths(remote), strict=True):
        assert list(read_records(mine)) == list(read_records(theirs))
    assert run_selfplay(remote, 4, CONFIG, use_ray=True) == []  # nothing left to play
