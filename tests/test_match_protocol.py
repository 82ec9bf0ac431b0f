"""ProtocolPlayer against small scripted programs: handshake, moves, failures."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from doublecorner import Board, EngineError
from doublecorner.match import ProtocolPlayer, RandomPlayer, play_game, three_move_deck
from doublecorner.protocol import GoCommand

PROGRAM = """
import sys
from doublecorner import Board

BEHAVIOUR = {behaviour!r}
GO_LOG = {go_log!r}  # a file to append every go line to, or None
board = Board()
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "dcp":
        print("id name scripted", flush=True)
        print("dcpok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        board = Board() if words[1] == "startpos" else Board(words[2])
        for move in words[words.index("moves") + 1:] if "moves" in words else []:
            board.push_str(move)
    elif words[0] == "go":
        if GO_LOG:
            with open(GO_LOG, "a") as log:
                log.write(line)
        if BEHAVIOUR == "crash":
            sys.exit(3)
        if BEHAVIOUR == "hang":
            continue
        if BEHAVIOUR == "none":
            print("bestmove none", flush=True)
            continue
        moves = sorted(str(move) for move in board.legal_moves)
        reply = {{"last": moves[-1], "first": moves[0]}}.get(BEHAVIOUR, "nonsense")
        print(f"bestmove {{reply}}", flush=True)
    elif words[0] == "quit":
        break
"""


Scripted = Callable[[str], ProtocolPlayer]


def scripted_program(behaviour: str, go_log: Path | None = None) -> str:
    """The text of a scripted program: it answers ``go`` as ``behaviour`` says (``last`` or
    ``first`` legal move, ``none``, ``crash``, ``hang``, anything else an illegal move) and,
    with ``go_log``, appends each ``go`` line it is sent to that file."""
    return textwrap.dedent(PROGRAM.format(behaviour=behaviour,
                                          go_log=None if go_log is None else str(go_log)))


@pytest.fixture
def scripted(tmp_path: Path) -> Iterator[Scripted]:
    """Start a scripted program with a behaviour; every one is closed after the test."""
    players: list[ProtocolPlayer] = []

    def start(behaviour: str) -> ProtocolPlayer:
        path = tmp_path / f"{behaviour}.py"
        path.write_text(scripted_program(behaviour))
        players.append(ProtocolPlayer([sys.executable, str(path)], name="scripted",
                                      go=GoCommand(movetime=50)))
        return players[-1]

    yield start
    for player in players:
        player.close()


def test_a_program_that_answers_plays_whole_games(scripted: Scripted) -> None:
    record = play_game(scripted("last"), RandomPlayer(1), three_move_deck()[0], number=1,
                       first_is_black=True)
    assert record.result in {"1-0", "0-1", "1/2-1/2"}
    assert "failed" not in record.reason and record.fallback_moves == 0


def test_bestmove_none_is_no_move(scripted: Scripted) -> None:
    assert scripted("none").choose(Board()) is None


@pytest.mark.parametrize(("behaviour", "message"), [
    ("crash", "exited"),
    ("nonsense", "illegal move: invalid move 'nonsense'"),
])
def test_a_failing_program_raises_engine_error(scripted: Scripted, behaviour: str,
                                               message: str) -> None:
    with pytest.raises((EngineError, ValueError), match=message):
        scripted(behaviour).choose(Board())


def test_a_hung_program_is_killed(scripted: Scripted, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("doublecorner.protocol.client.REPLY_GRACE_SECONDS", 0.2)
    monkeypatch.setattr("doublecorner.protocol.client.STOP_GRACE_SECONDS", 0.2)
    with pytest.raises(EngineError, match="hung"):
        scripted("hang").choose(Board())


def test_a_program_that_fails_loses_the_game(scripted: Scripted) -> None:
    record = play_game(scripted("crash"), RandomPlayer(2), three_move_deck()[0], number=1,
                       first_is_black=True)
    assert record.result == "0-1" and "scripted failed" in record.reason
