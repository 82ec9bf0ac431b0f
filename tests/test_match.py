"""Matches: the ballot deck, players, judging by the rules, statistics and PDN output."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

from doublecorner import Board, EngineError, Move
from doublecorner.cli import main
from doublecorner.engine import Limit
from doublecorner.engine.search import DEFAULT_EVALUATION
from doublecorner.match import (
    MatchScore,
    Pentanomial,
    RandomPlayer,
    parse_engine,
    parse_player,
    play_game,
    run_match,
    score_of,
    three_move_deck,
)
from tests.conftest import read_tsv


def test_the_deck_is_the_156_acf_openings_in_order() -> None:
    deck = three_move_deck()
    assert len(deck) == 156
    published = [row for row in read_tsv("ballots-3move-174.tsv") if row["in_156_deck"] == "1"]
    assert [str(ballot) for ballot in deck] == [row["moves"] for row in published]
    assert [ballot.board().fen() for ballot in deck] == [
        Board(row["fen_after_3_moves"]).fen() for row in published]


class Silent:
    """A player that never has a move: the arena must play one for it."""

    name = "silent"

    def new_game(self) -> None: ...

    def choose(self, board: Board) -> Move | None:
        return None

    def close(self) -> None: ...


class Cheater(Silent):
    """Plays a move that is never legal."""

    name = "cheater"

    def choose(self, board: Board) -> Move | None:
        return Move(1, 5) if board.turn.name == "WHITE" else Move(32, 28)


def test_a_game_runs_to_an_end_the_rules_give() -> None:
    ballot = three_move_deck()[0]
    record = play_game(RandomPlayer(1), RandomPlayer(2), ballot, number=1, first_is_black=True)
    board = Board()
    for move in record.moves:
        assert board.outcome(claim_draw=True) is None  # the arena stops at the first end
        board.push(move)
    outcome = board.outcome(claim_draw=True)  # the arena claims draws for the players
    assert outcome is not None
    assert record.result == outcome.result() and record.reason == outcome.termination.value
    assert record.moves[:3] == ballot.moves


def test_the_arena_claims_a_repetition_for_the_players() -> None:
    ballot = three_move_deck()[24]
    record = play_game(RandomPlayer(24), RandomPlayer(124), ballot, number=1,
                       first_is_black=True)  # these random players repeat a position
    board = ballot.board()
    for move in record.moves[3:]:
        assert board.outcome(claim_draw=True) is None
        board.push(move)
    assert board.outcome() is None and board.is_repetition(3)
    assert (record.result, record.reason) == ("1/2-1/2", "threefold repetition")


def test_a_player_without_a_move_gets_a_random_one_counted() -> None:
    record = play_game(Silent(), RandomPlayer(3), three_move_deck()[5], number=1,
                       first_is_black=True)
    assert record.fallback_moves > 0


def test_an_illegal_move_loses_the_game() -> None:
    record = play_game(RandomPlayer(1), Cheater(), three_move_deck()[0], number=1,
                       first_is_black=True)
    assert record.result == "1-0" and "illegal" in record.reason


def test_every_ballot_is_played_twice_with_colours_reversed() -> None:
    ballots = three_move_deck()[:2]
    records = run_match(lambda: parse_player("engine:depth=2", default_limit=Limit(depth=1),
                                             movetime=0.1),
                        lambda: RandomPlayer(5), ballots, concurrency=2)
    assert [record.number for record in records] == [1, 2, 3, 4]
    assert [record.first_is_black for record in records] == [True, False, True, False]
    assert [record.ballot.number for record in records] == [1, 1, 2, 2]
    assert records[0].black == records[1].white == f"doublecorner(depth 2, {DEFAULT_EVALUATION})"
    assert score_of(records).games == 4


def test_a_player_may_search_a_fixed_number_of_nodes() -> None:
    player = parse_player("engine:nodes=500", default_limit=Limit(depth=1), movetime=0.1)
    records = run_match(lambda: player, lambda: RandomPlayer(5), three_move_deck()[:1])
    assert records[0].black == f"doublecorner(500 nodes, {DEFAULT_EVALUATION})"


def test_an_engine_player_takes_its_network_as_network_or_weights() -> None:
    """``engine:network=FILE`` as ``--network FILE``; ``weights=`` is the older name (issue 27)."""
    shipped = Path(__file__).parents[1] / "src" / "doublecorner" / "engine" / "network.dcnn"
    for key in ("network", "weights"):
        player = parse_player(f"engine:depth=1,{key}={shipped}", default_limit=Limit(depth=1),
                              movetime=0.1)
        assert player.name == "doublecorner(depth 1, nn network.dcnn)"
    for spec, message in ((f"engine:network={shipped},weights={shipped}",
                           "network= and weights= name the same file"),
                          (f"engine:eval=linear,network={shipped}", "network= goes with eval=nn")):
        with pytest.raises(EngineError, match=message):
            parse_player(spec, default_limit=Limit(depth=1), movetime=0.1)


def test_match_statistics() -> None:
    even = MatchScore(wins=10, draws=80, losses=10)
    assert even.score == 0.5 and even.elo == 0 and even.los == 0.5
    low, high = even.elo_interval
    assert low < 0 < high and low == pytest.approx(-high)
    assert MatchScore(3, 0, 0).elo == float("inf")


@pytest.mark.parametrize(("spec", "message"), [
    ("stockfish", "unknown player"),
    ("engine:depth", "not key=value"),
    ("engine:depth=deep", "not a whole number"),
    ("random:colour=red", "unknown option 'colour'"),
])
def test_bad_player_specs_are_named(spec: str, message: str) -> None:
    with pytest.raises(EngineError, match=message):
        parse_player(spec, default_limit=Limit(depth=1), movetime=0.1)


def test_the_match_command_prints_the_score_and_writes_pdn(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pdn = tmp_path / "games.pdn"
    status = main(["match", "engine:depth=3", "random:seed=4", "--openings", "1-2",
                   "--pdn", str(pdn)])
    out = capsys.readouterr().out
    assert status == 0
    assert len([line for line in out.splitlines() if line.startswith("game ")]) == 4
    assert re.search(r"^\+\d+ =\d+ -\d+  score [\d.]+%  Elo ", out, re.MULTILINE)
    text = pdn.read_text()
    assert text.count('[GameType "21"]') == 4
    games = text.strip().split("\n\n[")
    assert len(games) == 4
    first_moves = text.split("\n\n")[1].split()
    assert first_moves[:4] == ["1.", "9-13", "21-17", "2."]


def test_the_match_command_rejects_a_bad_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "random", "random", "--openings", "0-3"]) == 2
    assert "outside 1-156" in capsys.readouterr().err


def test_a_reversed_range_is_called_reversed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "random", "random", "--openings", "5-3"]) == 2
    err = capsys.readouterr().err
    assert "'5-3' is reversed" in err and "(3-5)" in err and "outside" not in err


@pytest.mark.parametrize("option", ["--pdn", "--results"])
@pytest.mark.parametrize("where", ["missing folder", "a folder"])
def test_match_output_paths_are_checked_before_any_game(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str, where: str) -> None:
    path = tmp_path / "nonexistent" / "out.txt" if where == "missing folder" else tmp_path
    # An --engine that would start a program: the check comes before it starts.
    status = main(["match", "never", "random", "--engine", "name=never,cmd=/no/such/engine",
                   "--openings", "1", option, str(path)])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err.count("\n") == 1 and option in captured.err
    assert "Traceback" not in captured.err and "cannot start engine" not in captured.err
    assert captured.out == ""


def test_a_program_that_echoes_fails_the_match_in_seconds(
        capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    status = main(["match", "cat", "random", "--engine", "name=cat,cmd=cat", "--openings", "1"])
    assert status == 2 and time.monotonic() - started < 10
    assert "does not speak the engine protocol" in capsys.readouterr().err


def test_an_even_score_is_elo_0_not_minus_0() -> None:
    assert MatchScore(wins=0, draws=10, losses=0).summary() == (
        "+0 =10 -0  score 50.0%  Elo 0 (95% 0 to 0)  LOS 50.0%")
    assert "-0" not in Pentanomial((0, 0, 5, 0, 0)).summary()


def test_a_match_through_the_protocol_at_fixed_depth_is_deterministic(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    command = f"name=dcp,cmd={sys.executable} -m doublecorner engine,Hash=8"
    texts = []
    for run in range(2):
        pdn = tmp_path / f"run{run}.pdn"
        status = main(["match", "dcp:depth=4", "engine:depth=4", "--engine", command,
                       "--openings", "1-1", "--pdn", str(pdn), "--quiet"])
        assert status == 0
        texts.append(pdn.read_text())
    assert texts[0] == texts[1]
    assert texts[0].count('[Black "dcp"]') == 1 and texts[0].count('[White "dcp"]') == 1
    # The same engine at the same depth plays the same game, whichever side the program has.
    games = [game.split("\n\n", 1)[1].strip() for game in texts[0].split("[Event ")[1:]]
    assert len(games) == 2 and games[0] == games[1]
    summary = capsys.readouterr().out
    assert re.search(r"\+(\d+) =\d+ -\1 ", summary)  # as many wins as losses


def test_an_engine_declaration_needs_a_name_and_a_command() -> None:
    with pytest.raises(EngineError, match="needs name=NAME and cmd=COMMAND"):
        parse_engine("cmd=./scan")
    with pytest.raises(EngineError, match="taken by a built-in player"):
        parse_engine("name=random,cmd=./scan")


def test_engine_players_whose_tables_do_not_fit_are_refused_before_any_game(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """hash= in a player spec was never checked: 65536 allocated the table (or died trying)."""
    monkeypatch.setattr("doublecorner.cli.match.available_memory_mb", lambda: 1000)
    made: list[object] = []
    monkeypatch.setattr("doublecorner.match.players.Engine", lambda *a, **k: made.append(a))
    status = main(["match", "engine:hash=65536", "random", "--openings", "1"])
    captured = capsys.readouterr()
    assert (status, captured.out, made) == (2, "", [])
    assert "need 65536 MB" in captured.err and "1000 MB are available" in captured.err
    assert captured.err.count("\n") == 1
