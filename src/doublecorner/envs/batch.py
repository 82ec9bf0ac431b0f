"""Many games at once, as arrays, stepped by one compiled call: :class:`BatchedGame`.

Each of the N games takes one action (one hop, the encoding of
:mod:`doublecorner.envs.actions`) per :meth:`BatchedGame.step`, under the same
rules as :class:`~doublecorner.envs.DoubleCornerAEC`; then the masks, the
observations (the planes of :mod:`doublecorner.envs.observation`), the rewards
of both players and the ends of all N are written into arrays the batch owns
and returns. The side to act is ``current_player`` (0 Black, 1 White), so two
policies, or one playing both sides, read it to pick whose action to send.

>>> batch = BatchedGame(4, seed=0)
>>> observations, masks = batch.reset()
>>> observations.shape, masks.shape, batch.current_player.tolist()
((4, 8, 8, 8), (4, 128), [0, 0, 0, 0])
>>> actions = np.full(4, 40)  # 11-15 for Black in every game
>>> observations, masks, rewards, terminated, truncated = batch.step(actions)
>>> batch.current_player.tolist(), batch.fen(0)[:2]
([1, 1, 1, 1], 'W:')

The arrays returned are the batch's own and the next step overwrites them:
copy what you keep. The step itself is one call of
:func:`doublecorner.kernel.batch.step_games` (releasing the GIL), or one per
part with ``threads`` greater than 1.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any, Literal

import numpy as np

from doublecorner.board import Board
from doublecorner.color import Color
from doublecorner.engine import Engine
from doublecorner.engine.levels import Strength
from doublecorner.envs.actions import ACTION_COUNT, IllegalActionError, InvalidActionError
from doublecorner.envs.game import game_outcome
from doublecorner.envs.observation import SHAPE
from doublecorner.errors import EngineError
from doublecorner.fen import format_fen
from doublecorner.kernel import batch as kernel
from doublecorner.outcome import Termination
from doublecorner.position import Position
from doublecorner.warmup import ensure_compiled, load_announced

Start = Literal["start", "deck"] | Sequence[str]
# Moves the generator may write for one position: far more than any game reaches.
MOVE_CAPACITY = 1024
CELLS_TIMES_PLANES = SHAPE[0] * SHAPE[1] * SHAPE[2]
ENGINE_HASH_MB = 16  # per thread, as the single environment's engine opponent
END_REASONS = {kernel.NO_MOVES: Termination.NO_MOVES.value,
               kernel.FORTY_MOVE_RULE: Termination.FORTY_MOVE_RULE.value,
               kernel.THREEFOLD_REPETITION: Termination.THREEFOLD_REPETITION.value,
               kernel.STEP_CAP: "step cap", kernel.ILLEGAL_ACTION: "illegal action"}
_PLAY_AS = {"black": 0, "white": 1, "random": 2}
_OPPONENTS = {"none": kernel.OPPONENT_NONE, "random": kernel.OPPONENT_RANDOM,
              "engine": kernel.OPPONENT_EXTERNAL}


def _start_rows(start: Start) -> tuple[np.ndarray, bool]:
    """The start positions as kernel rows, and whether each reset draws one at random.

    :raises ValueError: a FEN's game is already over, or ``start`` is empty.
    :raises InvalidFenError: a FEN is not valid.
    """
    if isinstance(start, str) and start == "start":
        boards = [Board()]
        drawn = False
    elif isinstance(start, str) and start == "deck":
        # The ACF deck lives with the matches; the data, not their machinery, is used.
        from doublecorner.match.ballots import three_move_deck

        boards = [ballot.board() for ballot in three_move_deck()]
        drawn = True
    elif isinstance(start, str):
        raise ValueError(f"invalid start {start!r}: expected 'start', 'deck' or a sequence "
                         "of FENs")
    else:
        boards = [Board(fen) for fen in start]
        drawn = False
        if not boards:
            raise ValueError("invalid start: the sequence of FENs is empty")
    rows = np.empty((len(boards), kernel.START_FIELDS), dtype=np.int64)
    for index, board in enumerate(boards):
        outcome = game_outcome(board)
        if outcome is not None:
            raise ValueError(f"cannot start from {board.fen()}: the game is over "
                             f"({outcome.termination.value})")
        rows[index] = (*board.bitboards(), int(board.turn))
    return rows, drawn


def _buffer(given: np.ndarray | None, name: str, shape: tuple[int, ...],
            dtype: type[Any]) -> np.ndarray:
    """``given``, the caller's array for an output, if it fits; else a new array of zeros.

    :raises ValueError: ``given`` has another shape or dtype, or is not a writeable
        C-contiguous array.
    """
    if given is None:
        return np.zeros(shape, dtype=dtype)
    if (not isinstance(given, np.ndarray) or given.shape != shape or given.dtype != dtype
            or not given.flags.c_contiguous or not given.flags.writeable):
        found = (f"{given.shape} {given.dtype}" if isinstance(given, np.ndarray)
                 else type(given).__name__)
        raise ValueError(f"invalid {name} buffer ({found}): expected a writeable C-contiguous "
                         f"array of shape {shape} and dtype {np.dtype(dtype)}")
    return given


def _check_replies(starts: np.ndarray, play_as: int) -> None:
    """Against an opponent: its first move from a start must not end the game.

    :raises ValueError: one of its moves from a start leaves the agent no move.
    """
    for black, white, kings, turn in starts.tolist():
        if play_as == turn:
            continue
        board = Board.from_position(Position(black, white, kings, turn))
        for move in board.legal_moves:
            board.push(move)
            over = game_outcome(board) is not None
            board.pop()
            if over:
                raise ValueError(f"cannot start from {board.fen()}: the opponent's first "
                                 f"move {move} can end the game")


@functools.cache
def ensure_batch_compiled() -> None:
    """Compile or load the batch kernel once per process, saying so if it takes a while."""
    ensure_compiled()

    def load() -> None:
        # Every entry point on one game: numba compiles (or loads) each on first call.
        state = np.zeros((1, kernel.STATE_FIELDS), dtype=np.int64)
        state[:, kernel.RNG] = 1
        state[:, kernel.PLAY_AS] = -1
        history = np.zeros((1, kernel.HISTORY_PLIES, 2), dtype=np.uint32)
        starts = np.array([[*Board().bitboards(), 0]], dtype=np.int64)
        moves = np.empty((MOVE_CAPACITY, 4), dtype=np.int64)
        masks = np.zeros((1, ACTION_COUNT), dtype=np.int8)
        observations = np.zeros((1, CELLS_TIMES_PLANES), dtype=np.float32)
        rewards = np.zeros((1, 2), dtype=np.float32)
        flags = np.zeros(1, dtype=bool), np.zeros(1, dtype=bool), np.zeros(1, dtype=np.int8)
        actions = np.zeros(1, dtype=np.int64)
        kernel.reset_games(state, history, starts, 0, 0, 0, moves, masks, observations)
        kernel.random_actions(state, masks, actions)
        kernel.step_games(state, history, actions, starts, 0, 0, 0, 0, 0, 0, moves, masks,
                          observations, rewards, *flags)
        kernel.reply_games(state, history, actions, starts, 0, 0, 0, 0, moves, masks,
                           observations, rewards, *flags)

    load_announced("the batched environments", load)


class BatchedGame:
    """``num_games`` games of English draughts held as arrays and stepped together.

    ``start`` is where each game starts and starts again: ``"start"`` (the
    starting position), ``"deck"`` (an opening of the ACF three-move deck
    drawn from the game's generator at each reset) or a sequence of FENs (game
    ``i`` starts from ``fens[i % len(fens)]``). ``max_steps`` caps the actions
    of an episode (both sides' hops; a truncation, as in the AEC environment).

    A game that ends is started again automatically. With
    ``autoreset="same-step"`` (pgx's way) the step that ends it returns the
    rewards and flags of the ended game with the mask and observation of the
    new one; with ``"next-step"`` (Gymnasium's default) it returns the final
    observation and an all-zero mask, and the next step starts the new game
    (its action ignored, rewards 0, flags false).

    An action whose mask is 0 raises :class:`IllegalActionError` and changes
    nothing (``illegal_action="raise"``), or loses that game (``"lose"``: reward
    -1 to the side that played it, +1 to the other, terminated).

    ``opponent="random"`` makes each game one agent's, playing ``play_as``
    (``"black"``, ``"white"`` or ``"random"``, drawn at each reset) against
    uniformly random whole moves made inside the agent's step: the
    observations are then the agent's, and so are the actions (this is the
    Gymnasium vector environment's batch). ``opponent="engine"`` replies with
    the engine at ``level`` (1-10, fixed depths): after the kernel's step, the
    games awaiting a reply are searched one after the other (one engine per
    thread, its table shared by the games of its part) and the replies made
    in one more kernel call.

    ``observations``, ``action_masks``, ``rewards``, ``terminated`` and
    ``truncated`` may be the caller's own arrays (of the shapes and dtypes of
    the attributes of the same names, C-contiguous): the batch then writes its
    outputs there, and keeps writing there at every step.

    ``threads`` > 1 steps that many parts of the batch in parallel threads.
    ``seed`` seeds every game's generator (its starts, the opponent's moves).

    :raises ValueError: an option is not one of its values, or a start position is over
        (or, against an opponent, can end with its first move).
    :raises EngineError: ``level`` is not 1-10.
    :raises InvalidFenError: a FEN of ``start`` is not valid.
    """

    def __init__(self, num_games: int, *, start: Start = "start", max_steps: int | None = None,
                 autoreset: Literal["same-step", "next-step"] = "same-step",
                 illegal_action: Literal["raise", "lose"] = "raise",
                 opponent: Literal["none", "random", "engine"] = "none", level: int = 1,
                 play_as: Literal["black", "white", "random"] = "black",
                 seed: int | None = None, threads: int = 1,
                 observations: np.ndarray | None = None,
                 action_masks: np.ndarray | None = None, rewards: np.ndarray | None = None,
                 terminated: np.ndarray | None = None,
                 truncated: np.ndarray | None = None) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"invalid num_games {num_games!r}: expected an int of at least 1")
        if max_steps is not None and (isinstance(max_steps, bool)
                                      or not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"invalid max_steps {max_steps!r}: expected None or an int of at "
                             "least 1")
        if autoreset not in ("same-step", "next-step"):
            raise ValueError(f"invalid autoreset {autoreset!r}: expected 'same-step' or "
                             "'next-step'")
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"invalid illegal_action {illegal_action!r}: expected 'raise' or "
                             "'lose'")
        if opponent not in _OPPONENTS:
            raise ValueError(f"invalid opponent {opponent!r}: expected 'none', 'random' or "
                             "'engine'")
        if play_as not in _PLAY_AS:
            raise ValueError(f"invalid play_as {play_as!r}: expected 'black', 'white' or "
                             "'random'")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"invalid threads {threads!r}: expected an int of at least 1")
        ensure_batch_compiled()
        self.num_games = num_games
        self._starts, self._start_random = _start_rows(start)
        self._opponent = _OPPONENTS[opponent]
        if self._opponent != kernel.OPPONENT_NONE:
            _check_replies(self._starts, _PLAY_AS[play_as])
        self._strength = Strength.from_level(level) if opponent == "engine" else None
        self._max_steps = max_steps or 0
        self._autoreset = (kernel.AUTORESET_SAME_STEP if autoreset == "same-step"
                           else kernel.AUTORESET_NEXT_STEP)
        self._illegal = (kernel.ILLEGAL_REFUSE if illegal_action == "raise"
                         else kernel.ILLEGAL_LOSES)
        self._state = np.zeros((num_games, kernel.STATE_FIELDS), dtype=np.int64)
        self._state[:, kernel.PLAY_AS] = (_PLAY_AS[play_as]
                                          if self._opponent != kernel.OPPONENT_NONE else -1)
        self._history = np.zeros((num_games, kernel.HISTORY_PLIES, 2), dtype=np.uint32)
        self.observations = _buffer(observations, "observations", (num_games, *SHAPE),
                                    np.float32)
        """Each game's planes, as its side to act (or the agent) sees them."""
        self.action_masks = _buffer(action_masks, "action_masks", (num_games, ACTION_COUNT),
                                    np.int8)
        """Each game's legal actions, 0/1 (all 0 in a game that has ended, next-step)."""
        self.rewards = _buffer(rewards, "rewards", (num_games, 2), np.float32)
        """This step's reward of each game's Black (column 0) and White (column 1)."""
        self.terminated = _buffer(terminated, "terminated", (num_games,), np.bool_)
        """Games won or lost this step."""
        self.truncated = _buffer(truncated, "truncated", (num_games,), np.bool_)
        """Games drawn (threefold repetition, forty-move rule) or capped this step."""
        self.ends = np.zeros(num_games, dtype=np.int8)
        """Why each game ended this step: a code of ``doublecorner.kernel.batch``, 0 if not."""
        self._actions = np.zeros(num_games, dtype=np.int64)
        self._replies = np.zeros(num_games, dtype=np.int64)
        self._random = np.zeros(num_games, dtype=np.int64)
        self._parts = self._split(threads)
        # One engine per part: an engine searches one position at a time.
        self._engines = ({low: Engine(hash_mb=ENGINE_HASH_MB) for low, _ in self._parts}
                         if self._strength is not None else {})
        self._pool = ThreadPoolExecutor(threads - 1) if threads > 1 else None
        self.seed(seed)
        self.reset()

    def _split(self, threads: int) -> list[tuple[int, tuple[np.ndarray, ...]]]:
        """Per part of the batch: its first game and views of its arrays (and a scratch)."""
        flat = self.observations.reshape(self.num_games, -1)
        bounds = np.linspace(0, self.num_games, min(threads, self.num_games) + 1).astype(int)
        return [(int(low), (self._state[low:high], self._history[low:high],
                            self._actions[low:high], self._replies[low:high],
                            np.empty((MOVE_CAPACITY, 4), dtype=np.int64),
                            self.action_masks[low:high], flat[low:high],
                            self.rewards[low:high], self.terminated[low:high],
                            self.truncated[low:high], self.ends[low:high]))
                for low, high in pairwise(bounds)]

    def seed(self, seed: int | None) -> None:
        """Seed every game's generator (``None``: from the operating system's entropy)."""
        words = np.random.SeedSequence(seed).generate_state(self.num_games, dtype=np.uint32)
        self._state[:, kernel.RNG] = np.where(words == 0, 1, words)

    def reset(self, *, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Start every game again; their observations and action masks."""
        if seed is not None:
            self.seed(seed)
        self.rewards[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        self.ends[:] = 0
        self._run(self._reset_part)
        if self._engines:
            self._run(self._engine_replies)
        return self.observations, self.action_masks

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          np.ndarray]:
        """Play one action (a hop) in every game: ``(observations, action_masks, rewards,
        terminated, truncated)``, the batch's own arrays.

        :raises InvalidActionError: ``actions`` are not ``num_games`` integers 0-127.
        :raises IllegalActionError: an action is not legal and ``illegal_action`` is
            ``"raise"``; nothing has changed.
        """
        values = np.asarray(actions)
        if values.shape != (self.num_games,) or values.dtype.kind not in "iu":
            raise InvalidActionError(
                f"invalid actions of shape {values.shape} and dtype {values.dtype}: expected "
                f"{self.num_games} integers 0-127")
        if values.min() < 0 or values.max() >= ACTION_COUNT:
            raise InvalidActionError(f"invalid actions: {values.min()}..{values.max()} "
                                     "goes outside 0-127")
        self._actions[:] = values
        if self._illegal == kernel.ILLEGAL_REFUSE and self._pool is not None:
            # Checked over the whole batch first, so that a refusal changes no part.
            # (With one part the kernel checks before it changes anything.)
            legal = self.action_masks[np.arange(self.num_games), self._actions]
            ended = self._state[:, kernel.ENDED] != 0
            bad = np.flatnonzero((legal == 0) & ~ended)
            if bad.size:
                raise self._illegal_action_error(int(bad[0]))
        refused = self._run(self._step_part)
        if refused >= 0:
            raise self._illegal_action_error(refused)
        if self._engines:
            self._run(self._engine_replies)
        return (self.observations, self.action_masks, self.rewards, self.terminated,
                self.truncated)

    def _illegal_action_error(self, game: int) -> IllegalActionError:
        return IllegalActionError(
            f"illegal action {int(self._actions[game])} in game {game} ({self.fen(game)}); "
            f"its legal actions: {np.flatnonzero(self.action_masks[game]).tolist()}")

    def _reset_part(self, low: int, arrays: tuple[np.ndarray, ...]) -> int:
        state, history, _, _, moves, masks, observations, *_ = arrays
        kernel.reset_games(state, history, self._starts, int(self._start_random), low,
                           self._opponent, moves, masks, observations)
        return -1

    def _step_part(self, low: int, arrays: tuple[np.ndarray, ...]) -> int:
        """The kernel's step of one part: -1, or the index in the batch of a refused game."""
        state, history, actions, _, moves, masks, observations, rewards, terminated, \
            truncated, ends = arrays
        refused: int = kernel.step_games(
            state, history, actions, self._starts, int(self._start_random), low,
            self._max_steps, self._opponent, self._autoreset, self._illegal, moves, masks,
            observations, rewards, terminated, truncated, ends)
        return refused + low if refused >= 0 else -1

    def _engine_replies(self, low: int, arrays: tuple[np.ndarray, ...]) -> int:
        """The engine replies in every game of a part where it is to move (-1)."""
        state, history, _, replies, moves, masks, observations, rewards, terminated, \
            truncated, ends = arrays
        engine, strength = self._engines[low], self._strength
        assert strength is not None  # there are engines only with a strength
        while True:  # a game that starts again with the engine to move awaits it again
            waiting = np.flatnonzero(state[:, kernel.OPPONENT_MOVE] == kernel.AWAITING)
            if waiting.size == 0:
                return -1
            for game in waiting.tolist():
                result = engine.search(self.position(low + game), strength.limit,
                                       history=self._history_positions(low + game),
                                       halfmove_clock=int(state[game, kernel.CLOCK]))
                if result.move is None:  # cannot happen: the kernel checked the game goes on
                    raise EngineError(f"the engine found no move in {self.fen(low + game)}")
                replies[game] = result.move._key
            refused = kernel.reply_games(state, history, replies, self._starts,
                                         int(self._start_random), low, self._max_steps,
                                         self._autoreset, moves, masks, observations, rewards,
                                         terminated, truncated, ends)
            if refused >= 0:  # pragma: no cover - the engine plays legal moves
                raise EngineError(f"the engine's move is not legal in {self.fen(low + refused)}")

    def _history_positions(self, game: int) -> list[Position]:
        """The positions since the last man move or capture, before the game's position.

        Only these can recur; the men and the pieces are those of the position.
        """
        black, white, kings, turn, clock = self._state[game, :5].tolist()
        black_men, white_men = black & ~kings, white & ~kings
        return [Position(black_men | black_kings, white_men | white_kings,
                         black_kings | white_kings, Color(turn ^ ((clock - ply) & 1)))
                for ply, (black_kings, white_kings) in
                enumerate(self._history[game, :clock].tolist())]

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action of each game (0 where none), from the games'
        generators; the batch's own array, overwritten by the next call."""
        self._run(self._random_part)
        return self._random

    def _random_part(self, low: int, arrays: tuple[np.ndarray, ...]) -> int:
        kernel.random_actions(arrays[0], arrays[5], self._random[low:low + len(arrays[0])])
        return -1

    def _run(self, work: Callable[[int, tuple[np.ndarray, ...]], int]) -> int:
        """``work`` on every part (in the threads, if any); the first refused game, or -1."""
        low, arrays = self._parts[0]
        if self._pool is None or len(self._parts) == 1:
            return work(low, arrays)
        # The calling thread steps the first part itself: one hand-over fewer per step.
        futures = [self._pool.submit(work, *part) for part in self._parts[1:]]
        results = [work(low, arrays)] + [future.result() for future in futures]
        return max(results)

    def close(self) -> None:
        """Stop the threads, if any."""
        if self._pool is not None:
            self._pool.shutdown()

    # -- reading the games ----------------------------------------------------

    @property
    def current_player(self) -> np.ndarray:
        """The side to act in each game: 0 Black, 1 White (a view; it changes with the games)."""
        return self._state[:, kernel.TURN]

    @property
    def positions(self) -> np.ndarray:
        """Each game's ``(black, white, kings, turn)`` of its completed moves (a view)."""
        return self._state[:, :4]

    @property
    def agent_color(self) -> np.ndarray:
        """Against an opponent, each game's agent side (0 Black, 1 White); -1 in self-play."""
        return self._state[:, kernel.AGENT]

    @property
    def is_jumping(self) -> np.ndarray:
        """Whether each game is in the middle of a multi-jump (the same side acts again)."""
        return self._state[:, kernel.DEPTH] > 0

    @property
    def halfmove_clocks(self) -> np.ndarray:
        """Each game's plies since the last man move or capture (a view)."""
        return self._state[:, kernel.CLOCK]

    @property
    def episode_steps(self) -> np.ndarray:
        """The actions taken in each game's episode so far (a view)."""
        return self._state[:, kernel.STEPS]

    @property
    def last_moves(self) -> np.ndarray:
        """Route keys of the moves this step's actions completed, -1 where none (a view).

        ``doublecorner.kernel.decode_path`` turns a key into the move's squares.
        """
        return self._state[:, kernel.LAST_MOVE]

    @property
    def opponent_moves(self) -> np.ndarray:
        """Route keys of the random opponent's replies this step, -1 where none (a view)."""
        return self._state[:, kernel.OPPONENT_MOVE]

    def position(self, game: int) -> Position:
        """The position of ``game``'s completed moves (a jump in progress not made)."""
        black, white, kings, turn = self._state[game, :4].tolist()
        return Position(black, white, kings, Color(turn))

    def board(self, game: int) -> Board:
        """A :class:`Board` at :meth:`position` (without the game's history)."""
        return Board.from_position(self.position(game))

    def fen(self, game: int) -> str:
        """The FEN of :meth:`position`."""
        black, white, kings, turn = self._state[game, :4].tolist()
        return format_fen(black, white, kings, turn)

    def end_reason(self, game: int) -> str | None:
        """Why ``game`` ended this step, in words (``None`` if it did not)."""
        return END_REASONS.get(int(self.ends[game]))

    @property
    def nbytes(self) -> int:
        """The bytes the batch's arrays take (its games and its outputs)."""
        arrays = (self._state, self._history, self.observations, self.action_masks,
                  self.rewards, self.terminated, self.truncated, self.ends, self._actions)
        return sum(array.nbytes for array in arrays)
