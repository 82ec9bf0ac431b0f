"""PDN archives analysed on Ray (``analyse GAMES.pdn --ray``): the same files as a local run."""

from __future__ import annotations

from pathlib import Path

import pytest

from doublecorner.cli import main

ray = pytest.importorskip("ray")

GAMES = """[Event "one"]
[Black "A"]
[White "B"]
[Result "*"]

1. 11-15 23-19 2. 8-11 22-18 3. 15x22 25x18 4. 9-14 18x9 5. 5x14 *

[Event "two"]
[Black "C"]
[White "D"]
[Result "*"]

1. 9-13 22-18 {a comment kept} 2. 12-16 24-19 3. 16-20 *

[Event "three"]
[FEN "B:W18,27:BK10,1"]
[Result "*"]

1. 10-15 18x11 *
"""

BROKEN = '[Event "bad"]\n[FEN "B:W99:B1"]\n[Result "*"]\n\n*\n'

pytestmark = pytest.mark.usefixtures("local_ray")  # see conftest.py


def _analyse(source: Path, out: Path, *extra: str) -> int:
    return main(["analyse", str(source), "--depth", "3", "--hash", "4", "-o", str(out),
                 *extra])


def test_games_analysed_on_ray_are_written_as_a_local_run_writes_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "games.pdn"
    source.write_text(GAMES, encoding="utf-8")
    assert _analyse(source, tmp_path / "local.pdn") == 0
    capsys.readouterr()
    assert _analyse(source, tmp_path / "ray.pdn", "--ray") == 0
    remote = (tmp_path / "ray.pdn").read_bytes()
    assert remote == (tmp_path / "local.pdn").read_bytes()
    assert remote.count(b"[Event ") == 3 and b"[" in remote.split(b"1. 11-15")[1]
    errors = capsys.readouterr().err
    assert "(3 of 3 games done)" in errors
    assert "game 3: 2 plies analysed" in errors


def test_a_game_that_cannot_be_analysed_fails_alone_on_ray_as_locally(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "games.pdn"
    source.write_text(BROKEN + "\n" + GAMES.split('[Event "three"]')[0], encoding="utf-8")
    assert _analyse(source, tmp_path / "local.pdn") == 1
    capsys.readouterr()
    assert _analyse(source, tmp_path / "ray.pdn", "--ray") == 1
    assert (tmp_path / "ray.pdn").read_bytes() == (tmp_path / "local.pdn").read_bytes()
    errors = capsys.readouterr().err
    assert "game 1: cannot be analysed" in errors and "(2 of 2 games done)" in errors
    assert "1 of 3 games could not be analysed" in errors


def test_ray_with_a_fen_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "B:W18,27:BK10,1", "--depth", "1", "--ray"]) == 2
    assert "--ray needs a PDN file" in capsys.readouterr().err
