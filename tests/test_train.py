"""The training pipeline: self-play shards, targets, the fit and its gradient, the CLI smoke."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from doublecorner import Position
from doublecorner.cli import main
from doublecorner.egtb import Tables
from doublecorner.engine import Engine
from doublecorner.engine.network import Network
from doublecorner.errors import EngineError, TableError
from doublecorner.kernel import network as layout
from doublecorner.kernel.network import PARAMETERS
from doublecorner.train.dataset import (
    DISTANCE_CAP,
    build_dataset,
    from_mover,
    reverse_bits,
    split_by_game,
    table_distances,
    targets,
)
from doublecorner.train.fit import (
    FitConfig,
    fit,
    initial_parameters,
    loss_and_gradient,
)
from doublecorner.train.selfplay import (
    COLUMNS,
    UNKNOWN,
    SelfPlayConfig,
    missing_shards,
    read_shards,
    run_selfplay,
)
from tests.test_files import machine_paths

SMALL = SelfPlayConfig(nodes=300, evaluation="linear", games_per_shard=3, random_plies=2)


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("selfplay")
    run_selfplay(directory, 6, SMALL)
    return directory


def test_selfplay_writes_whole_games_with_their_results(shards: Path) -> None:
    columns = read_shards(shards)
    assert set(columns) == set(COLUMNS)
    assert sorted(set(columns["game"].tolist())) == list(range(6))
    for game in range(6):
        rows = columns["game"] == game
        plies = columns["ply"][rows]
        assert np.all(np.diff(plies) == 1)  # every position of the game, in order
        assert len(set(columns["result"][rows].tolist())) == 1
        assert np.all(columns["turn"][rows] == plies % 2)  # Black moves on even plies
    assert np.all(columns["table"] == UNKNOWN)  # played without tables


def test_selfplay_resumes_without_replaying(shards: Path) -> None:
    before = {path.name: path.stat().st_mtime_ns for path in shards.glob("shard-*.npz")}
    assert missing_shards(shards, 6, SMALL.games_per_shard) == []
    assert run_selfplay(shards, 6, SMALL) == []
    after = {path.name: path.stat().st_mtime_ns for path in shards.glob("shard-*.npz")}
    assert before == after
    assert missing_shards(shards, 9, SMALL.games_per_shard) == [2]


def test_a_selfplay_game_is_the_same_every_time(shards: Path) -> None:
    from doublecorner.train.selfplay import make_engine, play_game

    again = play_game(make_engine(SMALL), 4, SMALL)
    columns = read_shards(shards)
    rows = columns["game"] == 4
    for name in ("black", "white", "kings", "score", "result"):
        assert np.array_equal(again[name], columns[name][rows])


def test_a_later_first_game_plays_the_same_numbered_games(shards: Path, tmp_path: Path) -> None:
    from dataclasses import replace

    later = replace(SMALL, first_game=3)
    run_selfplay(tmp_path, 3, later)  # one shard: games 3, 4 and 5
    columns, earlier = read_shards(tmp_path), read_shards(shards)
    assert sorted(set(columns["game"].tolist())) == [3, 4, 5]
    rows = earlier["game"] >= 3
    for name in ("black", "white", "kings", "score", "result"):
        assert np.array_equal(columns[name], earlier[name][rows])


def test_targets_blend_result_and_score_and_trust_the_tables() -> None:
    columns: dict[str, np.ndarray] = {
        "turn": np.array([0, 1, 0, 0], np.uint8),
        "result": np.array([1, 1, -1, 0], np.int8),
        "score": np.array([0, 0, 400, 30000], np.int32),
        "table": np.array([UNKNOWN, UNKNOWN, UNKNOWN, 0], np.int8),
    }
    got = targets(columns, result_weight=0.5)
    assert got[0] == pytest.approx(0.5 * 1 + 0.5 * 0.5)  # Black won, Black to move
    assert got[1] == pytest.approx(0.5 * 0 + 0.5 * 0.5)  # Black won, White to move
    assert got[2] == pytest.approx(0.5 * 0 + 0.5 / (1 + np.exp(-400 / 200)))
    assert got[3] == pytest.approx(0.5)  # the tables say draw, whatever the rest says


def _table_columns(fens: list[str], table: list[int]) -> dict[str, np.ndarray]:
    """Shard columns of these positions, labelled ``table`` (drawn games, score 0)."""
    positions = [Position.from_fen(fen) for fen in fens]
    return {
        "black": np.array([position.black for position in positions], np.uint32),
        "white": np.array([position.white for position in positions], np.uint32),
        "kings": np.array([position.kings for position in positions], np.uint32),
        "turn": np.array([int(position.turn) for position in positions], np.uint8),
        "result": np.zeros(len(fens), np.int8),
        "score": np.zeros(len(fens), np.int32),
        "table": np.array(table, np.int8),
    }


def test_table_targets_prefer_the_shorter_win(egtb4: Tables) -> None:
    fens = ["B:W18:BK14", "W:WK1,K3:BK30", "B:WK1,K3:BK30", "B:WK1:BK32", "B:W9,10,11:B1"]
    positions = [Position.from_fen(fen) for fen in fens]
    # won, won, lost, drawn, not labelled
    columns = _table_columns(fens, [1, 1, -1, 0, UNKNOWN])
    distances = table_distances(columns, egtb4)
    assert distances[0] == 1  # the king takes the last man
    assert distances.tolist() == [1, egtb4.dtc(positions[1]), egtb4.dtc(positions[2]), 0, 0]
    assert min(distances[1:3]) > 0
    step = 0.001
    got = targets(columns, result_weight=0.5, distances=distances, distance_step=step)
    assert got[0] == pytest.approx(1 - step)
    assert got[1] == pytest.approx(1 - step * min(int(distances[1]), DISTANCE_CAP))
    assert got[2] == pytest.approx(step * min(int(distances[2]), DISTANCE_CAP))
    assert got[3] == pytest.approx(0.5)
    assert got[4] == pytest.approx(0.5)  # the blend: a drawn game, score 0
    far = targets(columns, result_weight=0.5, distances=np.full(5, 1000), distance_step=step)
    assert far[1] == pytest.approx(1 - step * DISTANCE_CAP)  # counted up to the cap
    plain = targets(columns, result_weight=0.5)
    assert plain[:3].tolist() == [1, 1, 0]
    with pytest.raises(TableError, match="no table loaded"):  # five pieces: not in these tables
        table_distances(_table_columns(["B:W18,19,20:BK14,K1"], [1]), egtb4)
    with pytest.raises(ValueError, match="needs the endgame tables"):
        build_dataset(columns, distance_step=step)


def test_positions_are_seen_from_the_mover() -> None:
    boards = np.array([0x1, 0x80000000, 0xF0], np.uint32)
    assert reverse_bits(boards).tolist() == [0x80000000, 0x1, 0x0F000000]
    own, theirs, kings = from_mover(np.array([0x1]), np.array([0x80000000]), np.array([0]),
                                    np.array([1]))
    assert (own[0], theirs[0], kings[0]) == (0x1, 0x80000000, 0)


def test_the_validation_split_keeps_games_whole(shards: Path) -> None:
    dataset = build_dataset(read_shards(shards))
    training, validation = split_by_game(dataset, validation_share=0.3, seed=2)
    assert len(training) + len(validation) == len(dataset)
    assert not set(training.game.tolist()) & set(validation.game.tolist())
    assert len(validation) > 0


def test_the_gradient_matches_finite_differences() -> None:
    chance = np.random.default_rng(0)
    flat = initial_parameters(3).astype(np.float64)
    inputs = (chance.random((48, layout.INPUTS)) < 0.2).astype(np.float64)
    bucket = chance.integers(0, layout.BUCKETS, 48)
    target = chance.random(48)
    _, gradient = loss_and_gradient(flat, inputs, bucket, target)
    for index in [*chance.choice(PARAMETERS, 25, replace=False), layout.OUT_BIAS,
                  layout.OUT_WEIGHTS + 3, layout.L2_BIAS + 40, layout.FT_BIAS + 7]:
        step = np.zeros(PARAMETERS)
        step[index] = 1e-4
        above, _ = loss_and_gradient(flat + step, inputs, bucket, target)
        below, _ = loss_and_gradient(flat - step, inputs, bucket, target)
        assert gradient[index] == pytest.approx((above - below) / 2e-4, abs=2e-5)


def test_fitting_lowers_the_validation_loss(shards: Path) -> None:
    dataset = build_dataset(read_shards(shards))
    training, validation = split_by_game(dataset, validation_share=0.3, seed=2)
    result = fit(training, validation, FitConfig(epochs=4, batch_size=64,
                                                 learning_rate=3e-3, seed=5))
    assert result.best_validation_loss < result.epochs[0].validation_loss
    again = fit(training, validation, FitConfig(epochs=4, batch_size=64,
                                                learning_rate=3e-3, seed=5))
    assert np.array_equal(result.parameters, again.parameters)  # seeded


def test_the_cli_pipeline_smoke(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                egtb4_dir: Path) -> None:
    data = tmp_path / "games"
    assert main(["train", "selfplay", "--out", str(data), "--games", "4",
                 "--games-per-shard", "2", "--nodes", "200", "--eval", "linear"]) == 0
    assert "2 shards played" in capsys.readouterr().out
    out = tmp_path / "net.dcnn"
    assert main(["train", "fit", str(data), "--out", str(out), "--epochs", "1",
                 "--batch-size", "128", "--validation", "0.5", "--distance-step", "0.001",
                 "--egtb", str(egtb4_dir)]) == 0
    out_text, err = capsys.readouterr()
    provenance = json.loads(out_text.rsplit("wrote", 1)[0])
    assert provenance["generation"] == 1  # learnt from the linear evaluation's games
    assert "epoch   0  the starting weights   validation loss" in err
    assert "nan" not in err.lower()  # epoch 0 has trained on nothing: said so (issue 27)
    assert provenance["fit"]["distance_step"] == 0.001
    assert provenance["data"]["games"] == 4
    assert len(provenance["fit"]["epochs"]) == 2
    assert Engine(hash_mb=1, evaluation="nn", network=out).network is not None
    assert main(["train", "info", str(out), "--set", "match=+1 =2 -0"]) == 0
    assert Network.from_file(out).provenance["match"] == "+1 =2 -0"
    # Games played by that network are its next generation's data.
    more = tmp_path / "games2"
    assert main(["train", "selfplay", "--out", str(more), "--games", "2",
                 "--games-per-shard", "2", "--nodes", "200", "--network", str(out)]) == 0
    capsys.readouterr()
    from doublecorner.train.pipeline import shard_configs

    assert [config["network_generation"] for config in shard_configs(more)] == [1]
    out2 = tmp_path / "net2.dcnn"
    assert main(["train", "fit", str(more), str(data), "--out", str(out2), "--epochs", "1",
                 "--validation", "0.5", "--start", str(out)]) == 0
    second = Network.from_file(out2).provenance
    assert second["generation"] == 2
    assert second["history"][0]["generation"] == 1
    # The shards name the network that played by its absolute path; the record does not.
    assert [config["network"] for config in shard_configs(more)] == [str(out.resolve())]
    assert machine_paths(second) == []
    assert second["data"]["played_by"][0]["network"] == "net.dcnn"


@pytest.mark.parametrize(("argv", "message"), [
    (["train", "fit", "/nonexistent", "--out", "x.dcnn"], "no such folder of shards"),
    (["train", "selfplay", "--out", "x", "--games", "0"], "at least 1"),
    (["train", "selfplay", "--out", "x", "--games", "2", "--eval", "linear", "--network",
      "n.dcnn"], "--network goes with --eval nn"),
    (["train", "fit", ".", "--out", "x.dcnn", "--result-weight", "2"], "from 0 to 1"),
    (["train", "fit", ".", "--out", "x.dcnn", "--distance-step", "0.001"],
     "--distance-step needs the endgame tables: add --egtb"),
    (["train", "selfplay", "--out", "x", "--games", "2", "--first-game", "-4"],
     "from 0 to 10**9, not -4"),
])
def test_bad_train_arguments_are_one_line(argv: list[str], message: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_files_still_being_written_are_not_shards(shards: Path, tmp_path: Path) -> None:
    import shutil

    for name in ("shard-00000.npz", "shard-00001.npz"):
        shutil.copy(shards / name, tmp_path / name)
    (tmp_path / "shard-00002.npz.tmp").write_bytes(b"PK half a zip")
    (tmp_path / "shard-00003.tmp.npz").write_bytes(b"PK half a zip")
    assert len(read_shards(tmp_path)["game"]) == len(read_shards(shards)["game"])


def test_no_shards_is_an_engine_error(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match="no self-play shards"):
        read_shards(tmp_path)


def test_the_fit_help_names_the_distance_cap(capsys: pytest.CaptureFixture[str]) -> None:
    # The CLI writes the cap out to keep numpy out of its import; this keeps them agreeing.
    assert main(["train", "fit", "--help"]) == 0
    assert f"(up to {DISTANCE_CAP} plies)" in " ".join(capsys.readouterr().out.split())
