"""OpenSpiel's checkers and its C++ MCTS bot as a peer program speaking the ``dcp`` protocol.

Run it with OpenSpiel's own interpreter (``python openspiel_mcts.py``); it
speaks the ``dcp`` line protocol of :mod:`protocol` (the file next to this one)
on stdin and stdout, answering ``go movetime MS`` with ``bestmove 11-15``,
``bestmove 9x18x27`` or ``bestmove none``.

The player is ``pyspiel.MCTSBot`` with a ``RandomRolloutEvaluator`` (one
random playout per leaf, UCT with c = 2, MCTS-Solver on), stopped by the bot's
own wall-clock limit (``max_wall_clock_time``), so a move takes the requested
time however fast the playouts of the position are: no calibration of
simulations per second is needed. (Its ``step`` crashes when the clock stops
it before a second simulation; see :meth:`OpenSpielSession._search`.) A
decision with a single action (most jumps) is made without a search. In
matches of 30 to 60 games at 0.1 s a decision against c = 1.4, c = 3, the
solver off and four playouts per leaf, no other setting scored clearly better
(c = 1.4: 15 of 30; c = 3: 11 of 30; solver off: 30.5 of 60; four playouts:
27 of 60).

How OpenSpiel's game maps onto English draughts:

* Its player 0 moves first from the bottom of its board; its coordinates are
  the chess-style ones of our square table (square 29 = a1) but its first
  player stands where White does. Its board is ours turned half round:
  square ``s`` is OpenSpiel's coordinate of square ``33 - s`` and player 0 is
  Black. Checked against ``doublecorner``'s move generator in 1000 random
  games (67,631 positions, every complete move alike, winners alike).
* A multi-jump is one action per jump, the same player moving again until the
  chain ends; a move is replayed jump by jump and answered as one path.
* It has no way to set up a position, so only the standard start position is
  accepted, and games are replayed from it.
* It ends a game as a draw after 40 actions without a capture (men moving
  count too), long before the forty-move rule does. Once its state has ended
  that way the game goes on under our rules but OpenSpiel cannot continue
  it: ``go`` is answered ``bestmove none`` and the driver plays on without it.

Only the standard library and :mod:`protocol` are imported at module level.
The peer's interpreter has no ``doublecorner``: it runs this file as a script,
with this folder on ``sys.path``, so ``protocol`` is imported by that name. The
package's test run and type check import this file as a module of the package
(``protocol`` is then imported relatively) in an interpreter without OpenSpiel
(``pyspiel`` is imported when :func:`main` starts the session).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import itertools
import sys
import time
from typing import TYPE_CHECKING, Any

# Run as a script the file has no package (see the docstring); the type checker
# follows the package's import.
if TYPE_CHECKING or __package__:
    from . import protocol
else:
    import protocol

PROGRAM = "OpenSpiel"
FILES = "abcdefgh"
UCT_C = 2.0
ROLLOUTS = 1
SOLVE = True
MEMORY_MB = 256
# The wall-clock limit stops the search; this cap only guards against a clock
# that fails to (it is far above the few thousand playouts a second it makes).
MAX_SIMULATIONS_PER_SECOND = 100_000
FALLBACK_SIMULATIONS = 16
# A jump may be followed by more decisions of the same move: each decision
# between several jumps takes this share of the time still left.
JUMP_SHARE = 0.6
MARGIN_SECONDS = 0.002
MARGIN_SHARE = 0.02


# -- squares and OpenSpiel's coordinates ---------------------------------------


def coordinate(square: int) -> str:
    """The chess-style name of a square in standard numbering (White at the bottom).

    >>> coordinate(1), coordinate(5), coordinate(29), coordinate(32)
    ('b8', 'a7', 'a1', 'g1')
    """
    row, column = divmod(square - 1, 4)
    return f"{FILES[2 * column + (1 if row % 2 == 0 else 0)]}{8 - row}"


def openspiel_coordinate(square: int) -> str:
    """Where OpenSpiel's board has our ``square``: the board is turned half round.

    Black's 11-15 is OpenSpiel's ``c3d4``, its player 0 moving up the board:

    >>> openspiel_coordinate(11) + openspiel_coordinate(15)
    'c3d4'
    """
    return coordinate(33 - square)


SQUARE_OF = {openspiel_coordinate(square): square for square in range(1, 33)}


def action_squares(text: str) -> tuple[int, int]:
    """Our squares for the two ends of an OpenSpiel action such as ``c3d4``.

    >>> action_squares("c3d4"), action_squares("c3e5")
    ((11, 15), (11, 18))
    """
    return SQUARE_OF[text[:2]], SQUARE_OF[text[2:4]]


def is_jump_text(text: str) -> bool:
    """Whether an OpenSpiel action string is a jump (its files are two apart).

    >>> is_jump_text("c3e5"), is_jump_text("c3d4")
    (True, False)
    """
    return abs(ord(text[0]) - ord(text[2])) == 2


def is_start_position(fen: str) -> bool:
    """Whether ``fen`` is the standard start position, however its squares are listed.

    >>> is_start_position("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1-12")
    True
    >>> is_start_position("W:W21-32:B1-12")
    False

    :raises protocol.ProtocolError: ``fen`` is not a FEN.
    """
    turn, white, black = protocol.parse_fen(fen)
    return (
        turn == "B"
        and white == dict.fromkeys(range(21, 33), False)
        and black == dict.fromkeys(range(1, 13), False)
    )


# -- OpenSpiel ------------------------------------------------------------------


class OpenSpielSession:
    """The game replayed in OpenSpiel and the MCTS bot that answers ``go``."""

    def __init__(self, pyspiel: Any) -> None:
        self._pyspiel = pyspiel
        self._game = pyspiel.load_game("checkers")
        self._state: Any = None
        self._evaluator: Any = None
        self._seed = 0

    def new_game(self) -> None:
        """Forget the position (each search builds its own tree)."""
        self._state = None

    def set_position(self, fen: str, moves: list[str]) -> None:
        """Replay ``moves`` (full-path notation) from the start position ``fen``.

        Moves past the point where OpenSpiel's own draw rule ended its game are
        not checked: OpenSpiel has no legal actions there.

        :raises protocol.ProtocolError: ``fen`` is not the start position or a move is
            not legal.
        """
        self._state = None
        if not is_start_position(fen):
            raise protocol.ProtocolError(
                f"OpenSpiel cannot set up {fen!r}: only the start position "
                f"{protocol.START_FEN} (with moves after it) can be replayed"
            )
        state = self._game.new_initial_state()
        for text in moves:
            if state.is_terminal():
                break
            self._apply_move(state, text)
        self._state = state

    @staticmethod
    def _apply_move(state: Any, text: str) -> None:
        """Apply one full-path move as OpenSpiel actions, one per step or jump."""
        squares = protocol.parse_move_text(text)
        player = state.current_player()
        for index, (start, landing) in enumerate(itertools.pairwise(squares)):
            wanted = openspiel_coordinate(start) + openspiel_coordinate(landing)
            actions = {state.action_to_string(action): action for action in state.legal_actions()}
            if wanted not in actions:
                steps = sorted(action_squares(action) for action in actions)
                sign = "x" if any(map(is_jump_text, actions)) else "-"
                listed = " ".join(f"{a}{sign}{b}" for a, b in steps)
                raise protocol.ProtocolError(
                    f"illegal move {text!r}: no {start}{sign}{landing} among OpenSpiel's "
                    f"steps here ({listed})"
                )
            state.apply_action(actions[wanted])
            last = index == len(squares) - 2
            goes_on = not state.is_terminal() and state.current_player() == player
            if goes_on and last:
                raise protocol.ProtocolError(f"illegal move {text!r}: the jump must go on")
            if not goes_on and not last:
                raise protocol.ProtocolError(
                    f"illegal move {text!r}: the jump ends at {landing}"
                )

    def best_move(self, movetime_ms: int) -> str | None:
        """The bot's move within ``movetime_ms``, or ``None`` when OpenSpiel's game is over.

        :raises protocol.ProtocolError: no position has been set.
        """
        if self._state is None:
            raise protocol.ProtocolError("no position: send 'position' before 'go'")
        if self._state.is_terminal():
            return None
        seconds = protocol.search_seconds(
            movetime_ms, margin_share=MARGIN_SHARE, margin_seconds=MARGIN_SECONDS
        )
        deadline = time.perf_counter() + seconds
        state = self._state.clone()
        player = state.current_player()
        path: list[int] = []
        jumps = False
        while True:
            actions = state.legal_actions()
            jumps = is_jump_text(state.action_to_string(actions[0]))
            if len(actions) == 1:
                action = actions[0]
            else:
                left = deadline - time.perf_counter()
                action = self._search(state, left * JUMP_SHARE if jumps else left)
            start, landing = action_squares(state.action_to_string(action))
            path.extend([start, landing] if not path else [landing])
            state.apply_action(action)
            if state.is_terminal() or state.current_player() != player:
                break
        return protocol.move_text(path, is_capture=jumps)

    def _search(self, state: Any, seconds: float) -> int:
        """One MCTS search of ``state`` lasting about ``seconds``; the chosen action.

        The bot's own ``step`` crashes the process (a segmentation fault) when
        its clock runs out before a second simulation, for the root is only
        expanded then: at 1 ms always, and now and then at 20 ms on a busy
        machine. So the search is run with ``mcts_search`` and the root checked
        here; if it has no children, a search bounded by simulations alone
        decides.
        """
        root = self._bot(max(seconds, 0.001)).mcts_search(state)
        if not root.children:
            print(f"no simulation finished in {seconds:.4f} s; searching "
                  f"{FALLBACK_SIMULATIONS} simulations", file=sys.stderr)
            root = self._bot(None).mcts_search(state)
        if not root.children:  # cannot happen after two simulations, but never crash
            return int(state.legal_actions()[0])
        return int(root.best_child().action)

    def _bot(self, seconds: float | None) -> Any:
        """An MCTS bot stopped after ``seconds``, or after a few simulations if ``None``."""
        pyspiel = self._pyspiel
        self._seed += 1
        # Kept on the session: the bot must not outlive its evaluator.
        self._evaluator = pyspiel.RandomRolloutEvaluator(ROLLOUTS, self._seed)
        if seconds is None:
            simulations, wall_clock = FALLBACK_SIMULATIONS, -1.0  # -1: no clock
        else:
            simulations, wall_clock = max(2, int(seconds * MAX_SIMULATIONS_PER_SECOND)), seconds
        return pyspiel.MCTSBot(
            self._game,
            self._evaluator,
            UCT_C,
            simulations,
            MEMORY_MB,
            SOLVE,
            self._seed,
            False,  # verbose
            pyspiel.ChildSelectionPolicy.UCT,
            wall_clock,
        )


# -- the program ---------------------------------------------------------------


def start_session() -> tuple[OpenSpielSession, str]:
    """Load OpenSpiel; the session and the name that ``dcp`` announces."""
    # Imported by name: the type checker runs where OpenSpiel is absent.
    pyspiel = importlib.import_module("pyspiel")
    version = importlib.metadata.version("open_spiel")
    name = f"{PROGRAM} {version} checkers MCTSBot (uct_c={UCT_C:g}, random rollouts)"
    return OpenSpielSession(pyspiel), name


def main() -> int:
    """Serve the line protocol on stdin and stdout; the exit status."""
    return protocol.run(start_session)


if __name__ == "__main__":
    sys.exit(main())
