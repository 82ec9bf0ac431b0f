"""Self-play records exported as PDN: each game as it was played, from its start."""

from __future__ import annotations

import io
import lzma
from pathlib import Path

import pytest

from doublecorner.cli import main
from doublecorner.pdn import Game, iter_games
from doublecorner.position import Position
from doublecorner.train.export import EVENT, export_pdn
from doublecorner.train.records import GameRecord, read_records, records_paths
from doublecorner.train.selfplay import run_selfplay
from tests.test_train import SMALL

GAMES = 6
PLAYER = "doublecorner linear 300 nodes"  # SMALL's engine
RESULTS = {1: "1-0", 0: "1/2-1/2", -1: "0-1"}  # the record's result is Black's


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of two records files of three games each."""
    directory = tmp_path_factory.mktemp("selfplay")
    run_selfplay(directory, GAMES, SMALL)
    return directory


def recorded(directory: Path) -> list[GameRecord]:
    return [record for path in records_paths(directory) for record in read_records(path)]


def replayed(game: Game) -> list[Position]:
    """The positions of a game read back: its start, then one after each move."""
    board = game.board()
    positions = [board.position()]
    for move in game.mainline_moves():
        board.push(move)
        positions.append(board.position())
    return positions


def test_every_game_is_its_record(shards: Path, tmp_path: Path) -> None:
    out = tmp_path / "selfplay.pdn"
    with open(out, "w", encoding="utf-8") as stream:
        report = export_pdn(records_paths(shards), stream)
    assert report.games == GAMES
    with open(out, encoding="utf-8") as stream:
        games = list(iter_games(stream))
    records = recorded(shards)
    assert [int(game.headers["Round"]) for game in games] == list(range(GAMES))
    for game, record in zip(games, records, strict=True):
        assert not game.errors
        assert game.mainline_moves() == list(record.moves)  # every move, the last one too
        assert replayed(game) == [board.position() for board in record.boards()]
        assert game.result == RESULTS[record.result]
        headers = game.headers
        assert (headers["Event"], headers["Black"], headers["White"]) == (EVENT, PLAYER, PLAYER)
        assert headers["Date"] == "????.??.??"  # no file date: the export is reproducible
        # The start comes after the ballot and random plies: a set-up position.
        assert headers["SetUp"] == "1"
        assert headers["FEN"] == record.start.fen()


def test_games_are_written_as_they_are_read(shards: Path) -> None:
    stream = io.StringIO()
    seen: list[tuple[int, int]] = []

    def on_game(index: int, record: GameRecord) -> None:
        seen.append((index, stream.getvalue().count("[Event ")))

    report = export_pdn(records_paths(shards), stream, limit=4, on_game=on_game)
    assert report.games == 4
    assert seen == [(0, 1), (0, 2), (0, 3), (1, 4)]  # three games a file
    assert [game.headers["Round"] for game in iter_games(io.StringIO(stream.getvalue()))] == [
        "0", "1", "2", "3"]


def test_the_cli_exports_and_sums_up(shards: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.pdn"
    assert main(["train", "export", str(shards), "--pdn", str(out)]) == 0
    captured = capsys.readouterr()
    assert f"{GAMES} games written to {out}" in captured.out
    assert "Traceback" not in captured.err
    assert len(list(iter_games(io.StringIO(out.read_text(encoding="utf-8"))))) == GAMES
    single = records_paths(shards)[1]
    assert main(["train", "export", str(shards), str(single), "--pdn", str(out),
                 "--limit", "8"]) == 0
    assert "8 games written" in capsys.readouterr().out
    rounds = [game.headers["Round"] for game in iter_games(io.StringIO(
        out.read_text(encoding="utf-8")))]
    assert rounds == ["0", "1", "2", "3", "4", "5", "3", "4"]


def test_a_damaged_record_leaves_no_half_export(shards: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    damaged = tmp_path / "games-00009.txt.xz"
    with lzma.open(records_paths(shards)[0]) as stream:
        lines = stream.read().decode().splitlines()
    fields = lines[2].split("\t")
    fields[3] = "!" + fields[3]  # the second game's moves start with no move code
    lines[2] = "\t".join(fields)
    damaged.write_bytes(lzma.compress("\n".join(lines).encode() + b"\n"))
    out = tmp_path / "games.pdn"
    assert main(["train", "export", str(shards), str(damaged), "--pdn", str(out)]) == 2
    captured = capsys.readouterr()
    messages = [line for line in captured.err.splitlines() if not line.startswith("export: ")]
    assert messages == [f"doublecorner: error: '{damaged}', line 3: game record '1': '!' is "
                        "no move code"]
    assert not out.exists()  # six good games were read first: none written alone
    assert [path.name for path in tmp_path.iterdir()] == [damaged.name]


@pytest.mark.parametrize(("argv", "message"), [
    (["{shards}", "--pdn", "{tmp}/no/such/games.pdn"], "does not exist"),
    (["{tmp}/missing", "--pdn", "{tmp}/games.pdn"], "no such folder or records file"),
    (["{tmp}/empty", "--pdn", "{tmp}/games.pdn"], "no self-play records"),
    (["{shards}", "--pdn", "{tmp}"], "is a folder"),
    (["{shards}", "--pdn", "{tmp}/games.pdn", "--limit", "0"], "at least 1"),
    (["{tmp}/damaged", "--pdn", "{tmp}/games.pdn"], "cannot read the records file"),
])
def test_bad_export_arguments_are_one_line(argv: list[str], message: str, shards: Path,
                                           tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "damaged").mkdir()
    (tmp_path / "damaged" / "games-00000.txt.xz").write_bytes(b"not an xz file")
    words = [word.format(shards=shards, tmp=tmp_path) for word in argv]
    assert main(["train", "export", *words]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], captured.err
    assert not (tmp_path / "games.pdn").exists()
