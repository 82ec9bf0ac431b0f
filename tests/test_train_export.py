"""Self-play shards exported as PDN: the games replay the shards' positions, gaps are faults."""

from __future__ import annotations

import io
import json
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

from doublecorner.board import Board
from doublecorner.cli import main
from doublecorner.pdn import Game, iter_games
from doublecorner.position import Position
from doublecorner.train.export import EVENT, SelfPlayGame, export_pdn, rebuild_game
from doublecorner.train.selfplay import COLUMNS, read_shards, run_selfplay, shard_paths
from tests.test_train import SMALL

GAMES = 6
PLAYER = "doublecorner linear 300 nodes"  # SMALL's engine
RESULTS = {1: "1-0", 0: "1/2-1/2", -1: "0-1"}  # the result column is Black's


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("selfplay")
    run_selfplay(directory, GAMES, SMALL)
    return directory


def positions_of(columns: dict[str, np.ndarray], rows: np.ndarray) -> list[Position]:
    return [Position(int(black), int(white), int(kings), int(turn)) for black, white, kings, turn
            in zip(columns["black"][rows], columns["white"][rows], columns["kings"][rows],
                   columns["turn"][rows], strict=True)]


def replayed(game: Game) -> list[Position]:
    """The positions of a game read back: its start, then one after each move."""
    board = game.board()
    positions = [board.position()]
    for move in game.mainline_moves():
        board.push(move)
        positions.append(board.position())
    return positions


def write_shard(directory: Path, index: int, columns: dict[str, np.ndarray]) -> None:
    """A shard as selfplay writes it (its meta, the columns), made by hand."""
    directory.mkdir(exist_ok=True)
    arrays = {"meta": np.array(json.dumps(asdict(SMALL))),
              **{name: np.asarray(values, COLUMNS[name]) for name, values in columns.items()}}
    np.savez_compressed(directory / f"shard-{index:05d}.npz", **arrays)


def test_every_game_replays_its_shard_rows(shards: Path, tmp_path: Path) -> None:
    out = tmp_path / "selfplay.pdn"
    with open(out, "w", encoding="utf-8") as stream:
        report = export_pdn(shard_paths(shards), stream)
    assert (report.games, report.written, report.faulty) == (GAMES, GAMES, 0)
    columns = read_shards(shards)
    with open(out, encoding="utf-8") as stream:
        games = list(iter_games(stream))
    assert [int(game.headers["Round"]) for game in games] == list(range(GAMES))
    for number, game in enumerate(games):
        rows = columns["game"] == number
        assert not game.errors
        assert replayed(game) == positions_of(columns, rows)
        assert game.result == RESULTS[int(columns["result"][rows][0])]
        headers = game.headers
        assert (headers["Event"], headers["Black"], headers["White"]) == (EVENT, PLAYER, PLAYER)
        assert headers["Date"] == "????.??.??"  # no file date: the export is reproducible
        # The start comes after the ballot and random plies: a set-up position.
        assert headers["SetUp"] == "1"
        assert headers["FEN"] == positions_of(columns, rows)[0].fen()


def test_games_are_written_as_they_are_rebuilt(shards: Path) -> None:
    stream = io.StringIO()
    seen: list[tuple[int, int]] = []

    def on_game(index: int, game: SelfPlayGame) -> None:
        seen.append((index, stream.getvalue().count("[Event ")))

    report = export_pdn(shard_paths(shards), stream, limit=4, on_game=on_game)
    assert (report.games, report.written, report.faulty) == (4, 4, 0)
    assert seen == [(0, 1), (0, 2), (0, 3), (1, 4)]  # three games a shard
    assert [game.headers["Round"] for game in iter_games(io.StringIO(stream.getvalue()))] == [
        "0", "1", "2", "3"]


def test_of_two_capture_paths_to_one_position_the_first_is_taken() -> None:
    board = Board("B:W14,15,22,23:BK10")  # the king goes round the diamond either way
    first, second = board.legal_moves
    board.push(first)
    after = board.position()
    board.pop()
    board.push(second)
    assert board.position() == after
    start = Position.from_fen("B:W14,15,22,23:BK10")
    rows = {"black": [start.black, after.black], "white": [start.white, after.white],
            "kings": [start.kings, after.kings], "turn": [0, 1], "ply": [20, 21],
            "result": [1, 1], "game": [3, 3]}
    rebuilt = rebuild_game(rows, player="me")
    assert rebuilt.game is not None and rebuilt.fault is None
    assert rebuilt.game.mainline_moves() == [first]
    assert str(first) == "10x17x26x19x10"


def gapped_columns(shards: Path) -> dict[str, np.ndarray]:
    """The first shard's columns with game 1's fifth row left out."""
    with np.load(shard_paths(shards)[0]) as shard:
        columns = {name: shard[name] for name in COLUMNS}
    fifth = int(np.flatnonzero(columns["game"] == 1)[4])
    return {name: np.delete(values, fifth) for name, values in columns.items()}


def test_a_gap_cuts_the_game_and_counts_it_as_faulty(shards: Path, tmp_path: Path) -> None:
    write_shard(tmp_path / "gap", 0, gapped_columns(shards))
    stream = io.StringIO()
    report = export_pdn(shard_paths(tmp_path / "gap"), stream)
    assert (report.games, report.written, report.faulty) == (3, 3, 1)
    games = list(iter_games(io.StringIO(stream.getvalue())))
    columns = read_shards(shards)
    cut = games[1]
    assert replayed(cut) == positions_of(columns, columns["game"] == 1)[:4]
    assert "self-play rows stop here: ply" in cut.end().comment
    assert cut.result == RESULTS[int(columns["result"][columns["game"] == 1][0])]
    for number in (0, 2):  # the games around it are whole
        assert replayed(games[number]) == positions_of(columns, columns["game"] == number)


def test_a_position_no_move_reaches_and_a_broken_start_are_faults() -> None:
    start, other = Position.from_fen("B:W21:B9"), Position.from_fen("W:W21:B1")
    rows = {"black": [start.black, other.black], "white": [start.white, other.white],
            "kings": [0, 0], "turn": [0, 1], "ply": [8, 9], "result": [0, 0], "game": [5, 5]}
    rebuilt = rebuild_game(rows, player="me")
    assert rebuilt.fault == "no legal move leads from ply 8 to ply 9"
    assert rebuilt.game is not None and rebuilt.game.mainline_moves() == []
    assert rebuilt.game.headers["FEN"] == start.fen()
    rows["white"][0] = rows["black"][0]  # a square with both colours on it
    broken = rebuild_game(rows, player="me")
    assert broken.game is None and broken.is_faulty


def test_the_cli_exports_and_sums_up(shards: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.pdn"
    assert main(["train", "export", str(shards), "--pdn", str(out)]) == 0
    captured = capsys.readouterr()
    assert f"{GAMES} games written to {out} (0 faulty)" in captured.out
    assert "Traceback" not in captured.err
    assert len(list(iter_games(io.StringIO(out.read_text(encoding="utf-8"))))) == GAMES
    assert main(["train", "export", str(shards), str(shards), "--pdn", str(out),
                 "--limit", "8"]) == 0
    assert "8 games written" in capsys.readouterr().out
    assert out.read_text(encoding="utf-8").count("[Event ") == 8


def test_the_cli_names_faulty_games_and_exits_1(shards: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    write_shard(tmp_path / "gap", 0, gapped_columns(shards))
    out = tmp_path / "games.pdn"
    assert main(["train", "export", str(tmp_path / "gap"), "--pdn", str(out)]) == 1
    captured = capsys.readouterr()
    assert "3 games written" in captured.out and "(1 faulty)" in captured.out
    assert "shard-00000.npz: game 1: ply" in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(("argv", "message"), [
    (["{shards}", "--pdn", "{tmp}/no/such/games.pdn"], "does not exist"),
    (["{tmp}/missing", "--pdn", "{tmp}/games.pdn"], "no such folder of shards"),
    (["{tmp}/empty", "--pdn", "{tmp}/games.pdn"], "no self-play shards"),
    (["{shards}", "--pdn", "{tmp}"], "is a folder"),
    (["{shards}", "--pdn", "{tmp}/games.pdn", "--limit", "0"], "at least 1"),
    (["{tmp}/damaged", "--pdn", "{tmp}/games.pdn"], "cannot read the self-play shard"),
])
def test_bad_export_arguments_are_one_line(argv: list[str], message: str, shards: Path,
                                           tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "damaged").mkdir()
    (tmp_path / "damaged" / "shard-00000.npz").write_bytes(b"not a zip file")
    words = [word.format(shards=shards, tmp=tmp_path) for word in argv]
    assert main(["train", "export", *words]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], captured.err
    if "damaged" not in argv[0]:  # refused before any work: no file written
        assert not (tmp_path / "games.pdn").exists()
