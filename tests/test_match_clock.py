"""Matches on a game clock: the clock's arithmetic, losses on time, players told the clocks."""

from __future__ import annotations

import itertools
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from doublecorner import Board, Color, EngineError, Move
from doublecorner.cli import main
from doublecorner.engine import Limit
from doublecorner.match import (
    ClockReading,
    EnginePlayer,
    GameClock,
    RandomPlayer,
    parse_engine,
    parse_player,
    play_game,
    three_move_deck,
)
from tests.test_match_protocol import scripted_program


@pytest.mark.parametrize(("text", "seconds", "increment"), [
    ("60", 60.0, 0.0), ("60+0.5", 60.0, 0.5), (" 1.5+0 ", 1.5, 0.0), ("300+300", 300.0, 300.0),
])
def test_a_clock_reads_seconds_and_an_optional_increment(text: str, seconds: float,
                                                         increment: float) -> None:
    clock = GameClock.parse(text)
    assert (clock.seconds, clock.increment) == (seconds, increment)
    assert GameClock.parse(str(clock)) == clock


@pytest.mark.parametrize(("text", "message"), [
    ("", "is not SECONDS"), ("abc", "is not SECONDS"), ("60+", "is not SECONDS"),
    ("60+1+1", "is not SECONDS"), ("1_0", "is not SECONDS"), ("\uff11", "is not SECONDS"),
    ("\u0661\u0662+1", "is not SECONDS"), ("0", "above 0"), ("-5", "above 0"), ("nan", "above 0"),
    ("inf", "above 0"), ("100000", "at most 86400"), ("10+11", "increment must be 0 to 10"),
    ("10+-1", "increment must be 0 to 10"), ("10+nan", "increment must be 0 to 10"),
])
def test_a_bad_clock_is_refused_by_name(text: str, message: str) -> None:
    with pytest.raises(EngineError, match=message):
        GameClock.parse(text)


class Recorder(RandomPlayer):
    """A random mover that keeps every clock reading it is given and takes ``delay`` a move."""

    def __init__(self, seed: int, delay: float = 0.0) -> None:
        super().__init__(seed)
        self.delay = delay
        self.readings: list[ClockReading] = []

    def choose(self, board: Board, clock: ClockReading | None = None) -> Move | None:
        assert clock is not None and clock.turn is board.turn
        self.readings.append(clock)
        time.sleep(self.delay)
        return super().choose(board, clock)


def test_each_move_takes_its_time_off_the_clock_and_adds_the_increment() -> None:
    black, white = Recorder(1, delay=0.01), Recorder(2)
    play_game(black, white, three_move_deck()[0], number=1, first_is_black=True,
              clock=GameClock(30.0, 0.5))
    own = [reading.black for reading in black.readings]
    assert own[0] == 30.0 and len(own) > 3
    for before, after in itertools.pairwise(own):
        # Each move of Black took at least its 0.01 s sleep and far less than a second.
        assert before + 0.5 - 1.0 < after <= before + 0.5 - 0.01
    # White (to move after the ballot) sees Black's clock as it stood after Black's last move.
    seen = [reading.black for reading in white.readings]
    count = min(len(seen), len(own))
    assert seen[:count] == own[:count]
    assert all(reading.increment == 0.5 for reading in black.readings + white.readings)


def test_a_player_whose_time_runs_out_loses_on_time() -> None:
    slow, quick = Recorder(1, delay=0.05), Recorder(2)
    record = play_game(quick, slow, three_move_deck()[0], number=1, first_is_black=True,
                       clock=GameClock(0.12))
    assert record.result == "1-0"  # White, the slow one, flagged
    assert "lost on time" in record.reason and record.reason.startswith("random")
    # Black's clock never ran out; White got at most three moves in.
    assert 1 <= len(slow.readings) <= 3


def test_without_a_clock_players_are_asked_as_before() -> None:
    class Plain(RandomPlayer):
        def choose(self, board: Board, clock: ClockReading | None = None) -> Move | None:
            assert clock is None
            return super().choose(board)

    record = play_game(Plain(1), Plain(2), three_move_deck()[0], number=1, first_is_black=True)
    assert record.result in {"1-0", "0-1", "1/2-1/2"}


def test_the_engine_player_searches_on_the_time_left() -> None:
    player = parse_player("engine:egtb=off,hash=1", default_limit=Limit(clock=5.0, increment=0.1),
                          movetime=0.1)
    assert isinstance(player, EnginePlayer) and "clock 5+0.1" in player.name
    limits: list[Limit] = []
    search = player.engine.search

    def spy(*arguments: Any, **options: Any) -> Any:
        limits.append(arguments[1])
        return search(*arguments, **options)

    player.engine.search = spy  # type: ignore[method-assign]
    board = Board()
    move = player.choose(board, ClockReading(0.3, 5.0, 0.25, Color.BLACK))
    assert move in board.legal_moves
    assert limits == [Limit(clock=0.3, increment=0.25)]  # Black's clock, not White's
    with pytest.raises(EngineError, match="plays on a clock and was given none"):
        player.choose(board)


def test_a_player_with_its_own_limit_keeps_it_on_a_clock() -> None:
    player = parse_player("engine:depth=2,egtb=off,hash=1",
                          default_limit=Limit(clock=5.0), movetime=0.1)
    assert isinstance(player, EnginePlayer) and player.limit == Limit(depth=2)
    assert player.choose(Board(), ClockReading(5.0, 5.0, 0.0, Color.BLACK)) in Board().legal_moves


def test_a_program_on_a_clock_is_sent_both_clocks(tmp_path: Path) -> None:
    log = tmp_path / "go.log"
    program = tmp_path / "logger.py"
    program.write_text(scripted_program("first", go_log=log))
    engine = parse_engine(f"name=logger,cmd={sys.executable} {program}")
    player = parse_player("logger", default_limit=Limit(clock=60.0, increment=0.5),
                          movetime=0.1, engines={"logger": engine})
    try:
        board = Board()
        board.push_str("11-15")
        player.choose(board, ClockReading(58.25, 59.5, 0.5, Color.WHITE))
    finally:
        player.close()
    words = log.read_text().split()
    assert words[0] == "go"
    sent = dict(zip(words[1::2], words[2::2], strict=True))
    assert sent == {"btime": "58250", "wtime": "59500", "binc": "500", "winc": "500"}


def test_the_command_line_plays_a_match_on_a_clock(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "clock.jsonl"
    assert main(["match", "random", "random:seed=3", "--clock", "20+0.1", "--openings", "1",
                 "--results", str(results), "--quiet"]) == 0
    header = json.loads(results.read_text().splitlines()[0])["header"]
    assert header["clock"] == "20+0.1" and header["time"] is None
    assert "2 games" in capsys.readouterr().out


@pytest.mark.parametrize(("arguments", "message"), [
    (["--clock", "0"], "above 0"),
    (["--clock", "1+x"], "is not SECONDS"),
    (["--clock", "60", "--time", "0.1"], "not allowed with argument"),
])
def test_the_command_line_refuses_a_bad_clock(arguments: list[str], message: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "random", "random", *arguments]) == 2
    assert message in capsys.readouterr().err


def test_a_clock_reading_names_the_movers_time() -> None:
    reading = ClockReading(1.5, 2.5, 0.0, Color.WHITE)
    assert math.isclose(reading.own, 2.5)
    assert ClockReading(1.5, 2.5, 0.0, Color.BLACK).own == 1.5
