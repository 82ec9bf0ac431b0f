"""The training pipeline: self-play records, targets, the fit and its gradient, the CLI smokes."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from doublecorner import Board, Color, Position
from doublecorner.cli import main
from doublecorner.egtb import Tables
from doublecorner.engine import Engine
from doublecorner.engine.network import Network
from doublecorner.errors import EngineError, TableError
from doublecorner.kernel import network as layout
from doublecorner.kernel.network import PARAMETERS
from doublecorner.match.ballots import three_move_deck
from doublecorner.train.dataset import (
    DISTANCE_CAP,
    build_dataset,
    from_mover,
    reverse_bits,
    split_by_game,
    table_distances,
    targets,
)
from doublecorner.train.deep import deep_path, read_deep
from doublecorner.train.fit import (
    FitConfig,
    fit,
    initial_parameters,
    loss_and_gradient,
)
from doublecorner.train.pipeline import FitRequest, fit_network
from doublecorner.train.positions import COLUMNS, UNKNOWN, read_positions
from doublecorner.train.records import (
    GameRecord,
    read_config,
    read_records,
    records_digest,
    records_path,
    records_paths,
    write_records,
)
from doublecorner.train.selfplay import SelfPlayConfig, missing_shards, run_selfplay
from tests.test_files import machine_paths

SMALL = SelfPlayConfig(nodes=300, evaluation="linear", games_per_shard=3, random_plies=2)
REPOSITORY = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of two records files of three games each."""
    directory = tmp_path_factory.mktemp("selfplay")
    run_selfplay(directory, 6, SMALL)
    return directory


def all_records(directory: Path) -> list[GameRecord]:
    return [record for path in records_paths(directory) for record in read_records(path)]


def test_selfplay_writes_whole_games_with_their_results(shards: Path) -> None:
    assert [path.name for path in shards.iterdir()] == ["games-00000.txt.xz",
                                                        "games-00001.txt.xz"]
    assert read_config(records_path(shards, 1)) == asdict(SMALL)  # it names no path
    games = all_records(shards)
    assert [game.number for game in games] == list(range(6))
    deck = three_move_deck()
    for game in games:
        # The start is the game's ballot, then up to two random plies seeded by its number.
        board = deck[game.number % len(deck)].board()
        chance = random.Random(game.number)
        for _ in range(chance.randint(0, SMALL.random_plies)):
            board.push(chance.choice(sorted(board.legal_moves, key=lambda move: move.path)))
        assert game.start == board.position()
        for move in game.moves:
            board.push(move)
        outcome = board.outcome(claim_draw=True)  # played to the end, or to the ply cap
        assert outcome is not None or len(board.move_stack) == SMALL.max_plies
        winner = None if outcome is None else outcome.winner
        assert game.result == (0 if winner is None else 1 if winner is Color.BLACK else -1)
    columns = read_positions(shards)
    assert set(columns) == set(COLUMNS)
    for game in games:
        rows = columns["game"] == game.number
        assert columns["ply"][rows].tolist() == list(range(len(game.moves)))
        assert columns["score"][rows].tolist() == list(game.scores)
        assert set(columns["result"][rows].tolist()) == {game.result}
    assert np.all(columns["table"] == UNKNOWN)  # read without tables


def test_selfplay_resumes_without_replaying(shards: Path) -> None:
    before = {path.name: path.stat().st_mtime_ns for path in shards.glob("games-*")}
    assert missing_shards(shards, 6, SMALL.games_per_shard) == []
    assert run_selfplay(shards, 6, SMALL) == []
    after = {path.name: path.stat().st_mtime_ns for path in shards.glob("games-*")}
    assert before == after
    assert missing_shards(shards, 9, SMALL.games_per_shard) == [2]


def test_a_selfplay_game_is_the_same_every_time(shards: Path) -> None:
    from doublecorner.train.selfplay import make_engine, play_game

    again = play_game(make_engine(SMALL), 4, SMALL)
    assert again == all_records(shards)[4]


def test_a_later_first_game_plays_the_same_numbered_games(shards: Path, tmp_path: Path) -> None:
    later = replace(SMALL, first_game=3)
    run_selfplay(tmp_path, 3, later)  # one file: games 3, 4 and 5
    assert all_records(tmp_path) == all_records(shards)[3:]


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
    """Columns of these positions, labelled ``table`` (drawn games, score 0)."""
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
    dataset = build_dataset(read_positions(shards))
    training, validation = split_by_game(dataset, validation_share=0.3, seed=2)
    assert len(training) + len(validation) == len(dataset)
    assert not set(training.game.tolist()) & set(validation.game.tolist())
    assert len(validation) > 0


def test_the_gradient_matches_finite_differences() -> None:
    chance = np.random.default_rng(0)
    flat = initial_parameters(3).astype(np.float64)
    inputs = (chance.random((48, layout.INPUTS)) < 0.2).astype(np.float64)
    features = chance.random((48, layout.EXTRA))
    bucket = chance.integers(0, layout.BUCKETS, 48)
    target = chance.random(48)
    _, gradient = loss_and_gradient(flat, inputs, features, bucket, target)
    # The last rows of a bucket's second-layer weights are the position features'.
    feature_weight = layout.L2_WEIGHTS + (layout.HIDDEN + 1) * layout.L2 + 5
    for index in [*chance.choice(PARAMETERS, 25, replace=False), layout.OUT_BIAS,
                  layout.OUT_WEIGHTS + 3, layout.L2_BIAS + 40, layout.FT_BIAS + 7,
                  feature_weight]:
        step = np.zeros(PARAMETERS)
        step[index] = 1e-4
        above, _ = loss_and_gradient(flat + step, inputs, features, bucket, target)
        below, _ = loss_and_gradient(flat - step, inputs, features, bucket, target)
        assert gradient[index] == pytest.approx((above - below) / 2e-4, abs=2e-5)


def test_fitting_lowers_the_validation_loss(shards: Path) -> None:
    dataset = build_dataset(read_positions(shards))
    training, validation = split_by_game(dataset, validation_share=0.3, seed=2)
    result = fit(training, validation, FitConfig(epochs=4, batch_size=64,
                                                 learning_rate=3e-3, seed=5))
    assert result.best_validation_loss < result.epochs[0].validation_loss
    again = fit(training, validation, FitConfig(epochs=4, batch_size=64,
                                                learning_rate=3e-3, seed=5))
    assert np.array_equal(result.parameters, again.parameters)  # seeded


def fit_provenance(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """``train fit`` run to its end: the provenance it printed."""
    assert main(["train", "fit", *argv]) == 0
    out_text, err = capsys.readouterr()
    assert "Traceback" not in err
    provenance: dict[str, Any] = json.loads(out_text.rsplit("wrote", 1)[0])
    return provenance


def test_the_cli_pipeline_smoke(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A tiny generation from nothing: self-play into records, a fit, its record, the PDN."""
    monkeypatch.chdir(tmp_path)  # the fit records paths relative to the folder it runs in
    assert main(["train", "selfplay", "--out", "games", "--games", "4",
                 "--games-per-shard", "2", "--nodes", "50", "--eval", "linear"]) == 0
    assert "2 records files played (0 already there)" in capsys.readouterr().out
    assert sorted(path.name for path in (tmp_path / "games").iterdir()) == [
        "games-00000.txt.xz", "games-00001.txt.xz"]
    provenance = fit_provenance(["games", "--out", "net.dcnn", "--epochs", "1",
                                 "--batch-size", "128", "--validation", "0.5"], capsys)
    assert provenance["generation"] == 1  # learnt from the linear evaluation's games
    data = provenance["data"]
    assert data["games"] == 4 and data["folders"] == ["games"]
    # The network names exactly the games it learnt from: each file and its digest.
    assert data["records"] == [[f"games/{name}", records_digest(tmp_path / "games" / name)]
                               for name in ("games-00000.txt.xz", "games-00001.txt.xz")]
    assert data["table_labels"] == {"tables": None, "pieces": 0, "positions": 0}
    assert len(provenance["fit"]["epochs"]) == 2
    assert main(["train", "info", "net.dcnn"]) == 0
    assert json.loads(capsys.readouterr().out) == provenance
    assert Engine(hash_mb=1, evaluation="nn", network=tmp_path / "net.dcnn").network is not None
    assert main(["train", "export", "games", "--pdn", "games.pdn"]) == 0
    assert "4 games written to games.pdn" in capsys.readouterr().out
    assert (tmp_path / "games.pdn").read_text(encoding="utf-8").count("[Event ") == 4


def test_the_next_generation_learns_from_the_games_of_both(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], egtb4_dir: Path) -> None:
    data = tmp_path / "games"
    assert main(["train", "selfplay", "--out", str(data), "--games", "4",
                 "--games-per-shard", "2", "--nodes", "200", "--eval", "linear"]) == 0
    capsys.readouterr()
    out = tmp_path / "net.dcnn"
    provenance = fit_provenance([str(data), "--out", str(out), "--epochs", "1",
                                 "--batch-size", "128", "--validation", "0.5",
                                 "--distance-step", "0.001", "--egtb", str(egtb4_dir)], capsys)
    assert provenance["fit"]["distance_step"] == 0.001
    assert main(["train", "info", str(out), "--set", "match=+1 =2 -0"]) == 0
    assert Network.from_file(out).provenance["match"] == "+1 =2 -0"
    # Games played by that network are its next generation's data.
    more = tmp_path / "games2"
    assert main(["train", "selfplay", "--out", str(more), "--games", "2",
                 "--games-per-shard", "2", "--nodes", "200", "--network", str(out)]) == 0
    capsys.readouterr()
    assert read_config(records_path(more, 0))["network_generation"] == 1
    out2 = tmp_path / "net2.dcnn"
    second = fit_provenance([str(more), str(data), "--out", str(out2), "--epochs", "1",
                             "--validation", "0.5", "--start", str(out)], capsys)
    assert second == Network.from_file(out2).provenance
    assert second["generation"] == 2
    assert second["history"][0]["generation"] == 1
    assert second["data"]["games"] == 6  # game numbers restart in each folder: all counted
    # Neither the records nor the provenance name the network by its absolute path.
    assert read_config(records_path(more, 0))["network"] == "net.dcnn"
    assert machine_paths(read_config(records_path(more, 0))) == []
    assert machine_paths(second) == []
    assert second["data"]["played_by"][0]["network"] == "net.dcnn"
    assert [name for name, _ in second["data"]["records"]] == [
        "games2/games-00000.txt.xz", "games/games-00000.txt.xz", "games/games-00001.txt.xz"]


ENDINGS = ["B:WK1,K3:BK30", "W:W18:BK14", "B:W26,K7:B10,K19", "B:W20,21,22:B1,2,3"]


def ending_records(directory: Path) -> Path:
    """A records file of short games from endings of four to six pieces."""
    games = []
    for number, fen in enumerate(ENDINGS):
        board = Board(fen)
        start = board.position()
        for _ in range(6):
            moves = sorted(board.legal_moves, key=lambda move: move.path)
            if not moves or board.outcome(claim_draw=True) is not None:
                break
            board.push(moves[0])
        played = tuple(board.move_stack)
        games.append(GameRecord(number, start, played, tuple(range(len(played))), 0))
    directory.mkdir()
    write_records(records_path(directory, 0), games, config=asdict(SMALL))
    return directory


def test_the_fit_labels_positions_only_with_the_tables_given(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], egtb4_dir: Path,
        egtb4: Tables) -> None:
    data = ending_records(tmp_path / "endings")
    columns = read_positions(data, tables=egtb4)
    pieces = [(int(black) | int(white)).bit_count()
              for black, white in zip(columns["black"], columns["white"], strict=True)]
    held = [count <= 4 for count in pieces]
    assert 0 < sum(held) < len(held)
    assert [label != UNKNOWN for label in columns["table"].tolist()] == held
    common = ["--out", str(tmp_path / "net.dcnn"), "--epochs", "1", "--validation", "0.5",
              "--seed", "3"]
    labelled = fit_provenance([str(data), "--egtb", str(egtb4_dir), *common], capsys)
    assert labelled["data"]["table_labels"] == {"tables": egtb4_dir.name, "pieces": 4,
                                                "positions": sum(held)}
    plain = fit_provenance([str(data), *common], capsys)  # no --egtb: no table labels
    assert plain["data"]["table_labels"] == {"tables": None, "pieces": 0, "positions": 0}
    assert plain["fit"]["validation_loss"] != labelled["fit"]["validation_loss"]


def committed_records() -> list[Path]:
    """The folders of self-play records in the repository's data/ (those of the shipped
    networks), if any are there."""
    data = REPOSITORY / "data"
    if not data.is_dir():
        return []
    return sorted(folder for folder in data.iterdir()
                  if folder.is_dir() and records_paths(folder))


def test_a_fresh_clone_fits_the_next_generation_from_the_committed_games(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every committed records file reads whole, and a fit starts from their games."""
    folders = committed_records()
    if not folders:
        pytest.skip("no self-play records committed in data/ yet")
    for folder in folders:
        for path in records_paths(folder):
            assert sum(1 for _ in read_records(path)) > 0, path
    monkeypatch.chdir(REPOSITORY)
    firsts = [str(records_paths(folder)[0].relative_to(REPOSITORY)) for folder in folders]
    deep = ["--deep", "data/deep"] if (REPOSITORY / "data" / "deep").is_dir() else []
    provenance = fit_provenance([*firsts, "--out", str(tmp_path / "next.dcnn"),
                                 "--epochs", "1", "--validation", "0.5", *deep], capsys)
    assert [name for name, _ in provenance["data"]["records"]] == firsts
    assert provenance["generation"] >= 1
    assert machine_paths(provenance) == []
    # The committed deep scores still belong to the committed games (digests checked).
    kept = [deep_path(REPOSITORY / "data" / "deep", Path(first)) for first in firsts]
    expected = sum(len(scores) for path in kept if path.exists()
                   for scores in read_deep(path)[1].values())
    assert provenance["data"]["deep_scores"]["positions"] == expected


@pytest.mark.parametrize(("argv", "message"), [
    (["train", "fit", "/nonexistent", "--out", "x.dcnn"], "no such folder or records file"),
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


def test_files_still_being_written_are_not_records(shards: Path, tmp_path: Path) -> None:
    import shutil

    for path in records_paths(shards):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / ".games-00002.txt.xz.1f2e3d4c.tmp").write_bytes(b"half a file")
    (tmp_path / "games-00003.tmp.txt.xz").write_bytes(b"half a file")
    assert len(read_positions(tmp_path)["game"]) == len(read_positions(shards)["game"])


def test_no_records_is_an_engine_error(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match="no self-play records"):
        read_positions(tmp_path)
    (tmp_path / "games-00000.txt.xz").write_bytes(b"not xz")
    with pytest.raises(EngineError, match=r"cannot read the records file .*games-00000"):
        fit_network(FitRequest(data=(tmp_path,), out=tmp_path / "net.dcnn"))


def test_the_fit_help_names_the_distance_cap(capsys: pytest.CaptureFixture[str]) -> None:
    # The CLI writes the cap out to keep numpy out of its import; this keeps them agreeing.
    assert main(["train", "fit", "--help"]) == 0
    assert f"(up to {DISTANCE_CAP} plies)" in " ".join(capsys.readouterr().out.split())
