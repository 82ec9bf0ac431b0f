"""Match journal and resume (``--results``, ``--resume``) and adjudication by endgame tables."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import cast

import pytest

from doublecorner import Board
from doublecorner.cli import main
from doublecorner.egtb import Tables, build, load_tables
from doublecorner.match import Ballot, RandomPlayer, play_game, score_of, three_move_deck
from doublecorner.match.journal import read_journal

MATCH = ["match", "random:seed=3", "engine:depth=1", "--depth", "1", "--openings", "4-5",
         "--quiet"]


def _game_numbers(path: Path) -> list[int]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert "header" in json.loads(lines[0])
    return [json.loads(line)["number"] for line in lines[1:]]


def test_a_match_writes_each_game_and_resumes_with_only_the_missing_ones(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    full = tmp_path / "full.jsonl"
    assert main([*MATCH, "--results", str(full)]) == 0
    capsys.readouterr()
    lines = full.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) == 5 and sorted(_game_numbers(full)) == [1, 2, 3, 4]

    # Interrupted after two games, the third half written.
    results, pdn = tmp_path / "cut.jsonl", tmp_path / "cut.pdn"
    kept = sorted(lines[1:], key=lambda line: json.loads(line)["number"])
    results.write_text(lines[0] + kept[0] + kept[1] + kept[2][:25], encoding="utf-8")
    pdn.write_text("[Round \"1\"]\n*\n\n[Round \"2\"]\n*\n\n", encoding="utf-8")

    status = main(["match", "random:seed=3", "engine:depth=1", "--depth", "1", "--openings",
                   "4-5", "--results", str(results), "--resume", "--pdn", str(pdn)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "unfinished last line" in captured.err
    played = [int(number) for number in re.findall(r"^game +(\d+)", captured.out, re.M)]
    assert sorted(played) == [3, 4]
    assert _game_numbers(results)[:2] == [1, 2] and sorted(_game_numbers(results)) == [1, 2, 3, 4]
    records = read_journal(results, three_move_deck()[3:5]).records
    assert "4 games (2 resumed, 2 played)" in captured.out
    assert score_of(records).summary() in captured.out
    assert re.findall(r'\[Round "(\d+)"\]', pdn.read_text(encoding="utf-8")) == [
        "1", "2", *map(str, played)]


def test_resuming_a_finished_match_plays_nothing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    assert main([*MATCH, "--results", str(results)]) == 0
    before = results.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main([*MATCH, "--results", str(results), "--resume"]) == 0
    assert "4 games (4 resumed, 0 played)" in capsys.readouterr().out
    assert results.read_text(encoding="utf-8") == before


def test_resuming_another_match_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    header = {"first": "random:seed=3", "second": "engine:depth=1", "openings": "4-5",
              "time": None, "depth": 2, "egtb": False}
    results.write_text(json.dumps({"header": header}) + "\n", encoding="utf-8")
    assert main([*MATCH, "--results", str(results), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "another match" in err and "depth: the file has 2, this match 1" in err
    assert results.read_text(encoding="utf-8") == json.dumps({"header": header}) + "\n"


def test_resume_needs_a_results_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*MATCH, "--resume"]) == 2
    assert "--resume needs --results" in capsys.readouterr().err


def test_egtb_without_tables_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main([*MATCH, "--egtb", str(tmp_path)]) == 2
    assert "no endgame tables in" in capsys.readouterr().err


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Tables:
    directory = tmp_path_factory.mktemp("egtb")
    build(3, directory)
    return load_tables(directory, max_pieces=3)


class _FromPosition:
    """Stands in for a ballot: a game that starts from a given position."""

    number = 0
    moves = ()

    def __init__(self, fen: str) -> None:
        self.fen = fen

    def board(self) -> Board:
        return Board(self.fen)


@pytest.mark.parametrize(("fen", "result", "value"), [
    ("W:WK1:BK10,K14", "1-0", "loss for White to move"),
    ("B:WK1:BK10,K14", "1-0", "win for Black to move"),
    ("W:WK1:BK10", "1/2-1/2", "draw for White to move"),
])
def test_an_ending_the_tables_hold_is_adjudicated(
        tables: Tables, fen: str, result: str, value: str) -> None:
    record = play_game(RandomPlayer(1), RandomPlayer(2), cast(Ballot, _FromPosition(fen)),
                       number=1, first_is_black=True, tables=tables)
    assert (record.result, record.reason) == (
        result, f"adjudicated by endgame tables: {value}")
    assert record.moves == ()


def test_positions_beyond_the_tables_are_played_on(tables: Tables) -> None:
    record = play_game(RandomPlayer(1), RandomPlayer(2), three_move_deck()[0], number=1,
                       first_is_black=True, tables=tables)
    assert record.moves[:3] == three_move_deck()[0].moves
    board = Board()
    for move in record.moves:
        board.push(move)
    if "adjudicated" in record.reason:
        assert len(board.piece_map()) <= 3
    else:
        assert board.outcome(claim_draw=True) is not None  # the arena claims draws


def test_the_match_command_plays_with_tables_on_disk(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    directory = tmp_path / "egtb"
    build(2, directory)
    results = tmp_path / "results.jsonl"
    assert main(["match", "random:seed=1", "random:seed=2", "--openings", "1-3", "--quiet",
                 "--egtb", str(directory), "--results", str(results)]) == 0
    header = json.loads(results.read_text(encoding="utf-8").splitlines()[0])["header"]
    assert header["egtb"] is True
    assert "6 games" in capsys.readouterr().out


def test_a_results_file_with_games_is_not_written_over(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text('{"header": "an earlier match"}\n')
    status = main(["match", "random", "random:seed=1", "--openings", "1-1",
                   "--results", str(results)])
    assert status == 2 and "already holds games: add --resume" in capsys.readouterr().err
    assert results.read_text() == '{"header": "an earlier match"}\n'


def test_the_header_names_the_programs_and_a_resume_must_run_the_same(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    command = f"name=dcp,cmd={sys.executable} -m doublecorner engine,Hash=8"
    match = ["match", "dcp:depth=1", "random:seed=3", "--depth", "1", "--openings", "4-4",
             "--quiet", "--results", str(results)]
    assert main([*match, "--engine", command]) == 0
    header = json.loads(results.read_text(encoding="utf-8").splitlines()[0])["header"]
    assert header["engines"] == {
        "dcp": {"cmd": f"{sys.executable} -m doublecorner engine", "options": {"Hash": "8"}}}
    before = results.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main([*match, "--resume", "--engine", command.replace("Hash=8", "Hash=16")]) == 2
    assert "another match" in capsys.readouterr().err
    assert results.read_text(encoding="utf-8") == before
