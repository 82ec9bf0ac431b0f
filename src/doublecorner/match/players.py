"""Players for matches: the built-in engine, a random mover, and programs over a pipe.

A player is anything with a ``name``, ``new_game()``, ``choose(board)`` and
``close()``. :func:`parse_player` builds one from a command-line spec such as
``engine:time=0.1``, ``engine:depth=8,hash=32``, ``engine:eval=linear``,
``engine:network=PATH`` (a network file, ``--network`` on the command line;
implies ``eval=nn``; ``weights=`` is another name for it),
``engine:book=PATH`` (an opening book, drawn from with seed 0 each game),
``engine:egtb=off`` or ``engine:egtb=DIR`` (no endgame tables, or those in
DIR, instead of the installed ones), ``random:seed=7``,
``pydraughts:python=PATH`` or ``openspiel:python=PATH``. The last two run
the peer programs in ``peer_workers/`` with the given interpreter (the peers
are not dependencies of this package: each lives in its own environment).
Any other program that speaks the engine protocol is declared with
:func:`parse_engine` and then named like a built-in player.
"""

from __future__ import annotations

import os
import random
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from doublecorner.board import Board
from doublecorner.egtb import INSTALLED_TABLES, TableChoice
from doublecorner.engine import Engine, Limit
from doublecorner.engine.search import DEFAULT_EVALUATION, EVALUATIONS
from doublecorner.engine.timeman import budget
from doublecorner.errors import EngineError, TableError
from doublecorner.match.clock import ClockReading
from doublecorner.move import Move
from doublecorner.protocol import GoCommand, SimpleEngineClient

WORKER_DIR = Path(__file__).with_name("peer_workers")
PEER_WORKERS = {"pydraughts": "pydraughts_engine.py", "openspiel": "openspiel_mcts.py"}


class Player(Protocol):
    name: str

    def new_game(self) -> None: ...

    def choose(self, board: Board, clock: ClockReading | None = None) -> Move | None:
        """The move to play, or ``None`` if the player cannot produce one; ``clock`` is
        the game's clocks in a match on a clock (see :mod:`.clock`)."""

    def close(self) -> None: ...


class EnginePlayer:
    """The built-in engine under a fixed limit per move (with the installed endgame tables
    unless ``tables`` says otherwise: see :mod:`doublecorner.egtb.choice`).

    A ``limit`` with a ``clock`` plays on the game's clock: each move is searched
    with the time left on the player's clock and the increment, as the arena
    reports them; the engine budgets its own time.
    """

    def __init__(self, limit: Limit, *, hash_mb: int = 64, name: str | None = None,
                 evaluation: str = DEFAULT_EVALUATION, network: str | None = None,
                 book: str | None = None, tables: TableChoice = INSTALLED_TABLES) -> None:
        self.limit = limit
        opened = None
        if book is not None:
            from doublecorner.book import Book

            opened = Book.open(book)
        self.engine = Engine(hash_mb=hash_mb, evaluation=evaluation, network=network,
                             book=opened, book_seed=0, tables=tables)
        # The evaluation, book and tables are named: a match between two of these must
        # tell them apart.
        described = f"{_describe(limit)}, {evaluation}"
        if network is not None:
            described += f" {Path(network).name}"
        if book is not None:
            described += f", book {Path(book).name}"
        if tables is None:
            described += ", no egtb"
        elif isinstance(tables, (str, os.PathLike)):
            described += f", egtb {Path(tables).name}"
        self.name = name or f"doublecorner({described})"
        self.nodes = 0
        self.seconds = 0.0

    def new_game(self) -> None:
        self.engine.new_game()

    def choose(self, board: Board, clock: ClockReading | None = None) -> Move | None:
        limit = self.limit
        if limit.clock is not None:
            if clock is None:
                raise EngineError(f"{self.name} plays on a clock and was given none")
            limit = clock.limit()
        result = self.engine.search(board.position(), limit,
                                    history=board.position_history(),
                                    halfmove_clock=board.halfmove_clock)
        self.nodes += result.nodes
        self.seconds += result.seconds
        return result.move

    def close(self) -> None:
        pass


class RandomPlayer:
    """Plays a uniformly random legal move (seeded, so a match can be replayed).

    Each game starts again from the seed, so a game's moves do not depend on
    which games the same player played before (concurrent or Ray matches).
    """

    def __init__(self, seed: int = 0, *, name: str = "random") -> None:
        self.name = name
        self.seed = seed
        self._random = random.Random(seed)

    def new_game(self) -> None:
        self._random.seed(self.seed)

    def choose(self, board: Board, clock: ClockReading | None = None) -> Move | None:
        moves = sorted(board.legal_moves, key=lambda move: move.path)
        return self._random.choice(moves) if moves else None

    def close(self) -> None:
        pass


class ProtocolPlayer:
    """A program that speaks the engine protocol (docs/engine-protocol.md), run as a player.

    Each move it is sent the game from its start and ``go`` with the player's
    limit: ``go``, or on a game clock what ``on_clock`` makes of the clocks (a
    program that budgets its own time is sent them; a peer that takes only a time
    a move, the share of its clock the engine would spend). A program that
    fails, hangs past the limit (it is killed) or plays an illegal move raises
    :class:`EngineError`, which loses the game; ``bestmove none`` is no move
    (the arena then plays a random one for it).
    """

    def __init__(self, command: Sequence[str], *, name: str, go: GoCommand,
                 options: Mapping[str, str] | None = None,
                 on_clock: Callable[[ClockReading], GoCommand] | None = None) -> None:
        self.name = name
        self.go = go
        self.on_clock = on_clock
        self._client = SimpleEngineClient.popen(command, name=name)
        if options:
            try:
                self._client.configure(options)
            except EngineError:
                self._client.close()
                raise

    def new_game(self) -> None:
        self._client.new_game()

    def choose(self, board: Board, clock: ClockReading | None = None) -> Move | None:
        go = self.go
        if self.on_clock is not None:
            if clock is None:
                raise EngineError(f"{self.name} plays on a clock and was given none")
            go = self.on_clock(clock)
        return self._client.play(board, go).move

    def close(self) -> None:
        self._client.close()


def parse_player(spec: str, *, default_limit: Limit, movetime: float,
                 engines: Mapping[str, ExternalEngine] | None = None) -> Player:
    """Build a player from ``kind[:key=value,...]``.

    ``movetime`` is the seconds per move given to peer programs; ``engines``
    are external programs declared with :func:`parse_engine`, by name. A
    ``default_limit`` with a ``clock`` is a match on a game clock: every player
    whose spec names no limit of its own plays on it (``movetime`` is then
    unused).

    :raises EngineError: an unknown kind or option, or a peer that does not start.
    """
    kind, _, text = spec.partition(":")
    options = _options(spec, text)
    if kind == "engine":
        limit = default_limit
        if "depth" in options:
            limit = Limit(depth=_whole(spec, options.pop("depth")))
        elif "nodes" in options:
            limit = Limit(nodes=_whole(spec, options.pop("nodes")))
        elif "time" in options:
            limit = Limit(time=_seconds(spec, options.pop("time")))
        hash_mb = _whole(spec, options.pop("hash", "64"))
        name = options.pop("name", None)
        network = _network(spec, options)
        book = options.pop("book", None)
        tables = _tables(options.pop("egtb", None))
        evaluation = options.pop("eval", "nn" if network is not None else DEFAULT_EVALUATION)
        if evaluation not in EVALUATIONS:
            raise EngineError(f"player {spec!r}: eval is {' or '.join(EVALUATIONS)}, "
                              f"not {evaluation!r}")
        if network is not None and evaluation != "nn":
            raise EngineError(f"player {spec!r}: network= goes with eval=nn")
        _no_more(spec, options)
        try:
            return EnginePlayer(limit, hash_mb=hash_mb, name=name, evaluation=evaluation,
                                network=network, book=book, tables=tables)
        except TableError as error:
            raise EngineError(f"player {spec!r}: {error}") from None
    if kind == "random":
        seed = _whole(spec, options.pop("seed", "0"))
        _no_more(spec, options)
        return RandomPlayer(seed)
    if kind in PEER_WORKERS:
        python = options.pop("python", sys.executable)
        on_clock = default_limit.clock is not None and "time" not in options
        peer_time = _seconds(spec, options.pop("time", str(movetime)))
        _no_more(spec, options)
        return ProtocolPlayer([python, str(WORKER_DIR / PEER_WORKERS[kind])], name=kind,
                              go=GoCommand(movetime=round(peer_time * 1000)),
                              on_clock=clock_share_go if on_clock else None)
    if kind in (engines or {}):
        return _external(spec, (engines or {})[kind], options, default_limit, movetime)
    known = ["engine", "random", *PEER_WORKERS, *(engines or {})]
    raise EngineError(f"unknown player {spec!r}: use {', '.join(known)} "
                      "(with :key=value options)")


@dataclass(frozen=True, slots=True)
class ExternalEngine:
    """A program declared with ``--engine name=N,cmd=COMMAND[,option=value...]``."""

    name: str
    command: tuple[str, ...]
    options: Mapping[str, str]


def parse_engine(text: str) -> ExternalEngine:
    """An external engine from ``name=N,cmd=COMMAND[,OPTION=VALUE...]``.

    >>> parse_engine("name=scan,cmd=./scan dcp,Hash=32")
    ExternalEngine(name='scan', command=('./scan', 'dcp'), options={'Hash': '32'})

    :raises EngineError: ``name`` or ``cmd`` is missing, or an item is not key=value.
    """
    items = _options(f"--engine {text}", text)
    name, command = items.pop("name", ""), items.pop("cmd", "")
    if not name or not command:
        raise EngineError(f"--engine {text!r} needs name=NAME and cmd=COMMAND")
    if name in {"engine", "random", *PEER_WORKERS}:
        raise EngineError(f"--engine name {name!r} is taken by a built-in player")
    return ExternalEngine(name, tuple(shlex.split(command)), items)


def _external(spec: str, engine: ExternalEngine, options: dict[str, str],
              default_limit: Limit, movetime: float) -> Player:
    """A declared external engine, with ``depth=``, ``nodes=`` or ``time=`` from the spec or
    the match."""
    if "depth" in options:
        go = GoCommand(depth=_whole(spec, options.pop("depth")))
    elif "nodes" in options:
        go = GoCommand(nodes=_whole(spec, options.pop("nodes")))
    elif "time" in options:
        go = GoCommand(movetime=round(_seconds(spec, options.pop("time")) * 1000))
    elif default_limit.depth is not None:
        go = GoCommand(depth=default_limit.depth)
    elif default_limit.clock is not None:
        _no_more(spec, options)
        return ProtocolPlayer(engine.command, name=engine.name, go=GoCommand(),
                              options=engine.options, on_clock=clock_go)
    else:
        go = GoCommand(movetime=round(movetime * 1000))
    _no_more(spec, options)
    return ProtocolPlayer(engine.command, name=engine.name, go=go, options=engine.options)


def clock_go(clock: ClockReading) -> GoCommand:
    """``go`` with both clocks and increments, for a program that budgets its own time.

    >>> from doublecorner.color import Color
    >>> go = clock_go(ClockReading(59.5, 60.0, 0.5, Color.BLACK))
    >>> go.btime, go.wtime, go.binc, go.winc, go.movetime
    (59500, 60000, 500, 500, None)
    """
    increment = round(clock.increment * 1000)
    return GoCommand(btime=max(0, round(clock.black * 1000)),
                     wtime=max(0, round(clock.white * 1000)), binc=increment, winc=increment)


def clock_share_go(clock: ClockReading) -> GoCommand:
    """``go movetime``: the share of the mover's clock the engine would spend on the move,
    for a peer that takes only a time a move.

    >>> from doublecorner.color import Color
    >>> clock_share_go(ClockReading(90.0, 60.0, 1.0, Color.WHITE)).movetime
    2798
    """
    seconds = budget(clock.limit()).hard or 0.001
    return GoCommand(movetime=max(1, round(seconds * 1000)))


def _network(spec: str, options: dict[str, str]) -> str | None:
    """The ``network=`` file of an engine spec (``weights=``, its older name, too), taken out.

    :raises EngineError: both names are given.
    """
    if "network" in options and "weights" in options:
        raise EngineError(f"player {spec!r}: network= and weights= name the same file: "
                          "give one")
    return options.pop("network", None) or options.pop("weights", None)


def _tables(text: str | None) -> TableChoice:
    """The tables of ``egtb=``: ``off`` for none, a folder, or (not given) the installed ones."""
    if text is None:
        return INSTALLED_TABLES
    return None if text == "off" else Path(text)


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
    if limit.clock is not None:
        return f"clock {limit.clock:g}+{limit.increment:g}"
    return f"{limit.time:g} s/move" if limit.time is not None else "unlimited"
