"""Matches on Ray (``--ray``): the same games as a local run, retried tasks, the clock."""

from __future__ import annotations

import functools
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from doublecorner import Board, Move
from doublecorner.cli import main
from doublecorner.engine import Limit
from doublecorner.match import (
    ClockReading,
    GameClock,
    GameRecord,
    Player,
    RandomPlayer,
    parse_player,
    run_match,
    three_move_deck,
)
from doublecorner.match.distributed import run_match_on_ray

ray = pytest.importorskip("ray")

FIRST, SECOND = "engine:depth=2", "random:seed=3"
LIMIT = Limit(depth=2)

pytestmark = pytest.mark.usefixtures("local_ray")  # see conftest.py


def _build(spec: str) -> Player:
    return parse_player(spec, default_limit=LIMIT, movetime=0.1)


def _dies_once(flag: Path, spec: str, **options: Any) -> Player:
    """Builds the player, but kills its worker process the first time (a dying node)."""
    if spec == FIRST and not flag.exists():
        flag.write_text("died once", encoding="utf-8")
        os._exit(1)
    return parse_player(spec, **options)


class _Dawdler(RandomPlayer):
    """Takes 50 ms a move: on a clock of 0.12 s it loses on time."""

    def choose(self, board: Board, clock: ClockReading | None = None) -> Move | None:
        time.sleep(0.05)
        return super().choose(board, clock)


def _with_dawdler(spec: str, **options: Any) -> Player:
    return _Dawdler(1) if spec == "dawdler" else parse_player(spec, **options)


def _essence(records: list[GameRecord]) -> list[tuple[Any, ...]]:
    return [(r.number, r.ballot, r.first_is_black, r.black, r.white, r.moves, r.result,
             r.reason, r.fallback_moves) for r in records]


def test_a_fixed_depth_match_on_ray_plays_the_games_of_a_local_run() -> None:
    ballots = three_move_deck()[:2]
    local = run_match(lambda: _build(FIRST), lambda: _build(SECOND), ballots)
    seen: list[int] = []
    remote = run_match_on_ray(FIRST, SECOND, ballots, default_limit=LIMIT, movetime=0.1,
                              engines={}, on_game=lambda record: seen.append(record.number))
    assert _essence(remote) == _essence(local)
    assert sorted(seen) == [1, 2, 3, 4]
    assert run_match_on_ray(FIRST, SECOND, ballots, default_limit=LIMIT, movetime=0.1,
                            skip={1, 2, 3, 4}) == []


def test_a_game_whose_worker_dies_is_played_again(tmp_path: Path) -> None:
    flag = tmp_path / "died"
    ballots = three_move_deck()[:1]
    records = run_match_on_ray(FIRST, SECOND, ballots, default_limit=LIMIT, movetime=0.1,
                               skip={2}, build=functools.partial(_dies_once, flag))
    assert flag.exists()
    local = run_match(lambda: _build(FIRST), lambda: _build(SECOND), ballots, skip={2})
    assert _essence(records) == _essence(local)


def test_a_match_on_ray_keeps_the_clock() -> None:
    records = run_match_on_ray("dawdler", SECOND, three_move_deck()[:1],
                               default_limit=Limit(clock=0.12), movetime=0.1,
                               build=_with_dawdler, clock=GameClock(0.12))
    assert [record.first_player_points for record in records] == [0.0, 0.0]
    assert all("lost on time" in record.reason for record in records)


def test_a_match_on_ray_stops_when_asked() -> None:
    stop = threading.Event()
    records = run_match_on_ray(FIRST, SECOND, three_move_deck()[:4], default_limit=LIMIT,
                               movetime=0.1, on_game=lambda record: stop.set(), stop=stop)
    assert len(records) == 1  # the games still running are cancelled
    assert run_match_on_ray(FIRST, SECOND, three_move_deck()[:4], default_limit=LIMIT,
                            movetime=0.1, stop=stop) == []


def test_an_sprt_match_on_ray_stops_when_the_test_decides(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    assert main(["match", FIRST, SECOND, "--depth", "2", "--ray", "--quiet", "--sprt",
                 "elo0=0,elo1=200", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^SPRT: H1 accepted \(elo1=200\)", out, re.MULTILINE)
    games = int(re.findall(r": (\d+) games in", out)[0])
    assert 16 <= games < 100
    assert len(results.read_text(encoding="utf-8").splitlines()) == games + 1


def _score(capsys: pytest.CaptureFixture[str], extra: list[str]) -> tuple[int, list[str]]:
    status = main(["match", FIRST, SECOND, "--depth", "2", "--openings", "1-2", *extra])
    out = capsys.readouterr().out
    games = sorted(re.findall(r"^game .*?: (\S+) \(", out, flags=re.MULTILINE))
    summary = out.splitlines()[-1]
    return status, [*games, summary]


def test_the_command_gives_the_same_score_on_ray(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    local = _score(capsys, ["--pdn", str(tmp_path / "local.pdn")])
    on_ray = _score(capsys, ["--ray", "--pdn", str(tmp_path / "ray.pdn"),
                             "--results", str(tmp_path / "ray.jsonl")])
    assert local == on_ray and local[0] == 0
    assert len((tmp_path / "ray.jsonl").read_text(encoding="utf-8").splitlines()) == 5
    assert (tmp_path / "ray.pdn").read_text(encoding="utf-8").count("[Round ") == 4


def test_without_ray_the_command_says_what_to_install(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    assert main(["match", FIRST, SECOND, "--openings", "1", "--ray"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "pip install '.[ray]'" in error


def test_tables_adjudicate_on_ray_as_they_do_here(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    from doublecorner.egtb import build

    build(3, tmp_path / "egtb")
    journals = {}
    for run, extra in (("local", []), ("ray", ["--ray"])):
        journals[run] = tmp_path / f"{run}.jsonl"
        assert main(["match", "random:seed=3", "random:seed=4", "--openings", "1-3", "--quiet",
                     "--egtb", str(tmp_path / "egtb"), "--results", str(journals[run]),
                     *extra]) == 0
    capsys.readouterr()
    local, on_ray = (journals[run].read_text(encoding="utf-8").splitlines()
                     for run in ("local", "ray"))
    assert local[0] == on_ray[0] and sorted(local[1:]) == sorted(on_ray[1:])
    assert any("adjudicated by endgame tables" in line for line in local)
