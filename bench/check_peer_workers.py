"""Check the peer workers: their protocol, and every move they play against a random mover.

Each worker in ``src/doublecorner/match/peer_workers/`` is started with its
peer's own interpreter (``bench/.venvs/<peer>/bin/python``) and plays games
from the start position against uniformly random legal moves made with
``doublecorner.Board``, alternating colours. Every worker move is asked for the
way ``doublecorner match`` asks: ``position fen <start> moves <all so far>``
then ``go movetime MS``; the answer must be a legal move of the position in
full-path notation (``bestmove none`` is counted, and a random move is played
instead, as the match driver falls back). Run with this project's Python::

    python bench/check_peer_workers.py [--games 20] [--movetime 100] [--worker openspiel]

It prints, per worker, games, moves, illegal moves, ``bestmove none`` answers,
seconds per move (mean and max, measured from ``go`` to the answer) and the
worker's wins, draws and losses. The exit status is 1 on any illegal move or
protocol failure.
"""

from __future__ import annotations

import argparse
import queue
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from doublecorner import Board, Color, DraughtsError, Move

ROOT = Path(__file__).resolve().parent.parent
WORKER_DIR = ROOT / "src" / "doublecorner" / "match" / "peer_workers"
VENVS = ROOT / "bench" / ".venvs"
START_FEN = "B:W21-32:B1-12"
WORKERS = {
    "pydraughts": (VENVS / "py-draughts" / "bin" / "python", WORKER_DIR / "pydraughts_engine.py"),
    "openspiel": (VENVS / "open-spiel" / "bin" / "python", WORKER_DIR / "openspiel_mcts.py"),
}
HANDSHAKE_SECONDS = 60.0
REPLY_GRACE_SECONDS = 10.0
MAX_PLIES = 400  # a game still going after this many plies is scored a draw
# A position other than the start, to check set-up (the OpenSpiel worker must refuse it).
SETUP_FEN = "W:W18,K22,23:B5,K14"


class ProtocolFailure(RuntimeError):
    """The worker broke the protocol: no answer in time, an exit, or a wrong answer."""


class Worker:
    """A worker process, its stdout read line by line on a thread."""

    def __init__(self, name: str, python: Path, script: Path) -> None:
        self.name = name
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - kept open for the process
            mode="w+", prefix=f"{name}-", suffix=".stderr", delete=False
        )
        self.process = subprocess.Popen(
            [str(python), str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line: str) -> None:
        """Write one command."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except OSError as error:
            raise ProtocolFailure(f"{self.name} has exited (sending {line!r}): {error}") from None

    def receive(self, seconds: float, awaiting: str) -> str:
        """The next line the worker writes, within ``seconds``."""
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            raise ProtocolFailure(
                f"{self.name}: no answer to {awaiting!r} in {seconds:g} s"
            ) from None
        if line is None:
            raise ProtocolFailure(
                f"{self.name} exited (status {self.process.wait()}) awaiting {awaiting!r}"
            )
        return line

    def expect(self, prefix: str, seconds: float, awaiting: str) -> str:
        """The next line, which must start with ``prefix``."""
        line = self.receive(seconds, awaiting)
        if not line.startswith(prefix):
            raise ProtocolFailure(f"{self.name}: {awaiting!r} answered {line!r}, not {prefix}...")
        return line

    def close(self) -> int | None:
        """Send ``quit``; the exit status (``None`` if it had to be killed)."""
        try:
            self.send("quit")
            return self.process.wait(timeout=10)
        except (ProtocolFailure, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
            return None
        finally:
            self.log.close()

    def stderr_tail(self, lines: int = 15) -> str:
        """The last lines of the worker's diagnostics."""
        text = Path(self.log.name).read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])


@dataclass
class Tally:
    """What one worker did."""

    games: int = 0
    moves: int = 0
    illegal: int = 0
    none: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    unfinished: int = 0
    seconds: list[float] = field(default_factory=list)
    # Seconds of the moves where there was a choice (a lone legal move comes at once).
    choice_seconds: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def check_handshake(worker: Worker, tally: Tally, *, refuses_setup: bool) -> None:
    """The fixed part of the protocol, and errors for bad commands."""
    worker.send("dcp")
    name = worker.expect("id name ", HANDSHAKE_SECONDS, "dcp")
    worker.expect("dcpok", HANDSHAKE_SECONDS, "dcp")
    print(f"  {name[len('id name '):]}")
    worker.send("isready")
    worker.expect("readyok", REPLY_GRACE_SECONDS, "isready")
    worker.send("newgame")
    for bad in (
        "go movetime 100",  # no position yet
        "frobnicate",
        "position fen X:W1:B2",
        "position fen B:W21-32:B1-12 moves 11-14",
        "go movetime soon",
    ):
        worker.send(bad)
        worker.expect("error ", REPLY_GRACE_SECONDS, bad)
    worker.send(f"position fen {SETUP_FEN}")
    if refuses_setup:
        worker.expect("error ", REPLY_GRACE_SECONDS, f"position fen {SETUP_FEN}")
    else:
        worker.send("go movetime 50")
        reply = worker.expect("bestmove ", REPLY_GRACE_SECONDS, "go movetime 50")
        if judge(Board(SETUP_FEN), reply, tally) is None:
            tally.failures.append(f"set-up position {SETUP_FEN}: {reply!r}")
    worker.send("isready")
    worker.expect("readyok", REPLY_GRACE_SECONDS, "isready after errors")


def judge(board: Board, reply: str, tally: Tally) -> Move | None:
    """The move of a ``bestmove`` reply if it is legal and in full-path notation."""
    words = reply.split()
    if len(words) != 2:
        raise ProtocolFailure(f"malformed reply {reply!r}")
    if words[1] == "none":
        tally.none += 1
        return None
    try:
        move = board.parse_move(words[1])
    except DraughtsError as error:
        tally.illegal += 1
        print(f"  ILLEGAL {words[1]!r} in {board.fen()}: {error}")
        return None
    if str(move) != words[1]:
        tally.illegal += 1
        print(f"  NOT FULL PATH {words[1]!r} for {move} in {board.fen()}")
        return None
    return move


def play_game(worker: Worker, tally: Tally, worker_color: Color, rng: random.Random,
              movetime: int) -> None:
    """One game from the start position; the worker plays ``worker_color``."""
    worker.send("newgame")
    board = Board(START_FEN)
    played: list[str] = []
    while board.outcome(claim_draw=True) is None and len(played) < MAX_PLIES:
        move: Move | None = None
        if board.turn is worker_color:
            command = f"position fen {START_FEN}" + (f" moves {' '.join(played)}" if played else "")
            worker.send(command)
            worker.send(f"go movetime {movetime}")
            began = time.perf_counter()
            reply = worker.expect("bestmove ", movetime / 1000 + REPLY_GRACE_SECONDS,
                                  f"go after {len(played)} plies")
            elapsed = time.perf_counter() - began
            tally.seconds.append(elapsed)
            if len(board.legal_moves) > 1:
                tally.choice_seconds.append(elapsed)
            tally.moves += 1
            move = judge(board, reply, tally)
        if move is None:
            move = rng.choice(sorted(board.legal_moves, key=lambda each: each.path))
        board.push(move)
        played.append(str(move))
    tally.games += 1
    outcome = board.outcome(claim_draw=True)  # the check is the referee, as match is
    if outcome is None:
        tally.unfinished += 1
        tally.draws += 1
    elif outcome.winner is None:
        tally.draws += 1
    elif outcome.winner is worker_color:
        tally.wins += 1
    else:
        tally.losses += 1


def run(name: str, games: int, movetime: int, seed: int) -> Tally:
    """Start the worker, check its protocol and play ``games`` games."""
    python, script = WORKERS[name]
    tally = Tally()
    print(f"{name}: {python} {script.relative_to(ROOT)}")
    if not python.exists():
        tally.failures.append(f"no interpreter at {python}")
        return tally
    worker = Worker(name, python, script)
    rng = random.Random(seed)
    try:
        check_handshake(worker, tally, refuses_setup=name == "openspiel")
        for game in range(games):
            color = Color.BLACK if game % 2 == 0 else Color.WHITE
            play_game(worker, tally, color, rng, movetime)
    except ProtocolFailure as error:
        tally.failures.append(str(error))
        print(f"  FAILURE {error}\n  stderr:\n{worker.stderr_tail()}")
    status = worker.close()
    if status != 0 and not tally.failures:
        tally.failures.append(f"exit status {status} after quit")
    return tally


def report(name: str, tally: Tally) -> None:
    """Print one worker's results."""
    mean = statistics.fmean(tally.seconds) if tally.seconds else 0.0
    longest = max(tally.seconds, default=0.0)
    chosen = statistics.fmean(tally.choice_seconds) if tally.choice_seconds else 0.0
    stopped = f" ({tally.unfinished} stopped at {MAX_PLIES} plies)" if tally.unfinished else ""
    print(f"  games {tally.games}  moves {tally.moves}  illegal {tally.illegal}  "
          f"bestmove none {tally.none}")
    print(f"  seconds per move: mean {mean:.3f}, max {longest:.3f}; "
          f"mean {chosen:.3f} over the {len(tally.choice_seconds)} moves with a choice")
    print(f"  vs random: {tally.wins} won, {tally.draws} drawn{stopped}, {tally.losses} lost")
    for failure in tally.failures:
        print(f"  failure: {failure}")


def main(argv: list[str] | None = None) -> int:
    """Check the chosen workers; 0 if all is well, 1 otherwise."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per worker")
    parser.add_argument("--movetime", type=int, default=100, help="milliseconds per move")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random mover")
    parser.add_argument("--worker", choices=sorted(WORKERS), action="append",
                        help="check only this worker (repeatable)")
    arguments = parser.parse_args(argv)
    ok = True
    for name in arguments.worker or list(WORKERS):
        tally = run(name, arguments.games, arguments.movetime, arguments.seed)
        report(name, tally)
        ok = ok and not tally.failures and tally.illegal == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
