"""The engine with the network evaluation: choosing it, and the weights file's checks."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from doublecorner import Board, Position
from doublecorner.engine import Engine, Limit
from doublecorner.engine.network import FORMAT_VERSION, Network, load_network
from doublecorner.engine.search import DEFAULT_EVALUATION
from doublecorner.errors import EngineError
from doublecorner.kernel.network import PARAMETERS
from doublecorner.match.players import EnginePlayer, parse_player
from doublecorner.protocol import EngineServer
from tests.test_network import random_positions
from tests.test_protocol import Lines

SHOT = "W:W30,29,22,21,9,6:B24,20,16,13,8,7"


def test_the_shipped_network_loads_with_its_provenance() -> None:
    network = Network.default()
    assert network.parameters.shape == (PARAMETERS,)
    assert network.provenance["generation"] >= 1
    assert network.provenance["data"]["positions"] > 0
    assert Network.default() is network  # read once per process


def test_a_network_file_round_trips(tmp_path: Path) -> None:
    parameters = np.random.default_rng(1).normal(0, 0.1, PARAMETERS).astype(np.float32)
    path = tmp_path / "net.dcnn"
    Network(parameters, {"generation": 3}).save(path)
    again = Network.from_file(path)
    assert np.array_equal(again.parameters, parameters)
    assert again.provenance == {"generation": 3}
    assert not list(tmp_path.glob("*.tmp"))


def _damaged(data: bytes, how: str) -> bytes:
    if how == "truncated":
        return data[:-10]
    if how == "padded":
        return data + b"\0"
    if how == "magic":
        return b"XXXX" + data[4:]
    if how == "version":
        return data[:4] + struct.pack("<I", FORMAT_VERSION + 1) + data[8:]
    if how == "older version":  # a network from before the position features
        return data[:4] + struct.pack("<I", FORMAT_VERSION - 1) + data[8:]
    if how == "architecture":
        return data[:8] + struct.pack("<I", 99) + data[12:]
    if how == "checksum":
        middle = len(data) // 2
        return data[:middle] + bytes([data[middle] ^ 1]) + data[middle + 1:]
    raise AssertionError(how)


@pytest.mark.parametrize(("how", "message"), [
    ("truncated", "damaged: .* bytes where"),
    ("padded", "damaged: .* bytes where"),
    ("magic", "is not a network file"),
    ("version", "network format 3; this doublecorner reads format 2"),
    ("older version", "network format 1; this doublecorner reads format 2"),
    ("architecture", "holds a network of shape"),
    ("checksum", "checksum does not match"),
])
def test_a_damaged_network_file_is_one_engine_error(tmp_path: Path, how: str,
                                                     message: str) -> None:
    path = tmp_path / "bad.dcnn"
    path.write_bytes(_damaged(Network.default().to_bytes(), how))
    with pytest.raises(EngineError, match=message):
        Engine(hash_mb=1, evaluation="nn", network=path)


def test_a_missing_network_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(EngineError,
                       match=r"cannot read the network file .*nothere.dcnn.*does not exist"):
        load_network(tmp_path / "nothere.dcnn")


def test_non_finite_weights_are_refused() -> None:
    parameters = np.zeros(PARAMETERS, np.float32)
    parameters[5] = np.nan
    body = Network(np.zeros(PARAMETERS, np.float32)).to_bytes()
    with pytest.raises(EngineError, match="not all finite"):
        Network(parameters)
    header_and_notes = len(body) - 4 - 4 * PARAMETERS
    nan_body = body[:header_and_notes] + parameters.astype("<f4").tobytes()
    with pytest.raises(EngineError, match="not all finite"):
        Network.from_bytes(nan_body + struct.pack("<I", zlib.crc32(nan_body)))


def test_an_unknown_evaluation_is_refused() -> None:
    with pytest.raises(EngineError, match="unknown evaluation 'neural': use nn or linear"):
        Engine(hash_mb=1, evaluation="neural")


def test_the_network_engine_finds_the_shot() -> None:
    engine = Engine(hash_mb=8, evaluation="nn")
    result = engine.search(Position.from_fen(SHOT), Limit(depth=14))
    assert result.move is not None and str(result.move) == "22-17"
    assert result.score.is_win


def test_the_network_scores_a_position_and_its_mirror_alike() -> None:
    engine = Engine(hash_mb=1, evaluation="nn")
    board = Board()
    for move in ("11-15", "23-19", "8-11", "22-17"):
        board.push_str(move)
    position = board.position()
    flipped = Position.from_fen(_mirror_fen(position))
    assert engine.evaluate(position) == engine.evaluate(flipped)
    assert engine.evaluate(Position.from_fen("B:W18:B")).is_loss  # no piece: no move


def _mirror_fen(position: Position) -> str:
    """The same position with the colours swapped and the board turned round."""
    def squares(bits: int) -> list[int]:
        return [33 - (index + 1) for index in range(32) if bits >> index & 1]

    def side(bits: int) -> str:
        return ",".join(("K" if position.kings >> (32 - square) & 1 else "") + str(square)
                        for square in sorted(squares(bits)))

    turn = "W" if position.turn.name == "BLACK" else "B"
    return f"{turn}:W{side(position.black)}:B{side(position.white)}"


def test_match_player_specs_choose_the_evaluation(tmp_path: Path) -> None:
    linear = parse_player("engine:eval=linear", default_limit=Limit(depth=1), movetime=0.1)
    assert isinstance(linear, EnginePlayer) and linear.engine.evaluation == "linear"
    assert "linear" in linear.name
    path = tmp_path / "net.dcnn"
    Network.default().save(path)
    mine = parse_player(f"engine:weights={path}", default_limit=Limit(depth=1), movetime=0.1)
    assert isinstance(mine, EnginePlayer) and mine.engine.evaluation == "nn"
    assert "net.dcnn" in mine.name
    for spec, message in (("engine:eval=fast", "eval is nn or linear, not 'fast'"),
                          (f"engine:eval=linear,weights={path}", "network= goes with eval=nn"),
                          ("engine:weights=/nonexistent.dcnn", "cannot read the network file")):
        with pytest.raises(EngineError, match=message):
            parse_player(spec, default_limit=Limit(depth=1), movetime=0.1)


def test_the_protocol_offers_and_sets_the_evaluation(tmp_path: Path) -> None:
    lines = Lines()
    handshake = lines.send("dcp")
    assert (f"option name Evaluation type combo default {DEFAULT_EVALUATION} var nn var linear"
            in handshake)
    assert "option name EvalFile type string default <shipped>" in handshake
    assert lines.send("setoption name Evaluation value linear") == []
    assert lines.server._engine.evaluation == "linear"
    assert lines.send("setoption name Evaluation value nn") == []
    assert lines.server._engine.evaluation == "nn"
    path = tmp_path / "net.dcnn"
    Network.default().save(path)
    assert lines.send(f"setoption name EvalFile value {path}") == []
    assert lines.server._engine.network is not None
    assert lines.server._engine.network.source == str(path)
    engine = lines.server._engine
    for command, message in (
            ("setoption name Evaluation value fast", "Evaluation is nn or linear, not 'fast'"),
            ("setoption name EvalFile value /nonexistent.dcnn", "cannot read the network file"),
            ("setoption name Hash value ²", "needs a whole number of MB")):
        answer = lines.send(command)
        assert len(answer) == 1 and answer[0].startswith("error ") and message in answer[0]
        assert lines.server._engine is engine  # nothing changed
    assert lines.search("go depth 3")[-1].startswith("bestmove ")
    assert isinstance(lines.server, EngineServer)


def test_the_command_line_chooses_the_evaluation(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from doublecorner.cli import main

    start = Board()
    for argv in (["bestmove", "--depth", "4", "--eval", "linear"],
                 ["bestmove", "--depth", "4", "--eval", "nn"],
                 ["bestmove", "--depth", "4", "--network", str(_saved(tmp_path))]):
        assert main(argv) == 0
        assert start.parse_move(capsys.readouterr().out.strip()) in start.legal_moves
    bad = tmp_path / "bad.dcnn"
    bad.write_bytes(b"garbage")
    for argv, message in (
            (["bestmove", "--network", str(bad)], "bad.dcnn is not a network file"),
            (["analyse", "--eval", "linear", "--network", str(bad)],
             "--network goes with --eval nn"),
            (["play", "--eval", "fast"], "invalid choice: 'fast'")):
        assert main(argv) == 2
        error = capsys.readouterr().err
        assert message in error and error.count("\n") == 1


def _saved(directory: Path) -> Path:
    path = directory / "copy.dcnn"
    Network.default().save(path)
    return path


def _positions_along_random_games(count: int, seed: int) -> list[Position]:
    """Every seventh position of seeded random games."""
    return random_positions(7 * count, seed)[6::7]


@pytest.mark.parametrize("evaluation", ["nn", "linear"])
def test_the_search_score_is_the_fresh_evaluation_at_the_end_of_its_line(
        evaluation: str) -> None:
    """The root score of a finished search is the static score of the PV's last position.

    The search scores leaves from accumulators brought up to date only when a
    leaf needs them; this scores the PV's last position afresh.
    """
    engine = Engine(hash_mb=8, evaluation=evaluation)
    compared = 0
    for position in _positions_along_random_games(40, seed=11):
        engine.new_game()
        result = engine.search(position, Limit(depth=5))
        if result.score.is_win or result.score.is_loss:
            continue
        board = Board(position.fen())
        for move in result.pv:
            board.push(move)
        leaf = engine.evaluate(board.position())
        sign = 1 if len(result.pv) % 2 == 0 else -1
        assert result.score.value == sign * leaf.value, (position.fen(), result.pv)
        compared += 1
    assert compared >= 30


_SEARCH_SCRIPT = """
import json, sys
from doublecorner import Position
from doublecorner.engine import Engine, Limit
results = []
for fen in json.loads(sys.argv[1]):
    for evaluation in ("nn", "linear"):
        engine = Engine(hash_mb=1, evaluation=evaluation)
        found = engine.search(Position.from_fen(fen), Limit(depth=6))
        results.append([found.nodes, found.score.value, [str(move) for move in found.pv]])
print(json.dumps(results))
"""


def test_the_search_gives_identical_results_without_numba() -> None:
    """NUMBA_DISABLE_JIT=1 runs the search as plain Python: the same tree, score and line."""
    fens = json.dumps([Board().fen(), SHOT, "B:WK10,13,K17,K23,32:B5,12,K22,K29,K31"])

    def run(environment: dict[str, str]) -> list[object]:
        completed = subprocess.run([sys.executable, "-c", _SEARCH_SCRIPT, fens],
                                   capture_output=True, text=True, env=environment,
                                   check=True, timeout=600)
        results: list[object] = json.loads(completed.stdout)
        return results

    assert run({**os.environ, "NUMBA_DISABLE_JIT": "1"}) == run(dict(os.environ))
