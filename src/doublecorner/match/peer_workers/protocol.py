"""The ``dcp`` line protocol that every peer worker speaks, and its notation.

A worker reads one command a line on stdin and answers on stdout::

    dcp                          -> id name ...  then  dcpok
    isready                      -> readyok
    newgame
    position fen FEN [moves M1 M2 ...]      (or: position startpos [moves ...])
    go movetime MS               -> bestmove 11-15 | bestmove 9x18x27 | bestmove none
    quit

Anything it cannot carry out is answered ``error <message>``. This module reads
the commands, their FENs and moves, and runs the loop; a worker supplies only a
:class:`Session` that plays through its peer's library.

The workers are run as scripts by their peer's interpreter, where
``doublecorner`` is not installed but this file, next to them, is importable as
``protocol``; they are also imported as modules of the package by the test run
and the type check. So this module imports only the standard library, and
nothing of the package.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
from collections.abc import Callable, Iterable
from typing import Protocol, TextIO

START_FEN = "B:W21-32:B1-12"

_SQUARE_TOKEN = re.compile(r"(K?)(\d{1,2})(?:-(\d{1,2}))?")
_MOVE_TEXT = re.compile(r"\d{1,2}(?:[-x]\d{1,2})+")


class ProtocolError(ValueError):
    """A command that cannot be carried out; answered with ``error <message>``."""


class Session(Protocol):
    """A peer's game and player, as the commands ``newgame``, ``position`` and ``go`` use them.

    Any other exception a method raises is taken for a fault of the peer's
    library: it is answered ``error internal: ...`` and the session is sent
    :meth:`new_game`.
    """

    def new_game(self) -> None:
        """Forget the position and whatever the player learnt in the last game."""

    def set_position(self, fen: str, moves: list[str]) -> None:
        """Set up ``fen`` and play ``moves`` (full-path notation) on it.

        :raises ProtocolError: the position cannot be set up or a move is not legal.
        """

    def best_move(self, movetime_ms: int) -> str | None:
        """The player's move in full-path notation within ``movetime_ms``; ``None`` if none.

        :raises ProtocolError: no position has been set.
        """


# -- squares, FEN and move text ----------------------------------------------


def parse_fen(text: str) -> tuple[str, dict[int, bool], dict[int, bool]]:
    """Side to move and each side's pieces (square -> is king) of a PDN FEN.

    >>> parse_fen("W:W18,K22,23:B5,K14")
    ('W', {18: False, 22: True, 23: False}, {5: False, 14: True})
    >>> parse_fen("B:W21-32:B1-12")[2] == dict.fromkeys(range(1, 13), False)
    True

    :raises ProtocolError: ``text`` is not a FEN of the 32-square board.
    """
    fields = text.strip().strip('"').upper().split(":")
    if fields[0] not in ("B", "W"):
        raise ProtocolError(f"invalid FEN {text!r}: it must start with B: or W:")
    sides: dict[str, dict[int, bool]] = {}
    taken: set[int] = set()
    for field in fields[1:]:
        if field[:1] not in ("B", "W"):
            continue  # PDN allows further fields (move number and the like)
        if field[0] in sides:
            raise ProtocolError(f"invalid FEN {text!r}: two piece lists for {field[0]}")
        pieces: dict[int, bool] = {}
        for token in filter(None, field[1:].split(",")):
            match = _SQUARE_TOKEN.fullmatch(token)
            if not match:
                raise ProtocolError(f"invalid FEN {text!r}: bad square {token!r}")
            first = int(match.group(2))
            last = int(match.group(3) or first)
            if not 1 <= first <= last <= 32:
                raise ProtocolError(f"invalid FEN {text!r}: bad square {token!r}")
            for square in range(first, last + 1):
                if square in taken:
                    raise ProtocolError(f"invalid FEN {text!r}: square {square} given twice")
                taken.add(square)
                pieces[square] = match.group(1) == "K"
        sides[field[0]] = pieces
    if set(sides) != {"B", "W"}:
        raise ProtocolError(f"invalid FEN {text!r}: it needs a W and a B piece list")
    return fields[0], sides["W"], sides["B"]


def parse_move_text(text: str) -> tuple[int, ...]:
    """The squares a move visits, from ``11-15`` or ``9x18x27``.

    >>> parse_move_text("9x18x27")
    (9, 18, 27)

    :raises ProtocolError: ``text`` is not move notation on squares 1-32.
    """
    if not _MOVE_TEXT.fullmatch(text):
        raise ProtocolError(f"invalid move {text!r}")
    squares = tuple(int(part) for part in re.split(r"[-x]", text))
    if not all(1 <= square <= 32 for square in squares):
        raise ProtocolError(f"invalid move {text!r}: squares run from 1 to 32")
    return squares


def move_text(squares: Iterable[int], *, is_capture: bool) -> str:
    """Full-path notation: ``11-15`` for a step, ``9x18x27`` for a jump.

    >>> move_text([9, 18, 27], is_capture=True), move_text([11, 15], is_capture=False)
    ('9x18x27', '11-15')
    """
    return ("x" if is_capture else "-").join(str(square) for square in squares)


def search_seconds(movetime_ms: int, *, margin_share: float, margin_seconds: float) -> float:
    """Seconds of search when the move must come within ``movetime_ms``.

    ``margin_share`` of the time and ``margin_seconds`` more are kept back for
    what the worker does after its search stops (at least 1 ms is searched).

    >>> round(search_seconds(100, margin_share=0.03, margin_seconds=0.004), 3)
    0.093
    """
    seconds = movetime_ms / 1000
    return max(0.001, seconds * (1 - margin_share) - margin_seconds)


# -- commands ----------------------------------------------------------------


def parse_position(words: list[str]) -> tuple[str, list[str]]:
    """FEN and moves of a ``position`` command split into words.

    >>> parse_position(["position", "startpos", "moves", "11-15", "23-19"])
    ('B:W21-32:B1-12', ['11-15', '23-19'])
    >>> parse_position(["position", "fen", "W:W18:B5"])
    ('W:W18:B5', [])

    :raises ProtocolError: the command is malformed.
    """
    if len(words) >= 2 and words[1] == "startpos":
        fen, rest = START_FEN, words[2:]
    elif len(words) >= 3 and words[1] == "fen":
        fen, rest = words[2], words[3:]
    else:
        raise ProtocolError("expected 'position fen <FEN> [moves ...]' or 'position startpos'")
    if rest and rest[0] != "moves":
        raise ProtocolError(f"expected 'moves' after the position, not {rest[0]!r}")
    return fen, rest[1:]


def parse_go(words: list[str]) -> int:
    """The milliseconds of a ``go movetime MS`` command split into words.

    >>> parse_go(["go", "movetime", "100"])
    100

    :raises ProtocolError: the command is malformed.
    """
    if len(words) != 3 or words[1] != "movetime" or not words[2].isdigit():
        raise ProtocolError("expected 'go movetime <milliseconds>'")
    return int(words[2])


def serve(session: Session, name: str, lines: Iterable[str], reply: Callable[[str], None]) -> int:
    """Answer the commands in ``lines`` until ``quit`` or the end of input; the exit status.

    >>> class Opening:
    ...     def new_game(self): pass
    ...     def set_position(self, fen, moves): pass
    ...     def best_move(self, movetime_ms): return "11-15"
    >>> serve(Opening(), "opening", ["dcp", "go movetime soon", "go movetime 5", "quit"], print)
    id name opening
    dcpok
    error expected 'go movetime <milliseconds>'
    bestmove 11-15
    0
    """
    for line in lines:
        words = line.split()
        if not words:
            continue
        command = words[0]
        try:
            if command == "quit":
                return 0
            if command == "dcp":
                reply(f"id name {name}")
                reply("dcpok")
            elif command == "isready":
                reply("readyok")
            elif command == "newgame":
                session.new_game()
            elif command == "position":
                session.set_position(*parse_position(words))
            elif command == "go":
                move = session.best_move(parse_go(words))
                reply(f"bestmove {move or 'none'}")
            else:
                raise ProtocolError(f"unknown command {command!r}")
        except ProtocolError as error:
            reply(f"error {error}")
        except Exception as error:  # a peer library fault must not end the match
            traceback.print_exc(file=sys.stderr)
            session.new_game()
            reply(f"error internal: {type(error).__name__}: {error}")
    return 0


def _protocol_output() -> TextIO:
    """A private handle on stdout; file descriptor 1 is pointed at stderr.

    Whatever a library prints, even from C or C++, then lands among the
    diagnostics instead of in the middle of the protocol.
    """
    out = os.fdopen(os.dup(1), "w", buffering=1)
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def run(start: Callable[[], tuple[Session, str]]) -> int:
    """Serve the line protocol on stdin and stdout; the exit status.

    ``start`` loads the peer's library and gives the session and the name that
    ``dcp`` announces. It is called once stdout is private, so that nothing the
    library prints while it loads reaches the protocol.
    """
    out = _protocol_output()

    def reply(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    session, name = start()
    return serve(session, name, sys.stdin, reply)
