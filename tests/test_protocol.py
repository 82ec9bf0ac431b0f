"""The engine protocol: the server through its lines, the client against real programs."""

from __future__ import annotations

import io
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from doublecorner import Board, EngineError, Move
from doublecorner.engine import Score
from doublecorner.protocol import EngineServer, GoCommand, SimpleEngineClient
from doublecorner.protocol import client as client_module
from doublecorner.protocol import server as server_module
from doublecorner.protocol.messages import parse_go, parse_info, parse_position

ENGINE = [sys.executable, "-m", "doublecorner", "engine"]


class Lines:
    """Feeds the server one command at a time, waiting for the answers it needs."""

    def __init__(self) -> None:
        self.out = io.StringIO()
        self.server = EngineServer(self.out)

    def send(self, *commands: str) -> list[str]:
        start = len(self.out.getvalue())
        for command in commands:
            assert self.server.handle(command)
        return self.out.getvalue()[start:].splitlines()

    def search(self, command: str) -> list[str]:
        """Send a ``go`` and wait for its bestmove."""
        start = len(self.out.getvalue())
        self.server.handle(command)
        assert self.server._search is not None
        self.server._search.join(60)
        return self.out.getvalue()[start:].splitlines()


def test_the_handshake_names_the_engine_and_its_options() -> None:
    lines = Lines().send("dcp")
    assert lines[0].startswith("id name doublecorner")
    assert any(line.startswith("option name Hash type spin default 64") for line in lines)
    assert lines[-1] == "dcpok"


def test_a_search_streams_infos_then_one_legal_bestmove() -> None:
    lines = Lines()
    lines.send("position startpos moves 11-15 23-19")
    answer = lines.search("go depth 5")
    infos = [parse_info(line) for line in answer if line.startswith("info")]
    assert [info.depth for info in infos] == [1, 2, 3, 4, 5]
    assert answer[-1].startswith("bestmove ")
    board = Board()
    board.push_str("11-15")
    board.push_str("23-19")
    assert board.parse_move(answer[-1].split()[1]) in board.legal_moves


def test_a_won_position_is_scored_as_a_win_in_plies() -> None:
    lines = Lines()
    lines.send("position fen W:W18:B14")
    answer = lines.search("go depth 3")
    assert "score win 1" in answer[0] and answer[-1] == "bestmove 18x9"


def test_stop_ends_an_infinite_search_with_a_bestmove() -> None:
    lines = Lines()
    lines.send("position startpos")
    lines.server.handle("go infinite")
    lines.send("isready")  # answered during the search
    lines.send("stop")
    output = lines.out.getvalue().splitlines()
    assert "readyok" in output and output[-1].startswith("bestmove ")


def test_a_lost_position_answers_bestmove_none() -> None:
    lines = Lines()
    lines.send("position fen B:W18:B")
    assert lines.search("go depth 2")[-1] == "bestmove none"


@pytest.mark.parametrize(("command", "error"), [
    ("fly", "unknown command 'fly'"),
    ("go depth", "go depth needs a whole number"),
    ("go sometime 5", "unknown go parameter 'sometime'"),
    ("position", "expected 'position startpos|fen FEN"),
    ("position startpos moves 11-15 11-16", "move 2 of the position: illegal move '11-16'"),
    ("position fen B:W1:B", "invalid FEN"),
    ("setoption name Contempt value 3", "unknown option 'Contempt'"),
    ("setoption name Hash value 0", "hash size must be"),
    ("go depth 0", "go depth needs a whole number from 1 to 100 plies, not '0'"),
    ("go depth -5", "go depth needs a whole number from 1 to 100 plies, not '-5'"),
    ("go depth \u00b2", "go depth needs a whole number from 1 to 100 plies"),
    ("go depth \u0661", "go depth needs a whole number from 1 to 100 plies"),
    ("go nodes 1180591620717411303424", "go nodes needs a whole number from 1 to"),
    ("go nodes " + "9" * 5000, "go nodes needs a whole number from 1 to"),
    ("go movetime 0", "go movetime needs a whole number from 1 to 1000000000000 milliseconds"),
    ("go movestogo 0", "go movestogo needs a whole number from 1"),
    ("setoption name Hash value \u00b2", "option Hash needs a whole number"),
    ("x" * 100_000, "unknown command"),
])
def test_malformed_commands_get_an_error_line_and_change_nothing(command: str, error: str) -> None:
    lines = Lines()
    lines.send("position fen W:W18:B14")
    answer = lines.send(command)
    assert len(answer) == 1 and answer[0].startswith("error ") and error in answer[0], answer
    assert lines.search("go depth 2")[-1] == "bestmove 18x9"  # the position is unchanged


def test_commands_during_a_search_are_refused() -> None:
    lines = Lines()
    lines.send("position startpos")
    lines.server.handle("go infinite")
    assert lines.send("position fen W:W18:B14") == [
        "error 'position' during a search: send 'stop' first"]
    lines.send("stop")


def test_parsing_round_trips() -> None:
    clock_go = "go btime 1000 wtime 2000 binc 10 winc 20 movestogo 30"
    go = parse_go(clock_go.split())
    assert parse_go(go.line().split()) == go
    assert go.limit(Board().turn).clock == 1.0
    position = "position fen W:W18:B14 moves 18x9"
    assert parse_position(position.split()).line() == position
    assert parse_info("info depth 2 score loss 4 pv").score == Score(-(30000 - 4))


# -- the client, against programs in other processes ---------------------------------------


def test_the_client_plays_a_game_against_our_engine_program() -> None:
    board = Board()
    with SimpleEngineClient.popen(ENGINE) as black, SimpleEngineClient.popen(ENGINE) as white:
        assert black.name.startswith("doublecorner") and "Hash" in black.options
        black.configure({"Hash": 8})
        for _ in range(12):
            engine = black if board.turn.name == "BLACK" else white
            result = engine.play(board, GoCommand(depth=3))
            assert result.move is not None and result.info is not None
            board.push(result.move)
    assert len(board.move_stack) == 12


def test_fixed_depth_play_through_the_protocol_is_deterministic() -> None:
    def moves() -> list[Move]:
        board = Board()
        with SimpleEngineClient.popen(ENGINE) as engine:
            for _ in range(8):
                result = engine.play(board, GoCommand(depth=5))
                assert result.move is not None
                board.push(result.move)
        return board.move_stack

    assert moves() == moves()


SCRIPT = """
import sys, time
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "dcp":
        print("id name scripted\\ndcpok", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        if {behaviour!r} == "crash":
            sys.exit(3)
        if {behaviour!r} == "illegal":
            print("bestmove 11-16", flush=True)
        # "hang": never answers, not even to stop
    elif word == "quit":
        if {behaviour!r} != "hang":
            break
"""


Scripted = Callable[[str], SimpleEngineClient]


@pytest.fixture
def scripted(tmp_path: Path) -> Iterator[Scripted]:
    started: list[SimpleEngineClient] = []

    def start(behaviour: str) -> SimpleEngineClient:
        path = tmp_path / f"{behaviour}.py"
        path.write_text(textwrap.dedent(SCRIPT.format(behaviour=behaviour)))
        started.append(SimpleEngineClient.popen([sys.executable, str(path)]))
        return started[-1]

    yield start
    for client in started:
        client.close()


@pytest.mark.parametrize(("behaviour", "message"), [
    ("crash", "exited with status 3"),
    ("illegal", "played an illegal move"),
    ("hang", "hung"),
])
def test_a_failing_program_raises_engine_error(scripted: Scripted, behaviour: str,
                                               message: str) -> None:
    client = scripted(behaviour)
    board = Board()
    board.push_str("11-15")
    with pytest.raises(EngineError, match=message):
        client.play(board, GoCommand(movetime=10), timeout=0.3)


def test_a_program_that_cannot_start_is_an_engine_error() -> None:
    with pytest.raises(EngineError, match="cannot start engine"):
        SimpleEngineClient.popen(["/no/such/engine"])


def test_a_program_that_does_not_speak_the_protocol_fails_the_handshake_at_once() -> None:
    """``cat`` echoes 'dcp' back: that is no handshake, and it is said at once, not in 180 s."""
    started = time.monotonic()
    with pytest.raises(EngineError, match="does not speak the engine protocol: it answered 'dcp'"):
        SimpleEngineClient.popen(["cat"])
    assert time.monotonic() - started < 5


def test_a_silent_program_fails_after_the_first_answer_deadline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "FIRST_ANSWER_SECONDS", 0.5)
    started = time.monotonic()
    with pytest.raises(EngineError, match=r"did not answer within 0.5 s \(awaiting the handshake"):
        SimpleEngineClient.popen(["sleep", "30"])
    assert time.monotonic() - started < 5


def test_our_engine_names_itself_before_it_loads_the_search(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A first run compiles for a while in the handshake; the controller has its answer first."""
    lines = Lines()
    said_before_loading: list[str] = []
    monkeypatch.setattr(server_module, "ensure_engine_compiled",
                        lambda: said_before_loading.extend(lines.out.getvalue().splitlines()))
    assert lines.send("dcp")[-1] == "dcpok"
    assert [line.split()[:2] for line in said_before_loading] == [["id", "name"], ["id", "author"]]


def test_a_conversation_survives_every_hostile_command() -> None:
    """Each command of issue 15 gets its error line; the engine still searches after all."""
    lines = Lines()
    hostile = ["go nodes 1180591620717411303424", "go depth \u00b2", "go depth -5",
               "go movetime 0", "setoption name Hash value \u00b2",
               "setoption name Hash value 1180591620717411303424",
               "position fen B:W\uff12\uff11:B1",
               "position startpos moves \u0661\u0661-\u0661\u0665", "\ufffd", "go wtime"]
    for command in hostile:
        answer = lines.send(command)
        assert len(answer) == 1 and answer[0].startswith("error "), (command, answer)
        assert len(answer[0]) < 300
    lines.send("position fen W:W18:B14")
    assert lines.search("go depth 2")[-1] == "bestmove 18x9"
    assert lines.send("isready") == ["readyok"]


def test_the_engine_program_reads_any_bytes_and_ends_at_the_end_of_input() -> None:
    import subprocess

    commands = (b"isready\n\xff\xfe\n" + b"go nodes 1180591620717411303424\n"
                + b"position fen W:W18:B14\ngo depth 2\n")
    completed = subprocess.run(ENGINE, input=commands, capture_output=True, timeout=300,
                               check=False)
    assert completed.returncode == 0
    assert b"Traceback" not in completed.stderr
    answers = completed.stdout.decode().splitlines()
    assert answers[0] == "readyok"
    assert [line.split()[0] for line in answers[1:3]] == ["error", "error"]
    assert answers[-1] == "bestmove 18x9"  # the end of input waits for the search's bestmove
