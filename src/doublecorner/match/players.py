"""Players for matches: the built-in engine, a random mover, and programs over a pipe.

A player is anything with a ``name``, ``new_game()``, ``choose(board)`` and
``close()``. :func:`parse_player` builds one from a command-line spec such as
``engine:time=0.1``, ``engine:depth=8,hash=32``, ``random:seed=7``,
``pydraughts:python=PATH`` or ``openspiel:python=PATH``. The last two run
the peer programs in ``peer_workers/`` with the given interpreter (the peers
are not dependencies of this package: each lives in its own environment).
"""

from __future__ import annotations

import queue
import random
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from doublecorner.board import Board
from doublecorner.engine import Engine, Limit
from doublecorner.errors import EngineError
from doublecorner.move import Move

WORKER_DIR = Path(__file__).with_name("peer_workers")
PEER_WORKERS = {"pydraughts": "pydraughts_engine.py", "openspiel": "openspiel_mcts.py"}
HANDSHAKE_SECONDS = 60.0  # a peer imports its library and may calibrate itself
REPLY_GRACE_SECONDS = 10.0  # beyond the move time, before a silent program counts as hung


class Player(Protocol):
    name: str

    def new_game(self) -> None: ...

    def choose(self, board: Board) -> Move | None:
        """The move to play, or ``None`` if the player cannot produce one."""

    def close(self) -> None: ...


class EnginePlayer:
    """The built-in engine under a fixed limit per move."""

    def __init__(self, limit: Limit, *, hash_mb: int = 64, name: str | None = None) -> None:
        self.limit = limit
        self.engine = Engine(hash_mb=hash_mb)
        self.name = name or f"doublecorner({_describe(limit)})"
        self.nodes = 0
        self.seconds = 0.0

    def new_game(self) -> None:
        self.engine.new_game()

    def choose(self, board: Board) -> Move | None:
        result = self.engine.search(board.position(), self.limit,
                                    history=board.position_history(),
                                    halfmove_clock=board.halfmove_clock)
        self.nodes += result.nodes
        self.seconds += result.seconds
        return result.move

    def close(self) -> None:
        pass


class RandomPlayer:
    """Plays a uniformly random legal move (seeded, so a match can be replayed)."""

    def __init__(self, seed: int = 0, *, name: str = "random") -> None:
        self.name = name
        self._random = random.Random(seed)

    def new_game(self) -> None:
        pass

    def choose(self, board: Board) -> Move | None:
        moves = sorted(board.legal_moves, key=lambda move: move.path)
        return self._random.choice(moves) if moves else None

    def close(self) -> None:
        pass


class ProtocolPlayer:
    """A program that speaks the line protocol of ``peer_workers/`` on stdin and stdout.

    Every move it is sent the game from its start (``position fen F moves
    ...``) and ``go movetime MS``, and answers ``bestmove M`` (or ``bestmove
    none``). A program that does not answer in time, exits, or answers
    nonsense raises :class:`EngineError`.
    """

    def __init__(self, command: list[str], *, name: str, movetime: float) -> None:
        self.name = name
        self.movetime = movetime
        self._command = command
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._send("dcp")
        self._expect("dcpok", HANDSHAKE_SECONDS)

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self._lines.put(line.strip())
        self._lines.put(None)  # the program closed its output: it has exited

    def _send(self, line: str) -> None:
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(line + "\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineError(f"{self.name} has exited (while sending {line!r})") from None

    def _expect(self, prefix: str, seconds: float) -> str:
        while True:
            try:
                line = self._lines.get(timeout=seconds)
            except queue.Empty:
                raise EngineError(f"{self.name} sent no {prefix!r} within {seconds:g} s") from None
            if line is None:
                raise EngineError(f"{self.name} exited while {prefix!r} was awaited")
            if line.startswith("error"):
                raise EngineError(f"{self.name} answered: {line}")
            if line.startswith(prefix):
                return line

    def new_game(self) -> None:
        self._send("newgame")

    def choose(self, board: Board) -> Move | None:
        start = board.copy()
        while start.move_stack:
            start.pop()
        moves = " ".join(str(move) for move in board.move_stack)
        self._send(f"position fen {start.fen()}" + (f" moves {moves}" if moves else ""))
        self._send(f"go movetime {round(self.movetime * 1000)}")
        reply = self._expect("bestmove", self.movetime + REPLY_GRACE_SECONDS).split()
        if len(reply) != 2:
            raise EngineError(f"{self.name} sent a malformed best move: {' '.join(reply)!r}")
        if reply[1] == "none":
            return None
        return board.parse_move(reply[1])

    def close(self) -> None:
        try:
            self._send("quit")
            self._process.wait(timeout=5)
        except (EngineError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()


def parse_player(spec: str, *, default_limit: Limit, movetime: float) -> Player:
    """Build a player from ``kind[:key=value,...]``.

    ``movetime`` is the seconds per move given to peer programs.

    :raises EngineError: an unknown kind or option, or a peer that does not start.
    """
    kind, _, text = spec.partition(":")
    options = _options(spec, text)
    if kind == "engine":
        limit = default_limit
        if "depth" in options:
            limit = Limit(depth=_whole(spec, options.pop("depth")))
        elif "time" in options:
            limit = Limit(time=_seconds(spec, options.pop("time")))
        hash_mb = _whole(spec, options.pop("hash", "64"))
        name = options.pop("name", None)
        _no_more(spec, options)
        return EnginePlayer(limit, hash_mb=hash_mb, name=name)
    if kind == "random":
        seed = _whole(spec, options.pop("seed", "0"))
        _no_more(spec, options)
        return RandomPlayer(seed)
    if kind in PEER_WORKERS:
        python = options.pop("python", sys.executable)
        peer_time = _seconds(spec, options.pop("time", str(movetime)))
        _no_more(spec, options)
        return ProtocolPlayer([python, str(WORKER_DIR / PEER_WORKERS[kind])], name=kind,
                              movetime=peer_time)
    raise EngineError(f"unknown player {spec!r}: use engine, random, "
                      f"{', '.join(PEER_WORKERS)} (with :key=value options)")


def _options(spec: str, text: str) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in filter(None, text.split(",")):
        key, equals, value = item.partition("=")
        if not equals or not key or not value:
            raise EngineError(f"player {spec!r}: option {item!r} is not key=value")
        options[key.strip()] = value.strip()
    return options


def _whole(spec: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise EngineError(f"player {spec!r}: {text!r} is not a whole number") from None


def _seconds(spec: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise EngineError(f"player {spec!r}: {text!r} is not a number of seconds") from None


def _no_more(spec: str, options: Mapping[str, str]) -> None:
    if options:
        raise EngineError(f"player {spec!r}: unknown option {next(iter(options))!r}")


def _describe(limit: Limit) -> str:
    if limit.depth is not None:
        return f"depth {limit.depth}"
    if limit.nodes is not None:
        return f"{limit.nodes} nodes"
    return f"{limit.time:g} s/move" if limit.time is not None else "unlimited"
