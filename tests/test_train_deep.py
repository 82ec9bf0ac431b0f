"""Deeper scores for records' positions (doublecorner.train.deep) and the fit that takes them."""

from __future__ import annotations

import json
import lzma
import shutil
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

from doublecorner.cli import main
from doublecorner.engine import Engine
from doublecorner.errors import EngineError
from doublecorner.kernel.movegen import has_captures
from doublecorner.train.dataset import build_dataset, repeat_deep
from doublecorner.train.deep import (
    DeepConfig,
    chosen_plies,
    decode_deep_line,
    deep_path,
    deep_scores,
    encode_deep_line,
    missing_files,
    read_deep,
    run_deepen,
)
from doublecorner.train.positions import read_positions
from doublecorner.train.records import read_records, records_digest, records_paths

CONFIG = DeepConfig(nodes=400, min_pieces=6, max_pieces=20, every=3, evaluation="linear",
                    hash_mb=4)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("deep") / "games"
    assert main(["train", "selfplay", "--out", str(folder), "--games", "4",
                 "--games-per-shard", "2", "--nodes", "100", "--eval", "linear"]) == 0
    return folder


@pytest.fixture(scope="module")
def deepened(games: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("deep") / "scores"
    reports = run_deepen([games], root, CONFIG)
    assert [report.path.name for report in reports] == ["deep-00000.txt.xz",
                                                        "deep-00001.txt.xz"]
    assert sum(report.positions for report in reports) > 0
    return root


def test_the_chosen_plies_are_quiet_every_kth_and_of_the_pieces_asked_for(games: Path) -> None:
    chosen = 0
    for path in records_paths(games):
        for record in read_records(path):
            plies = chosen_plies(record, CONFIG)
            states = record.states()
            for ply, (black, white, kings, turn, _) in enumerate(states):
                fits = (CONFIG.min_pieces <= (black | white).bit_count() <= CONFIG.max_pieces
                        and not has_captures(black, white, kings, turn)
                        and (ply + record.number) % CONFIG.every == 0)
                assert (ply in plies) == fits
            chosen += len(plies)
    assert chosen > 0


def test_each_records_file_gets_its_deep_scores_file(games: Path, deepened: Path) -> None:
    engine = Engine(hash_mb=CONFIG.hash_mb, tables=None, evaluation="linear")
    for path in records_paths(games):
        header, scores = read_deep(deep_path(deepened, path), records_sha256=records_digest(path))
        assert header["records"] == f"games/{path.name}"
        assert {key: header[key] for key in asdict(CONFIG)} == asdict(CONFIG)
        for record in read_records(path):
            # The same searches again give the same scores (a game's table carried along).
            again = deep_scores(engine, record, CONFIG)
            assert scores.get(record.number, {}) == again
            assert sorted(again) == chosen_plies(record, CONFIG)


def test_a_run_resumes_without_searching_again(games: Path, deepened: Path) -> None:
    before = {path: path.stat().st_mtime_ns for path in deepened.rglob("deep-*")}
    assert missing_files([games], deepened) == []
    assert run_deepen([games], deepened, CONFIG) == []
    assert {path: path.stat().st_mtime_ns for path in deepened.rglob("deep-*")} == before


def test_the_positions_take_the_deep_scores_where_there_are_any(games: Path,
                                                                deepened: Path) -> None:
    plain = read_positions(games)
    deep = read_positions(games, deep_root=deepened)
    assert not plain["deep"].any()
    kept: dict[tuple[int, int], int] = {}
    for path in records_paths(games):
        for game, scores in read_deep(deep_path(deepened, path))[1].items():
            kept |= {(game, ply): score for ply, score in scores.items()}
    for row in range(len(deep["game"])):
        key = (int(deep["game"][row]), int(deep["ply"][row]))
        assert bool(deep["deep"][row]) == (key in kept)
        assert deep["score"][row] == kept.get(key, plain["score"][row])
    for name in ("black", "white", "kings", "turn", "result", "game", "ply"):
        assert np.array_equal(plain[name], deep[name])


def test_deep_scores_of_another_records_file_are_refused(games: Path, deepened: Path,
                                                         tmp_path: Path) -> None:
    other = tmp_path / "games"
    other.mkdir()
    first, second = records_paths(games)
    shutil.copy(second, other / first.name)  # another file under the first one's name
    with pytest.raises(EngineError, match="another records file"):
        read_positions(other, deep_root=deepened)


def test_a_damaged_deep_scores_file_is_an_error_naming_its_line(games: Path, deepened: Path,
                                                                tmp_path: Path) -> None:
    path = records_paths(games)[0]
    header, _ = read_deep(deep_path(deepened, path))
    broken = tmp_path / "scores" / "games" / "deep-00000.txt.xz"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(lzma.compress(f"#dcd 1 {json.dumps(header)}\n0\t1:5,2:x\n".encode()))
    with pytest.raises(EngineError, match=r"deep-00000.txt.xz', line 2: game 0: '2:x'"):
        read_positions(path, deep_root=tmp_path / "scores")
    broken.write_bytes(lzma.compress(b"#dcg 1 {}\n"))
    with pytest.raises(EngineError, match="is no deep scores file"):
        read_positions(path, deep_root=tmp_path / "scores")
    broken.write_bytes(b"not xz")
    with pytest.raises(EngineError, match="cannot read the deep scores file"):
        read_positions(path, deep_root=tmp_path / "scores")


@pytest.mark.parametrize("line", ["", "5", "x\t1:2", "5\t1:2:3", "5\t-1:2", "5\t01:2",
                                  "5\t1:2\textra"])
def test_a_bad_deep_line_is_refused(line: str) -> None:
    with pytest.raises(EngineError):
        decode_deep_line(line)


def test_a_deep_line_round_trips() -> None:
    assert decode_deep_line(encode_deep_line(12, {30: -7, 4: 15})) == (12, {4: 15, 30: -7})
    assert decode_deep_line("3\t") == (3, {})


def test_the_cli_deepens_then_fits_with_the_deep_scores(games: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    root = tmp_path / "deep"
    assert main(["train", "deepen", str(games), "--out", str(root), "--nodes", "300",
                 "--pieces", "6-20", "--every", "2", "--eval", "linear", "--files", "1"]) == 0
    assert "1 deep scores files written" in capsys.readouterr().out
    assert [path.name for path in (root / "games").iterdir()] == ["deep-00000.txt.xz"]
    out = tmp_path / "net.dcnn"
    assert main(["train", "fit", str(games), "--out", str(out), "--epochs", "1",
                 "--validation", "0.5", "--deep", str(root), "--deep-repeat", "2"]) == 0
    printed, err = capsys.readouterr()
    provenance = json.loads(printed.rsplit("\nwrote", 1)[0])
    deep = provenance["data"]["deep_scores"]
    assert deep["repeat"] == 2 and "training positions with a deep score 2 times" in err
    header, scores = read_deep(root / "games" / "deep-00000.txt.xz")
    assert deep["positions"] == sum(len(game) for game in scores.values()) > 0
    assert deep["made_by"] == [{key: value for key, value in header.items()
                                if key not in ("records", "records_sha256")}]


@pytest.mark.parametrize(("argv", "message"), [
    (["train", "fit", ".", "--out", "x.dcnn", "--deep", "/nonexistent"],
     "--deep /nonexistent: no such folder"),
    (["train", "fit", ".", "--out", "x.dcnn", "--deep-repeat", "3"],
     "--deep-repeat needs the deep scores: add --deep DIR"),
    (["train", "deepen", ".", "--out", "x", "--every", "0"], "expected 1 to 1000 plies"),
    (["train", "deepen", ".", "--out", "x", "--pieces", "1-30"], "within 2-24"),
    (["train", "deepen", "/nonexistent", "--out", "x"], "no such folder or records file"),
])
def test_bad_deepen_arguments_are_one_line(argv: list[str], message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_repeating_the_deep_positions_weighs_them_more(games: Path, deepened: Path) -> None:
    dataset = build_dataset(read_positions(games, deep_root=deepened))
    deep = int(np.count_nonzero(dataset.deep))
    assert 0 < deep < len(dataset)
    assert repeat_deep(dataset, 1) is dataset
    tripled = repeat_deep(dataset, 3)
    assert len(tripled) == len(dataset) + 2 * deep
    assert int(np.count_nonzero(tripled.deep)) == 3 * deep
    assert np.array_equal(tripled.target[:len(dataset)], dataset.target)
    assert np.array_equal(np.sort(tripled.target[len(dataset):]),
                          np.sort(np.repeat(dataset.target[dataset.deep], 2)))
