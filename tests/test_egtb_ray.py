"""Endgame tables built on Ray (``egtb build --ray``): the same files as a local build."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from doublecorner.cli import main
from doublecorner.egtb import build, materials
from doublecorner.egtb.build_distributed import build_on_ray, build_pair_task
from doublecorner.egtb.material import build_levels

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.usefixtures("local_ray")  # see conftest.py


def _file_bytes(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.glob("*.dcdb"))}


def test_a_build_on_ray_writes_the_files_of_a_local_build(tmp_path: Path) -> None:
    local, distributed = tmp_path / "local", tmp_path / "ray"
    build(3, local)
    seen: list[tuple[int, int]] = []
    report = build_on_ray(3, distributed, on_progress=lambda done, total, _: seen.append(
        (done, total)))
    assert _file_bytes(distributed) == _file_bytes(local)
    assert sorted(report.built) == sorted(m.name for m in materials(3)) and not report.loaded
    assert seen[-1][0] == seen[-1][1]  # the progress reaches the end
    assert report.deepest_dtc > 0


def test_a_task_run_again_keeps_what_its_first_run_wrote(tmp_path: Path) -> None:
    """A worker that died after writing its pair: the rerun finds the files and stops."""
    build(2, tmp_path)
    pair = next(pair for level in build_levels(3) for pair in level if pair[0].pieces == 3)
    first = build_pair_task(pair, str(tmp_path), True)
    written = _file_bytes(tmp_path)
    again = build_pair_task(pair, str(tmp_path), True)
    assert first.built and not again.built and again.names == first.names
    assert _file_bytes(tmp_path) == written


def test_the_build_command_on_ray_resumes_a_local_build(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(2, tmp_path)
    before = {path.name: os.stat(path).st_mtime_ns for path in tmp_path.glob("*.dcdb")}
    assert main(["egtb", "build", "--pieces", "3", "--dir", str(tmp_path), "--ray"]) == 0
    out = capsys.readouterr().out
    built = len(materials(3)) - len(materials(2))
    assert f"{built} slices built, {len(materials(2))} already there" in out
    assert all(os.stat(tmp_path / name).st_mtime_ns == stamp for name, stamp in before.items())
