"""SPRT and pentanomial statistics of matches (``match --sprt``), stopping, pairing and resume."""

from __future__ import annotations

import json
import math
import re
import threading
from pathlib import Path

import pytest

from doublecorner.cli import main
from doublecorner.match import (
    GameRecord,
    MatchScore,
    PairCounter,
    Pentanomial,
    RandomPlayer,
    SequentialTest,
    Sprt,
    Verdict,
    parse_sprt,
    pentanomial_of,
    run_match,
    three_move_deck,
)
from doublecorner.match.journal import JournalWriter, read_journal
from doublecorner.match.sprt import log_likelihood_ratio

SPRT_MATCH = ["match", "engine:depth=2", "random:seed=1", "--depth", "2",
              "--sprt", "elo0=0,elo1=200"]


def _expected(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def _game(number: int, first_points: float) -> GameRecord:
    """Game ``number`` of a match, in which the first player scored ``first_points``."""
    first_is_black = number % 2 == 1
    if first_points == 0.5:
        result = "1/2-1/2"
    else:
        result = "1-0" if (first_points == 1) == first_is_black else "0-1"
    return GameRecord(number, three_move_deck()[(number - 1) // 2], first_is_black, "black",
                      "white", (), result, "made up", 0)


def _games_played(out: str) -> list[int]:
    return [int(number) for number in re.findall(r"^game +(\d+)", out, re.MULTILINE)]


# The log-likelihood ratio.

def test_with_two_outcomes_the_llr_is_the_binomial_one() -> None:
    # 7 wins and 3 losses, H0 score 0.5 against H1 score 0.6, worked by hand:
    # 7 ln(0.6/0.5) + 3 ln(0.4/0.5) = 7 * 0.1823216 - 3 * 0.2231436 = 0.6068204
    assert log_likelihood_ratio([3, 7], [0.0, 1.0], 0.5, 0.6) == pytest.approx(0.6068204,
                                                                                abs=1e-6)
    assert log_likelihood_ratio([7, 3], [0.0, 1.0], 0.5, 0.6) == pytest.approx(
        3 * math.log(1.2) + 7 * math.log(0.8))


def test_pairs_all_won_weigh_like_wins_of_a_coin_biased_to_the_hypothesis() -> None:
    # Winning every pair, the closest distributions of mean s put s on WW and the rest
    # on LL (the empty cells weigh almost nothing): LLR ~ N ln(s1 / s0).
    sprt = Sprt(elo0=0, elo1=200)
    llr = sprt.llr(Pentanomial((0, 0, 0, 0, 8)))
    assert llr == pytest.approx(8 * math.log(_expected(200) / 0.5), rel=1e-3)
    assert sprt.llr(Pentanomial((8, 0, 0, 0, 0))) == pytest.approx(
        8 * math.log((1 - _expected(200)) / 0.5), rel=1e-3)


def test_on_many_pairs_the_llr_is_close_to_the_normal_approximation() -> None:
    counts = (100, 400, 1000, 450, 150)  # 2100 pairs, mean 1087.5/2100
    pairs = Pentanomial(counts)
    mean, variance = 1087.5 / 2100, pairs.variance
    assert pairs.score == pytest.approx(mean)
    s0, s1 = 0.5, _expected(10)
    approximation = 2100 * ((mean - s0) ** 2 - (mean - s1) ** 2) / (2 * variance)
    assert approximation == pytest.approx(5.8856, abs=1e-3)
    assert Sprt(elo0=0, elo1=10).llr(pairs) == pytest.approx(approximation, rel=2e-3)


def test_the_llr_leans_to_the_hypothesis_nearer_the_score() -> None:
    sprt = Sprt(elo0=0, elo1=10)
    assert sprt.llr(Pentanomial()) == 0.0
    assert sprt.llr(Pentanomial((0, 5, 20, 5, 0))) < 0  # score 1/2: H0 is nearer
    assert sprt.llr(Pentanomial((0, 5, 20, 10, 0))) > 0  # score ~0.536: beyond elo1


# The bounds and the verdicts.

def test_the_bounds_are_walds() -> None:
    even = Sprt()
    assert (even.elo0, even.elo1, even.alpha, even.beta) == (0, 10, 0.05, 0.05)
    assert even.lower_bound == pytest.approx(-math.log(19))
    assert even.upper_bound == pytest.approx(math.log(19))
    skewed = Sprt(alpha=0.01, beta=0.1)
    assert skewed.lower_bound == pytest.approx(math.log(0.1 / 0.99))  # -2.2925
    assert skewed.upper_bound == pytest.approx(math.log(0.9 / 0.01))  # 4.4998
    assert skewed.verdict(4.5) is Verdict.H1 and skewed.verdict(4.49) is Verdict.INCONCLUSIVE
    assert skewed.verdict(-2.3) is Verdict.H0 and skewed.verdict(-2.29) is Verdict.INCONCLUSIVE


def test_a_sequential_test_is_settled_by_its_first_crossing() -> None:
    test = SequentialTest(Sprt(elo0=0, elo1=200))
    verdicts = [test.add_pair(2.0) for _ in range(7)]
    assert set(verdicts) == {Verdict.INCONCLUSIVE} and test.llr < test.sprt.upper_bound
    assert test.add_pair(2.0) is Verdict.H1
    settled = test.llr
    assert test.add_pair(0.0) is Verdict.H1 and test.add_pair(0.0) is Verdict.H1
    assert (test.llr, test.pairs, test.late_pairs) == (settled, 8, 2)
    assert test.summary().startswith("SPRT: H1 accepted (elo1=200)  LLR 3.35 (-2.94, 2.94)")


@pytest.mark.parametrize(("text", "expected"), [
    ("", Sprt()),
    ("elo0=-5, elo1=5", Sprt(elo0=-5, elo1=5)),
    ("beta=0.1,alpha=0.01,", Sprt(alpha=0.01, beta=0.1)),
])
def test_sprt_settings_are_parsed(text: str, expected: Sprt) -> None:
    assert parse_sprt(text) == expected


# Pentanomial counts.

def test_pentanomial_figures_worked_by_hand() -> None:
    # [LL, LD, DD+WL, WD, WW] = [1, 2, 10, 4, 3]: 11.5 points in 20 pairs of 2 games,
    # squared deviations 1.2625 / 20 pairs; margin 1.96 * sqrt(0.063125 / 20) = 0.110112.
    pairs = Pentanomial((1, 2, 10, 4, 3))
    assert pairs.score == pytest.approx(0.575) and pairs.variance == pytest.approx(0.063125)
    assert pairs.elo == pytest.approx(-400 * math.log10(1 / 0.575 - 1))
    low, high = pairs.elo_interval
    assert low == pytest.approx(-400 * math.log10(1 / (0.575 - 0.110112) - 1), abs=0.01)
    assert high == pytest.approx(-400 * math.log10(1 / (0.575 + 0.110112) - 1), abs=0.01)
    assert pairs.normalized_elo == pytest.approx(0.075 / math.sqrt(0.12625) * 800 / math.log(10))
    # The same games counted one by one, each DD+WL pair a win and a loss (a lopsided
    # opening): as if the games were independent, the interval is wider.
    per_game = MatchScore(wins=2 * 3 + 4 + 10, draws=2 + 4, losses=2 * 1 + 2 + 10)
    assert per_game.games == 40 and per_game.score == pairs.score
    assert per_game.elo_interval[1] - per_game.elo_interval[0] > high - low


def test_pairs_count_once_both_games_are_done_in_any_order() -> None:
    # Pair 0: won both; pair 1: lost one, drew one; pair 2: won one, lost one;
    # pair 3: only its second game. They finish out of order.
    games = {1: 1.0, 2: 1.0, 3: 0.0, 4: 0.5, 5: 1.0, 6: 0.0, 8: 0.5}
    counter = PairCounter()
    completed = [(number, counter.add(_game(number, games[number])))
                 for number in (4, 1, 5, 3, 8, 6, 2)]
    assert completed == [(4, None), (1, None), (5, None), (3, 0.5), (8, None), (6, 1.0),
                         (2, 2.0)]
    assert counter.pentanomial.counts == (0, 1, 1, 0, 1) and counter.unpaired == 1
    assert counter.add(_game(3, 0.0)) is None  # a game already counted changes nothing
    assert counter.pentanomial.counts == (0, 1, 1, 0, 1)
    assert pentanomial_of(_game(number, points) for number, points in games.items()) == (
        counter.pentanomial)


def test_the_journal_gives_the_games_in_the_order_they_finished(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    writer = JournalWriter(path, header={"first": "a"})
    for number in (2, 4, 1, 3, 2):  # the second 2 is a game written twice
        writer.append(_game(number, 1.0))
    writer.close()
    records = read_journal(path, three_move_deck()).records
    assert [record.number for record in records] == [2, 4, 1, 3]


# Stopping.

@pytest.mark.parametrize(("concurrency", "expected"), [(1, [1]), (2, [1, 2])])
def test_no_game_starts_once_stop_is_set(concurrency: int, expected: list[int]) -> None:
    stop = threading.Event()
    records = run_match(lambda: RandomPlayer(1), lambda: RandomPlayer(2), three_move_deck()[:3],
                        concurrency=concurrency, on_game=lambda record: stop.set(), stop=stop)
    # Alone, the first game stops the match; two at a time, the second had started.
    assert [record.number for record in records] == expected


def test_the_match_stops_as_soon_as_the_test_decides(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    assert main([*SPRT_MATCH, "--results", str(results)]) == 0
    out = capsys.readouterr().out
    played = _games_played(out)
    assert played == list(range(1, len(played) + 1)) and 8 <= len(played) <= 30
    assert len(played) % 2 == 0  # alone, the match stops when a pair ends
    progress = [line for line in out.splitlines() if line.startswith("game ")]
    assert all(re.search(r"  LLR -?\d+\.\d\d \(-2\.94, 2\.94\)$", line) for line in progress)
    verdict = out.splitlines()[-1]
    assert verdict.startswith("SPRT: H1 accepted (elo1=200)  LLR ")
    assert f"after {len(played) // 2} pairs" in verdict
    assert re.search(r"^Ptnml\(0-2\) \[\d+, \d+, \d+, \d+, \d+\]  Elo ", out, re.MULTILINE)
    assert len(results.read_text(encoding="utf-8").splitlines()) == len(played) + 1

    # Resumed, the journal gives the same decision, and no game is played.
    assert main([*SPRT_MATCH, "--results", str(results), "--resume"]) == 0
    again = capsys.readouterr().out
    assert _games_played(again) == [] and again.splitlines()[-1] == verdict


def test_an_interrupted_match_resumes_to_the_same_decision(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    full = tmp_path / "full.jsonl"
    assert main([*SPRT_MATCH, "--quiet", "--results", str(full)]) == 0
    whole = capsys.readouterr().out.splitlines()
    lines = full.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:6]) + lines[6][:30], encoding="utf-8")  # 5 games and a bit
    assert main([*SPRT_MATCH, "--results", str(cut), "--resume"]) == 0
    resumed = capsys.readouterr().out
    assert _games_played(resumed) == list(range(6, len(lines)))
    assert resumed.splitlines()[-3:] == whole[-3:]  # the same W/D/L, pentanomial and SPRT


def test_games_already_started_finish_and_count_after_the_decision(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    assert main([*SPRT_MATCH, "--concurrency", "2", "--quiet", "--results", str(results)]) == 0
    out = capsys.readouterr().out.splitlines()
    verdict = out[-1]
    assert verdict.startswith("SPRT: H1 accepted (elo1=200)")
    games = len(results.read_text(encoding="utf-8").splitlines()) - 1
    counted = int(re.search(r"after (\d+) pairs", verdict).group(1))  # type: ignore[union-attr]
    # At most one game (the other slot's) was running when the decision came.
    assert 2 * counted <= games <= 2 * counted + 2
    assert out[0].startswith(f"engine:depth=2 vs random:seed=1: {games} games")

    assert main([*SPRT_MATCH, "--concurrency", "2", "--results", str(results), "--resume"]) == 0
    again = capsys.readouterr().out
    assert _games_played(again) == [] and again.splitlines()[-1] == verdict


def test_a_deck_run_out_without_a_decision_is_inconclusive(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*SPRT_MATCH, "--openings", "1-2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "4 games" in out
    assert re.search(r"^SPRT: inconclusive \(elo0=0, elo1=200\)  LLR \d\.\d\d \(-2\.94, 2\.94\)"
                     r"  after 2 pairs", out, re.MULTILINE)


def test_without_sprt_the_match_reports_the_pairs_and_plays_on(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "random:seed=1", "random:seed=2", "--openings", "1-2"]) == 0
    out = capsys.readouterr().out
    assert len(_games_played(out)) == 4 and "SPRT" not in out and "LLR" not in out
    pentanomial = re.search(r"^Ptnml\(0-2\) \[(\d+), (\d+), (\d+), (\d+), (\d+)\]", out,
                            re.MULTILINE)
    assert pentanomial is not None and sum(map(int, pentanomial.groups())) == 2


@pytest.mark.parametrize(("setting", "message"), [
    ("elo0=10,elo1=5", "'elo0=10,elo1=5': elo0 (10) must be below elo1 (5)"),
    ("alpha=1.5", "'alpha=1.5': alpha must be between 0 and 1, not 1.5"),
    ("beta=0", "'beta=0': beta must be between 0 and 1, not 0"),
    ("alpha=0.6,beta=0.5", "alpha + beta must be below 1"),
    ("elo2=3", "'elo2=3': unknown key 'elo2' (expected elo0, elo1, alpha, beta)"),
    ("alpha=x", "'alpha=x': alpha must be a number, not 'x'"),
    ("elo1", "'elo1': 'elo1' is not key=value"),
    ("elo1=5,elo1=6", "elo1 is given twice"),
    ("elo1=nan", "elo1 must be between -1000 and 1000, not nan"),
])
def test_bad_sprt_settings_are_refused_before_any_game(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, setting: str, message: str) -> None:
    results = tmp_path / "results.jsonl"
    status = main(["match", "random", "random:seed=1", "--openings", "1-1", "--sprt", setting,
                   "--results", str(results)])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == "" and not results.exists()
    assert captured.err.count("\n") == 1 and "argument --sprt" in captured.err
    assert message in captured.err


def test_the_journal_line_of_a_game_is_what_the_pairs_count(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    writer = JournalWriter(path, header={"first": "a"})
    for number, points in ((2, 0.0), (1, 0.5)):
        writer.append(_game(number, points))
    writer.close()
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    assert [entry["result"] for entry in entries] == ["1-0", "1/2-1/2"]  # White lost game 2
    assert pentanomial_of(read_journal(path, three_move_deck()).records).counts == (
        0, 1, 0, 0, 0)
