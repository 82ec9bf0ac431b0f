"""Self-play start positions drawn from earlier games (doublecorner.train.starts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from doublecorner import Position
from doublecorner.cli import main
from doublecorner.errors import EngineError
from doublecorner.kernel.movegen import has_captures
from doublecorner.train.records import read_records, records_paths
from doublecorner.train.starts import StartsRequest, read_starts, sample_starts, write_starts

MIDDLEGAME = "B:W18,19,21,23,24,26,29,30,31,32:B1,2,3,5,6,7,9,10,12,14"


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("games") / "games"
    assert main(["train", "selfplay", "--out", str(folder), "--games", "4",
                 "--games-per-shard", "2", "--nodes", "100", "--eval", "linear"]) == 0
    return folder


def test_starts_are_quiet_level_positions_of_the_pieces_asked_for(games: Path) -> None:
    request = StartsRequest(min_pieces=12, max_pieces=18, max_score=80, count=5, seed=3)
    positions = sample_starts([games], request)
    assert 1 <= len(positions) <= 5 and len(set(positions)) == len(positions)
    scored = {}
    for path in records_paths(games):
        for record in read_records(path):
            for (black, white, kings, turn, _), score in zip(record.states(), record.scores,
                                                             strict=True):
                scored.setdefault((black, white, kings, turn), score)
    for position in positions:
        pieces = (position.black | position.white).bit_count()
        assert 12 <= pieces <= 18
        assert not has_captures(position.black, position.white, position.kings,
                                int(position.turn))
        assert abs(scored[(position.black, position.white, position.kings,
                           int(position.turn))]) <= 80
    assert sample_starts([games], request) == positions  # seeded


def test_no_position_fits_is_an_error(games: Path) -> None:
    with pytest.raises(EngineError, match="no quiet position of 2-2 pieces"):
        sample_starts([games], StartsRequest(min_pieces=2, max_pieces=2))


def test_a_starts_file_round_trips_and_refuses_a_bad_line(tmp_path: Path) -> None:
    path = write_starts(tmp_path / "starts.txt", [Position.from_fen(MIDDLEGAME)],
                        source="a test")
    assert path.read_text().startswith("# doublecorner self-play start positions: a test\n")
    assert read_starts(path) == (Position.from_fen(MIDDLEGAME),)
    bad = tmp_path / "bad.txt"
    bad.write_text("# a comment\nB:WK1:B5\nnot a fen\n")
    with pytest.raises(EngineError, match=r"bad.txt', line 3: invalid FEN"):
        read_starts(bad)
    (tmp_path / "empty.txt").write_text("# nothing\n")
    with pytest.raises(EngineError, match="holds no position"):
        read_starts(tmp_path / "empty.txt")


def test_selfplay_plays_from_the_starts_file(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    starts = tmp_path / "starts.txt"
    write_starts(starts, [Position.from_fen(MIDDLEGAME)], source="a test")
    out = tmp_path / "mid"
    assert main(["train", "selfplay", "--out", str(out), "--games", "2", "--games-per-shard",
                 "2", "--nodes", "50", "--eval", "linear", "--random-plies", "0",
                 "--starts", str(starts)]) == 0
    records = list(read_records(records_paths(out)[0]))
    assert [record.start.fen() for record in records] == [MIDDLEGAME] * 2


def test_the_starts_command_writes_a_file_selfplay_takes(
        games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "starts.txt"
    assert main(["train", "starts", str(games), "--out", str(out), "--pieces", "14-20",
                 "--count", "3"]) == 0
    assert "start positions written to" in capsys.readouterr().out
    assert 1 <= len(read_starts(out)) <= 3
    assert main(["train", "starts", str(games), "--out", str(out), "--pieces", "20-10"]) == 2
    assert "expected a range of pieces within 2-24" in capsys.readouterr().err
    assert main(["train", "selfplay", "--out", str(tmp_path / "x"), "--games", "1",
                 "--starts", str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt" in capsys.readouterr().err
