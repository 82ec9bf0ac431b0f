"""The engine side of the protocol: doublecorner's engine as a program (``doublecorner engine``).

:class:`EngineServer` reads commands line by line and answers on a text
stream. A ``go`` runs in a worker thread, so that ``stop``, ``isready`` and
``quit`` are read and acted on while the engine thinks; every answer line is
written whole under a lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

from doublecorner import __version__
from doublecorner.board import Board
from doublecorner.book.reader import Book
from doublecorner.egtb import INSTALLED_TABLES, TableChoice
from doublecorner.engine import Engine, SearchResult
from doublecorner.engine.search import DEFAULT_EVALUATION, EVALUATIONS, ensure_engine_compiled
from doublecorner.engine.tt import MAX_MEGABYTES, MIN_MEGABYTES
from doublecorner.errors import DraughtsError, quoted
from doublecorner.protocol.messages import (
    GoCommand,
    PositionCommand,
    info_line,
    parse_go,
    parse_position,
)

NAME = f"doublecorner {__version__}"
AUTHOR = "the doublecorner developers"
DEFAULT_HASH_MB = 64
NO_BOOK = "<none>"
NO_TABLES = "<none>"
INSTALLED = "<installed>"  # EGTBPath's default: the tables 'doublecorner egtb build' installed


class EngineServer:
    """Answers protocol commands with doublecorner's engine."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._write_lock = threading.Lock()
        self._hash_mb = DEFAULT_HASH_MB
        self._evaluation = DEFAULT_EVALUATION
        self._network: str | None = None
        self._tables: TableChoice = INSTALLED_TABLES
        self._own_book = False
        self._book: Book | None = None
        self._engine = Engine(hash_mb=self._hash_mb, evaluation=self._evaluation)
        self._board = Board()
        self._search: threading.Thread | None = None
        # One event per search: a stop that arrives before the search has
        # started still ends it at once.
        self._stop = threading.Event()
        # Cleared just before the bestmove is written, not when the thread ends:
        # a controller may send its next command as soon as it reads the bestmove.
        self._searching = threading.Event()

    def serve(self, lines: Iterable[str]) -> int:
        """Answer every command until ``quit`` or the end of the input; the exit status."""
        try:
            for line in lines:
                if not self.handle(line):
                    break
        finally:
            self._finish_search()
        return 0

    def handle(self, line: str) -> bool:
        """Carry out one command line; ``False`` once it was ``quit``."""
        words = line.split()
        if not words:
            return True
        command = words[0]
        if command == "quit":
            return False
        try:
            if command == "stop":
                self._finish_search()
            elif command == "isready":
                self._say("readyok")
            elif self._searching.is_set():
                raise DraughtsError(f"{quoted(command)} during a search: send 'stop' first")
            elif command == "dcp":
                self._handshake()
            elif command == "setoption":
                self._set_option(words)
            elif command == "newgame":
                self._engine.new_game()
            elif command == "position":
                self._board = self._board_at(parse_position(words))
            elif command == "go":
                self._go(parse_go(words))
            else:
                raise DraughtsError(f"unknown command {quoted(command)}")
        except DraughtsError as error:
            self._say(f"error {error}")
        return True

    def _handshake(self) -> None:
        # The name first, at once: a controller waits only seconds for a first
        # answer. Then load (or, the first time, compile) the engine, so that
        # the first search's time is not spent compiling.
        self._say(f"id name {NAME}")
        self._say(f"id author {AUTHOR}")
        ensure_engine_compiled()
        self._say(f"option name Hash type spin default {DEFAULT_HASH_MB} min {MIN_MEGABYTES} "
                  f"max {MAX_MEGABYTES}")
        self._say(f"option name Evaluation type combo default {DEFAULT_EVALUATION} "
                  + " ".join(f"var {name}" for name in EVALUATIONS))
        self._say("option name EvalFile type string default <shipped>")
        self._say("option name OwnBook type check default false")
        self._say(f"option name BookFile type string default {NO_BOOK}")
        self._say(f"option name EGTBPath type string default {INSTALLED}")
        self._say("dcpok")

    def _set_option(self, words: list[str]) -> None:
        text = " ".join(words[1:])
        name, _, value = text.removeprefix("name ").partition(" value ")
        name, value = name.strip(), value.strip()
        if name.lower() in ("ownbook", "bookfile"):
            self._set_book_option(name.lower(), value)
            return
        hash_mb, evaluation, network = self._hash_mb, self._evaluation, self._network
        tables = self._tables
        if name.lower() == "hash":
            if not (value.isascii() and value.isdigit()):
                raise DraughtsError(f"option Hash needs a whole number of MB, not {value!r}")
            hash_mb = int(value)
        elif name.lower() == "evaluation":
            if value not in EVALUATIONS:
                raise DraughtsError(f"option Evaluation is {' or '.join(EVALUATIONS)}, "
                                    f"not {value!r}")
            evaluation = value
        elif name.lower() == "evalfile":
            network = None if value in ("", "<shipped>") else value
        elif name.lower() == "egtbpath":
            tables = (INSTALLED_TABLES if value == INSTALLED
                      else None if value in ("", NO_TABLES) else Path(value))
        else:
            raise DraughtsError(f"unknown option {name!r}")
        try:  # checks the range, the weights file and the tables before replacing the engine
            self._engine = Engine(hash_mb=hash_mb, evaluation=evaluation, network=network,
                                  book=self._book if self._own_book else None, tables=tables)
        except MemoryError:
            raise DraughtsError(f"cannot allocate {hash_mb} MB for the hash table") from None
        self._hash_mb, self._evaluation, self._network = hash_mb, evaluation, network
        self._tables = tables

    def _set_book_option(self, name: str, value: str) -> None:
        """``OwnBook`` (true/false) or ``BookFile`` (a path, or <none>), the table kept."""
        own_book, book = self._own_book, self._book
        if name == "ownbook":
            if value.lower() not in ("true", "false"):
                raise DraughtsError(f"option OwnBook is true or false, not {value!r}")
            own_book = value.lower() == "true"
        else:
            book = None if value in ("", NO_BOOK) else Book.open(value)
        self._own_book, self._book = own_book, book
        self._engine.book = book if own_book else None

    @staticmethod
    def _board_at(command: PositionCommand) -> Board:
        board = Board(command.fen)
        for number, move in enumerate(command.moves, start=1):
            try:
                board.push_str(move)
            except DraughtsError as error:
                raise DraughtsError(f"move {number} of the position: {error}") from None
        return board

    def _go(self, command: GoCommand) -> None:
        limit = command.limit(self._board.turn)
        board = self._board.copy()
        stop = self._stop = threading.Event()

        def search() -> None:
            try:
                result = self._engine.search(board.position(), limit,
                                             history=board.position_history(),
                                             halfmove_clock=board.halfmove_clock,
                                             on_info=self._info, stop=stop)
                answer = f"bestmove {result.move or 'none'}"
            # Not expected once the limit is built; but a search that ended without
            # its bestmove would leave the engine "during a search" for good.
            except Exception as error:
                self._say(f"error {error}")
                answer = "bestmove none"
            self._searching.clear()
            self._say(answer)

        self._searching.set()
        self._search = threading.Thread(target=search, name="dcp-search", daemon=True)
        self._search.start()

    def _info(self, result: SearchResult) -> None:
        self._say(info_line(result))

    def _finish_search(self) -> None:
        """Stop a running search and wait for its ``bestmove`` to be written."""
        if self._search is not None:
            self._stop.set()
            self._search.join()
            self._search = None

    def _say(self, line: str) -> None:
        with self._write_lock:
            self._out.write(line + "\n")
            self._out.flush()
