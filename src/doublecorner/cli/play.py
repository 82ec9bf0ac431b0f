"""The ``play`` subcommand: a game against the engine at the terminal.

:class:`PlaySession` holds the game and reads the human's lines from any text
stream, so that tests drive it with :class:`io.StringIO`; the subcommand
connects it to stdin and stdout. A game left with Ctrl-C or the end of input
is saved as PDN, and ``--resume`` reads such a file back.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import random
import re
import shlex
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, TextIO

from doublecorner.board import Board
from doublecorner.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    UsageError,
    add_book_option,
    add_evaluation_options,
    book_from_arguments,
    evaluation_from_arguments,
    positive_float,
)
from doublecorner.cli.memory import check_hash_fits
from doublecorner.cli.search_options import (
    DEFAULT_HASH_MB,
    add_table_options,
    hash_megabytes,
    new_engine,
    run_search,
    tables_from_arguments,
)
from doublecorner.cli.streams import MAX_LINE_BYTES, check_output_file, stdin_bytes
from doublecorner.color import Color
from doublecorner.diagram import board_diagram, square_numbers_diagram
from doublecorner.engine import Engine, SearchResult
from doublecorner.engine.levels import (
    DEFAULT_LEVEL,
    HUMAN_NAME,
    LEVEL_DEPTHS,
    Strength,
    engine_accepts_draw,
)
from doublecorner.errors import DraughtsError, EngineError, quoted
from doublecorner.fen import STARTING_FEN
from doublecorner.outcome import Termination
from doublecorner.paths import saved_games_dir
from doublecorner.pdn import iter_games, write_game

EVENT = "doublecorner play"
# A line that starts like a1-h8 move text (f6-e5) is a move; no command starts so.
_SQUARE_NAME = re.compile(r"[a-h][1-8]")
# How the PDN tags name the engine (PlaySession.engine_name): read back by --resume.
_ENGINE_NAME = re.compile(r"doublecorner \((?:level ([0-9]{1,2})|([0-9.e+-]+) s per move)\)")

COMMANDS_HELP = """\
Type a move as its squares, numbered or named a1-h8: 11-15 or f6-e5, 9x18x27,
or just the ends of a capture, 9x27.
commands:
  moves       list the legal moves
  hint        ask the engine for a move
  undo        take back your last move and the engine's reply
  draw        offer a draw (accepted when the engine is not ahead by more than 0.10)
  resign      give up the game
  flip        turn the board around
  board       show the board again
  fen         print the position as FEN
  save FILE   write the game so far as PDN
  new         start again from the first position, same colours
  help        this list
  quit        leave without saving
Ctrl-C at the prompt, or the end of input, leaves too and saves the game first
(to --save FILE, or to a new file in the saved-games folder); --resume FILE
takes it up again."""


def _level_table() -> str:
    levels = "".join(f"{level:>4}" for level in range(1, len(LEVEL_DEPTHS) + 1))
    depths = "".join(f"{depth:>4}" for depth in LEVEL_DEPTHS)
    return f"  level{levels}\n  plies{depths}"


def add_parsers(commands: Any) -> None:
    """Register ``play``."""
    play = commands.add_parser(
        "play", help="play a game against the engine in the terminal",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play against the engine: the board is shown before each of your\n"
                    "moves; type a move or a command at the prompt.\n\n"
                    f"strength: --level N searches a fixed number of plies per move\n"
                    f"{_level_table()}\n"
                    "or --time S gives the engine S seconds per move.\n\n" + COMMANDS_HELP)
    play.add_argument("--color", "--colour", choices=("black", "white", "random"),
                      help="your side (default: black, who moves first; with --resume, "
                           "the side you played)")
    strength = play.add_mutually_exclusive_group()
    strength.add_argument("--level", type=_level, metavar="N",
                          help=f"engine strength 1-{len(LEVEL_DEPTHS)}, see the table above "
                               f"(default: {DEFAULT_LEVEL})")
    strength.add_argument("--time", type=positive_float, metavar="S",
                          help="seconds the engine thinks per move, instead of a level")
    start = play.add_mutually_exclusive_group()
    start.add_argument("--fen", default=STARTING_FEN, help="start position (default: start)")
    start.add_argument("--resume", type=Path, metavar="FILE",
                       help="continue the game saved in FILE (one game of PDN), with the "
                            "colours and strength its tags record unless given here")
    play.add_argument("--save", type=Path, metavar="FILE",
                      help="where Ctrl-C or the end of input saves the game (default: "
                           f"a new play-DATE-TIME.pdn in {saved_games_dir()})")
    play.add_argument("--flip", action="store_true",
                      help="start with the engine's side at the bottom (default: yours)")
    play.add_argument("--numbers", action="store_true",
                      help="show the square numbers beside the board")
    play.add_argument("--hash", type=hash_megabytes, default=DEFAULT_HASH_MB, metavar="MB",
                      help=f"transposition table size (default: {DEFAULT_HASH_MB})")
    add_table_options(play)
    add_evaluation_options(play)
    add_book_option(play)
    play.set_defaults(run=_play)


def _level(text: str) -> int:
    expected = f"expected a level from 1 to {len(LEVEL_DEPTHS)}"
    if not (text.isascii() and text.strip().isdigit()):  # int() reads other digits, '1_0'
        raise argparse.ArgumentTypeError(f"{expected}, not {quoted(text)}")
    level = int(text)
    if not 1 <= level <= len(LEVEL_DEPTHS):
        raise argparse.ArgumentTypeError(f"{expected}, not {level}")
    return level


def _play(arguments: argparse.Namespace) -> int:
    if arguments.save is not None:
        check_output_file(arguments.save, "--save")
    if arguments.resume is not None:
        saved = read_saved_game(arguments.resume)
    else:
        saved = SavedGame(Board(arguments.fen), human=None, strength=None)
    if arguments.color == "random":
        human = random.choice((Color.BLACK, Color.WHITE))
    elif arguments.color is not None:
        human = Color[arguments.color.upper()]
    else:
        human = saved.human or Color.BLACK
    if arguments.time is not None:
        strength = Strength.from_seconds(arguments.time)
    elif arguments.level is not None or saved.strength is None:
        strength = Strength.from_level(arguments.level or DEFAULT_LEVEL)
    else:
        strength = saved.strength
    evaluation = evaluation_from_arguments(arguments)
    book = book_from_arguments(arguments)
    check_hash_fits(arguments.hash)
    engine = new_engine(arguments.hash, tables=tables_from_arguments(arguments), **evaluation,
                        **book)
    save_path = arguments.save or saved_games_dir() / f"play-{datetime.now():%Y-%m-%d-%H%M%S}.pdn"
    session = PlaySession(saved.board, human=human, engine=engine,
                          strength=strength, flipped=(human is Color.BLACK) != arguments.flip,
                          numbers=arguments.numbers, save_path=save_path)
    return session.run(StdinLines(), sys.stdout)


@dataclass(frozen=True, slots=True)
class SavedGame:
    """A game to take up: the board after its moves, and what its tags say of the players.

    ``human`` is the side whose tag names :data:`HUMAN_NAME`, ``strength`` the
    engine's as :attr:`PlaySession.engine_name` spells it; ``None`` when the
    tags do not say (a game saved by another program).
    """

    board: Board
    human: Color | None
    strength: Strength | None


def read_saved_game(path: Path) -> SavedGame:
    """The one game of the PDN file ``path``, as ``save`` and Ctrl-C write it.

    :raises UsageError: no such file, a file that is not one unfinished game,
        or a PDN error (with its line and column).
    """
    shown = f"--resume {quoted(str(path))}"
    if not path.is_file():
        raise UsageError(f"{shown}: no such file")
    try:
        games = list(itertools.islice(iter_games(path, strict=True), 2))
        if len(games) != 1:
            raise UsageError(f"{shown}: the file holds {'no game' if not games else 'several'}"
                             "; --resume takes a file of one game, as 'save' writes it")
        (game,) = games
        board = game.end().board()
    except DraughtsError as error:  # PdnError, or a FEN tag that is no position
        raise UsageError(f"{shown}: {error}") from None
    if game.result != "*":
        raise UsageError(f"{shown}: that game is over ({game.result}); nothing to resume")
    humans = [color for color in Color if game.headers.get(str(color)) == HUMAN_NAME]
    human = humans[0] if len(humans) == 1 else None
    strength = None
    if human is not None:
        named = _ENGINE_NAME.fullmatch(game.headers.get(str(human.opponent), ""))
        strength = _strength_named(*named.groups()) if named else None
    return SavedGame(board, human=human, strength=strength)


def _strength_named(level: str | None, seconds: str | None) -> Strength | None:
    """The strength of a level or of seconds a move; ``None`` for a value out of range."""
    try:
        if level is not None:
            return Strength.from_level(int(level))
        value = float(seconds or "nan")
    except (EngineError, ValueError):
        return None
    return Strength.from_seconds(value) if 0 < value < float("inf") else None


class StdinLines:
    """stdin's lines as text, whatever its bytes: not UTF-8 reads as U+FFFD.

    Such a line is then refused like any other unknown input and the game goes
    on; only a line too long to be typed (``< /dev/zero``) ends the session.

    :raises UsageError: stdin is closed, or a line is longer than
        :data:`~doublecorner.cli.streams.MAX_LINE_BYTES`.
    """

    def __init__(self) -> None:
        self._stream = stdin_bytes()
        self._number = 0

    def readline(self) -> str:
        raw = self._stream.readline(MAX_LINE_BYTES + 1)
        self._number += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            raise UsageError(f"stdin line {self._number} is longer than {MAX_LINE_BYTES:,} "
                             "bytes: is this the right input?")
        return raw.decode("utf-8", "replace")


class LineReader(Protocol):
    """Where a session reads the human's lines: a text stream such as stdin."""

    def readline(self) -> str:
        """The next line with its newline, or ``""`` at the end of the input."""
        ...


@dataclass(frozen=True, slots=True)
class Ending:
    """How a game ended: the winner (``None`` for a draw) and why, in words.

    >>> Ending(Color.WHITE, "Black resigns").result
    '0-1'
    """

    winner: Color | None
    reason: str

    @property
    def result(self) -> str:
        """The PDN result: ``1-0`` when Black won, ``0-1`` White, ``1/2-1/2`` a draw."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is Color.BLACK else "0-1"


class PlaySession:
    """A game between a human, who types at a prompt, and the engine.

    The game starts where ``board`` stands; moves already made on it count for
    repetitions and are saved, but ``undo`` and ``new`` go back no further.
    ``flipped`` shows Black at the bottom of the board (White is there otherwise).
    ``save_path``: where Ctrl-C at the prompt or the end of the input saves a
    game with moves not yet saved; ``None`` leaves without saving.

    >>> import io
    >>> session = PlaySession(Board("B:W18:B"), human=Color.BLACK, engine=Engine(hash_mb=1),
    ...                       strength=Strength.from_level(1), flipped=True, numbers=False)
    >>> out = io.StringIO()
    >>> session.run(io.StringIO("quit\\n"), out)
    0
    >>> print(out.getvalue())  # doctest: +ELLIPSIS
    You play Black against doublecorner (level 1). Type 'help' for the commands.
    ...
    game over: 0-1 (Black has no legal moves; you lose)
    ...
    """

    def __init__(self, board: Board, *, human: Color, engine: Engine, strength: Strength,
                 flipped: bool, numbers: bool, save_path: Path | None = None) -> None:
        self.board = board
        self.human = human
        self.engine = engine
        self.strength = strength
        self.flipped = flipped
        self.numbers = numbers
        self.save_path = save_path
        self._start = board.copy()  # what `new` goes back to
        root = board.copy()
        while root.move_stack:
            root.pop()
        # PDN and move numbers count from the first position of the board's history.
        self._root_fen, self._root_turn = root.fen(), root.turn
        self._agreed: Ending | None = None  # a resignation or an accepted draw
        self._announced = False
        self._board_is_stale = True
        self._out: TextIO = sys.stdout
        self._saved_pdn = self._pdn()  # a resumed game is saved already; a new one is empty

    @property
    def engine_name(self) -> str:
        """The engine's name in messages and in the PDN tags."""
        return f"doublecorner ({self.strength.name})"

    def ending(self) -> Ending | None:
        """How the game has ended, by the rules or by the players, or ``None``."""
        if self._agreed is not None:
            return self._agreed
        # The session is the referee: it claims a draw by the rules as soon as one is
        # on the board, for the human and the engine alike.
        outcome = self.board.outcome(claim_draw=True)
        if outcome is None:
            return None
        if outcome.termination is Termination.NO_MOVES:
            return Ending(outcome.winner, f"{self.board.turn} has no legal moves")
        if outcome.termination is Termination.FORTY_MOVE_RULE:
            return Ending(None, "draw by the forty-move rule")
        return Ending(None, "draw by threefold repetition")

    def run(self, lines: LineReader, out: TextIO) -> int:
        """Play until ``quit`` or the end of ``lines``; returns the exit status (0).

        :raises DraughtsError: the engine failed.
        """
        self._out = out
        self._say(f"You play {self.human} against {self.engine_name}. "
                  "Type 'help' for the commands.")
        while True:
            ending = self.ending()
            if ending is None and self.board.turn is not self.human:
                self._engine_move()
                continue
            if self._board_is_stale:
                self._show_board()
            if ending is not None and not self._announced:
                self._announce(ending)
            try:  # from the prompt on: Ctrl-C while writing it counts as at the prompt
                out.write("game over> " if ending is not None
                          else f"move {self._move_number()}, {self.board.turn}> ")
                out.flush()
                line = lines.readline()
            except KeyboardInterrupt:
                line = ""
            if not line:  # Ctrl-C or the end of input: leave, keeping the game
                out.write("\n")
                return self._save_on_leaving()
            if not self._handle(line.strip(), ending):
                return EXIT_OK

    # -- the human's input ---------------------------------------------------

    def _handle(self, line: str, ending: Ending | None) -> bool:
        """Act on one line; ``False`` ends the session."""
        word, _, argument = line.partition(" ")
        word, argument = word.lower(), argument.strip()
        if not word:
            return True
        if word in ("quit", "exit"):
            return False
        if word == "save":
            self._save(argument)
            return True
        if word[0].isdigit() or _SQUARE_NAME.match(word):
            if ending is not None:
                self._say_game_over(ending)
            else:
                self._human_move(line)
            return True
        anytime = {"help": self._help, "board": self._show_board, "flip": self._flip,
                   "fen": self._fen, "undo": self._undo, "new": self._new}
        while_playing = {"moves": self._moves, "hint": self._hint, "draw": self._draw,
                         "resign": self._resign}
        action = anytime.get(word) or while_playing.get(word)
        if action is None:
            self._say(f"unknown command {word!r}: type a move such as 11-15 or f6-e5, "
                      "or 'help'")
        elif argument:
            self._say(f"{word!r} takes no argument")
        elif ending is not None and word in while_playing:
            self._say_game_over(ending)
        else:
            action()
        return True

    def _human_move(self, text: str) -> None:
        try:
            self.board.push_str(text)
        except DraughtsError as error:  # the board is unchanged; say why and ask again
            self._say(str(error))
            return
        self._board_is_stale = True

    # -- the engine ----------------------------------------------------------

    def _search(self, *, use_book: bool = True) -> SearchResult:
        # A deep level thinks for seconds: say so, or the terminal looks frozen.
        self._say("engine thinking ...")
        self._out.flush()  # the user sees everything so far while the engine thinks
        return run_search(self.engine, self.board, self.strength.limit, use_book=use_book)

    def _engine_move(self) -> None:
        result = self._search()
        if result.move is None:  # cannot happen: the caller checked that the game goes on
            raise EngineError(f"the engine found no move in {self.board.fen()}")
        self.board.push(result.move)
        self._board_is_stale = True
        if result.is_book:
            self._say(f"engine plays {result.move} (book)")
            return
        self._say(f"engine plays {result.move} (score {result.score} for the engine, "
                  f"depth {result.depth})")

    # -- commands ------------------------------------------------------------

    def _help(self) -> None:
        self._say(COMMANDS_HELP)

    def _flip(self) -> None:
        self.flipped = not self.flipped
        self._show_board()

    def _fen(self) -> None:
        self._say(self.board.fen())

    def _moves(self) -> None:
        self._say(self._moves_line())

    def _undo(self) -> None:
        # Take back to just before the human's last move, with the engine's replies
        # after it, so that it is the human's turn again.
        first = self._root_turn
        human_plies = [ply for ply in range(len(self._start.move_stack), len(self.board.move_stack))
                       if (first if ply % 2 == 0 else first.opponent) is self.human]
        if not human_plies:
            self._say("nothing to take back")
            return
        taken = [str(self.board.pop()) for _ in range(len(self.board.move_stack) - human_plies[-1])]
        self._agreed = None
        self._announced = False
        self._board_is_stale = True
        self._say(f"took back {' '.join(reversed(taken))}")

    def _new(self) -> None:
        self.board = self._start.copy()
        self.engine.new_game()
        self._agreed = None
        self._announced = False
        self._board_is_stale = True
        self._say("new game")

    def _hint(self) -> None:
        result = self._search()
        if result.is_book:
            self._say(f"hint: {result.move} (book)")
            return
        self._say(f"hint: {result.move} (score {result.score} for you, depth {result.depth})")

    def _draw(self) -> None:
        if self.board.can_claim_draw():
            self._say(f"{self.engine_name} accepts the draw (the rules allow claiming it)")
        else:
            # The search sees the position from the human's side; the engine's view is
            # the opposite.
            engine_score = -self._search(use_book=False).score
            if not engine_accepts_draw(self.board.position(), engine_score):
                self._say(f"{self.engine_name} declines the draw (its score {engine_score})")
                return
            self._say(f"{self.engine_name} accepts the draw (its score {engine_score})")
        self._agreed = Ending(None, "draw agreed")

    def _resign(self) -> None:
        self._agreed = Ending(self.human.opponent, f"{self.human} resigns")

    def _save(self, name: str) -> None:
        if not name:
            self._say("usage: save FILE")
            return
        self._write(Path(name).expanduser())

    def _write(self, path: Path) -> bool:
        """Save the game as PDN to ``path`` and say so; ``False`` (said too) if it cannot."""
        text = self._pdn()
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as error:
            self._say(f"cannot save to {str(path)!r}: {error.strerror or error}")
            return False
        self._saved_pdn = text
        plies = len(self.board.move_stack)
        self._say(f"saved {plies} {'ply' if plies == 1 else 'plies'} to {path}")
        return True

    def _save_on_leaving(self) -> int:
        """Save what ``save`` or ``--resume`` did not already hold; the exit status."""
        if self.save_path is None or self._pdn() == self._saved_pdn:
            return EXIT_OK
        with contextlib.suppress(OSError):  # the write below says why the folder is not there
            self.save_path.parent.mkdir(parents=True, exist_ok=True)
        if not self._write(self.save_path):
            return EXIT_FAILURE
        self._say(f"to continue: doublecorner play --resume {shlex.quote(str(self.save_path))}")
        return EXIT_OK

    def _pdn(self) -> str:
        ending = self.ending()
        tags = {"Event": EVENT,
                "Black": HUMAN_NAME if self.human is Color.BLACK else self.engine_name,
                "White": HUMAN_NAME if self.human is Color.WHITE else self.engine_name}
        return write_game(self.board.move_stack, tags=tags, start_fen=self._root_fen,
                          result=ending.result if ending is not None else "*")

    # -- output --------------------------------------------------------------

    def _say(self, text: str) -> None:
        self._out.write(text + "\n")

    def _show_board(self) -> None:
        position = self.board.position()
        diagram = board_diagram(position.black, position.white, position.kings,
                                flipped=self.flipped)
        if self.numbers:
            key = square_numbers_diagram(flipped=self.flipped).splitlines()
            diagram = "\n".join(f"{left:<24}{right}"
                                for left, right in zip(diagram.splitlines(), key, strict=True))
        self._say(diagram)
        self._board_is_stale = False
        if self.ending() is None:
            mover = "you" if self.board.turn is self.human else "engine"
            self._say(f"{self.board.turn} to move ({mover})")
            self._say(self._moves_line())

    def _moves_line(self) -> str:
        moves = sorted(self.board.legal_moves, key=lambda move: move.path)
        return "legal moves: " + (" ".join(map(str, moves)) if moves else "none")

    def _announce(self, ending: Ending) -> None:
        verdict = ("" if ending.winner is None
                   else "; you win" if ending.winner is self.human else "; you lose")
        self._say(f"game over: {ending.result} ({ending.reason}{verdict})")
        self._say("type 'save FILE' to keep the game, 'undo' to take back, "
                  "'new' to play again, or 'quit'")
        self._announced = True

    def _say_game_over(self, ending: Ending) -> None:
        self._say(f"the game is over ({ending.result}, {ending.reason}): "
                  "type 'save FILE', 'undo', 'new' or 'quit'")

    def _move_number(self) -> int:
        """The number of the full move being played, counted from the start position."""
        plies = len(self.board.move_stack) + (1 if self._root_turn is Color.WHITE else 0)
        return plies // 2 + 1
