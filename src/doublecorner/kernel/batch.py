"""Many games stepped at once: one hop per game, then masks, observations and ends.

The batched environments (:mod:`doublecorner.envs.batch`) hold N games as
arrays and advance them all with one call of :func:`step_games`. Each game is
a row of ``state`` (the columns below), with its repetition history in
``history`` and its outputs in rows of ``masks``, ``observations``,
``rewards``, ``terminated``, ``truncated`` and ``ends``. Nothing here builds
an object per game or per step.

The rules are :mod:`doublecorner.kernel.movegen`'s: a hop (a step, or one
jump of a capture) is legal when it is the next hop of a legal move whose
route begins with the hops made so far, exactly as ``ActionGame`` plays on a
``Board``. The move's route is kept as a prefix of the generator's route key
(origin, directions taken), so the moves of the position are generated again
at each hop instead of being stored per game: multi-jumps are rare, and a
generation costs less than a row of observation planes.

The action encoding is the environments' (see ``envs/actions.py``): action
``4 * q + d`` moves the piece on frame index ``q`` in frame direction ``d``.
Black's frame is the kernel's own (directions 0 = SW ... 3 = NE are forward
a-side ... backward h-side); White's is the board turned half a turn, which
maps index ``q`` to ``31 - q`` and direction ``d`` to ``3 - d``.

A position is repeated only within the plies since the last man move or
capture, during which the men stand still and no piece is taken; so the
history row keeps, per ply of that stretch, only where each side's kings
stood, and equal kings mean an equal position. The forty-move rule ends the
game at 80 such plies, which bounds the row.

The functions take arrays and never allocate (the caller passes ``moves``, a
scratch buffer for the generator), so they run without numba's reference
counting, and they release the GIL: a thread per part of the batch steps the
parts in parallel.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_no_alloc
from doublecorner.kernel.bits import LANDING, NEIGHBOUR, square_row_file
from doublecorner.kernel.movegen import generate_into
from doublecorner.kernel.scores import FORTY_MOVE_PLIES

# Columns of ``state``, one row per game.
BLACK = 0
WHITE = 1
KINGS = 2
TURN = 3  # the side to act: 0 Black, 1 White
CLOCK = 4  # plies since the last man move or capture
ORIGIN = 5  # the square index the move in progress started from (-1: none)
HERE = 6  # the square index it has reached
DEPTH = 7  # the jumps made so far by the move in progress (0: none)
ROUTE = 8  # their directions, two bits each, as in the generator's route keys
CAPTURED = 9  # the pieces they have jumped (still on the board until the move ends)
STEPS = 10  # actions taken in the episode (the opponent's moves not counted)
ENDED = 11  # 1: over, reset at the next step (next-step autoreset)
RNG = 12  # the game's random state (xorshift32, never 0)
AGENT = 13  # the agent's colour against a built-in opponent; -1 in self-play
PLAY_AS = 14  # 0 Black, 1 White, 2 drawn at each reset; -1 in self-play
LAST_MOVE = 15  # route key of the last move completed by an action (-1: none this step)
OPPONENT_MOVE = 16  # route key of the opponent's reply this step (-1: none, AWAITING)
STATE_FIELDS = 17

HISTORY_PLIES = FORTY_MOVE_PLIES
ACTION_COUNT = 128
PLANES = 8
CELLS = 64
START_FIELDS = 4  # rows of ``starts``: black, white, kings, turn

# Values of ``ends``: why a game ended this step (0: it did not).
GOES_ON = 0
NO_MOVES = 1  # the side to move has no legal move and loses
FORTY_MOVE_RULE = 2
THREEFOLD_REPETITION = 3
STEP_CAP = 4
ILLEGAL_ACTION = 5  # the actor played an illegal action and loses (illegal mode "lose")

# Modes.
OPPONENT_NONE = 0
OPPONENT_RANDOM = 1
OPPONENT_EXTERNAL = 2  # the caller supplies the replies (:func:`reply_games`)
AWAITING = -2  # OPPONENT_MOVE of a game whose external opponent is to reply
AUTORESET_SAME_STEP = 0
AUTORESET_NEXT_STEP = 1
ILLEGAL_REFUSE = 0
ILLEGAL_LOSES = 1

_MASK32 = 0xFFFFFFFF


def _cells() -> np.ndarray:
    """The observation cell (8 * row + file) of each square index, in Black's frame."""
    cells = np.empty(32, dtype=np.int64)
    for index in range(32):
        row, file = square_row_file(index)
        cells[index] = 8 * row + file
    return cells


CELL = _cells()


@kernel_no_alloc
def next_random(state: np.ndarray, game: int, bound: int) -> int:
    """A random integer in ``[0, bound)`` from the game's generator, which it advances.

    xorshift32 with a multiplicative output, in arithmetic that stays below
    2**63: the same numbers compiled and as plain Python.
    """
    x = state[game, RNG]
    x ^= (x << 13) & _MASK32
    x ^= x >> 17
    x ^= (x << 5) & _MASK32
    state[game, RNG] = x
    return int((((x * 0x2545F491) & _MASK32) * bound) >> 32)


@kernel_no_alloc
def _action(index: int, direction: int, turn: int) -> int:
    """The action that moves the piece on square ``index`` in kernel ``direction``."""
    if turn == 0:
        return 4 * index + direction
    return 4 * (31 - index) + 3 - direction


@kernel_no_alloc
def _step_direction(origin: int, target: int) -> int:
    for direction in range(4):
        if NEIGHBOUR[direction * 32 + origin] == target:
            return direction
    return -1


@kernel_no_alloc
def _generate(state: np.ndarray, game: int, moves: np.ndarray) -> int:
    """The legal moves of the game's position (the completed moves) into ``moves``."""
    return generate_into(state[game, BLACK], state[game, WHITE], state[game, KINGS],
                         state[game, TURN], moves)


@kernel_no_alloc
def _follows(state: np.ndarray, game: int, key: int) -> bool:
    """Whether the move ``key`` begins with the hops of the move in progress."""
    depth = state[game, DEPTH]
    if depth == 0:
        return True
    return bool((key & 31) == state[game, ORIGIN] and ((key >> 5) & 15) > depth
                and ((key >> 9) & ((1 << (2 * depth)) - 1)) == state[game, ROUTE])


@kernel_no_alloc
def _next_hop(state: np.ndarray, game: int, key: int) -> tuple[int, int]:
    """(square index, kernel direction) of the next hop of the move ``key``."""
    depth = state[game, DEPTH]
    if depth > 0:
        return state[game, HERE], (key >> (9 + 2 * depth)) & 3
    if (key >> 5) & 15 == 0:
        return key & 31, _step_direction(key & 31, (key >> 9) & 31)
    return key & 31, (key >> 9) & 3


@kernel_no_alloc
def _complete(state: np.ndarray, history: np.ndarray, game: int, moves: np.ndarray,
              row: int) -> None:
    """Make the generated move ``row``: the board, the turn, the clock and the history."""
    key = moves[row, 3]
    black = state[game, BLACK]
    white = state[game, WHITE]
    kings = state[game, KINGS]
    clock = state[game, CLOCK]
    # Only a king's step is reversible: a man's move or a capture restarts the count.
    if (key >> 5) & 15 == 0 and (kings >> (key & 31)) & 1:
        history[game, clock, 0] = black & kings
        history[game, clock, 1] = white & kings
        state[game, CLOCK] = clock + 1
    else:
        state[game, CLOCK] = 0
    state[game, BLACK] = moves[row, 0]
    state[game, WHITE] = moves[row, 1]
    state[game, KINGS] = moves[row, 2]
    state[game, TURN] ^= 1
    state[game, ORIGIN] = -1
    state[game, HERE] = -1
    state[game, DEPTH] = 0
    state[game, ROUTE] = 0
    state[game, CAPTURED] = 0


@kernel_no_alloc
def occurrences(state: np.ndarray, history: np.ndarray, game: int) -> int:
    """How often the position has occurred with the same side to move (1-3, as Board)."""
    clock = state[game, CLOCK]
    kings = state[game, KINGS]
    black_kings = state[game, BLACK] & kings
    white_kings = state[game, WHITE] & kings
    seen = 1
    ply = clock - 2
    while ply >= 0:
        if history[game, ply, 0] == black_kings and history[game, ply, 1] == white_kings:
            seen += 1
        ply -= 2
    return min(seen, 3)


@kernel_no_alloc
def _outcome(state: np.ndarray, history: np.ndarray, game: int, legal: int) -> int:
    """Why the game is over after a completed move (``legal`` moves follow), or GOES_ON."""
    if legal == 0:
        return NO_MOVES
    if state[game, CLOCK] >= FORTY_MOVE_PLIES:
        return FORTY_MOVE_RULE
    if state[game, CLOCK] >= 4 and occurrences(state, history, game) >= 3:
        return THREEFOLD_REPETITION
    return GOES_ON


@kernel_no_alloc
def _play(state: np.ndarray, history: np.ndarray, game: int, action: int, moves: np.ndarray,
          legal: int) -> int:
    """Make the hop ``action`` names; 1 if it completes a move, 0 if the jump goes on, -1 if
    it is not legal (nothing changes)."""
    turn = state[game, TURN]
    if turn == 0:
        square, direction = action >> 2, action & 3
    else:
        square, direction = 31 - (action >> 2), 3 - (action & 3)
    depth = state[game, DEPTH]
    for row in range(legal):
        key = moves[row, 3]
        if not _follows(state, game, key):
            continue
        hop_square, hop_direction = _next_hop(state, game, key)
        if hop_square != square or hop_direction != direction:
            continue
        # Routes are prefix-free: if this one ends here, no other goes on from here.
        if (key >> 5) & 15 <= depth + 1:
            _complete(state, history, game, moves, row)
            state[game, LAST_MOVE] = key
            return 1
        if depth == 0:
            state[game, ORIGIN] = square
        state[game, HERE] = LANDING[direction * 32 + square]
        state[game, ROUTE] |= direction << (2 * depth)
        state[game, CAPTURED] |= 1 << NEIGHBOUR[direction * 32 + square]
        state[game, DEPTH] = depth + 1
        return 0
    return -1


@kernel_no_alloc
def _opponent_reply(state: np.ndarray, history: np.ndarray, game: int, moves: np.ndarray,
                    legal: int) -> int:
    """The random opponent makes a whole move; the number of legal moves that follow."""
    row = next_random(state, game, legal)
    state[game, OPPONENT_MOVE] = moves[row, 3]
    _complete(state, history, game, moves, row)
    return _generate(state, game, moves)


@kernel_no_alloc
def _reset(state: np.ndarray, game: int, starts: np.ndarray, start_random: int, offset: int,
           opponent: int, history: np.ndarray, moves: np.ndarray) -> int:
    """Start the game again from one of ``starts``; the number of legal moves.

    The start is drawn from the game's generator when ``start_random``, else it
    is the game's own (its index in the whole batch, cycling through
    ``starts``). Against an opponent that has the first move, it is made here.
    """
    count = starts.shape[0]
    choice = next_random(state, game, count) if start_random else (offset + game) % count
    state[game, BLACK] = starts[choice, 0]
    state[game, WHITE] = starts[choice, 1]
    state[game, KINGS] = starts[choice, 2]
    state[game, TURN] = starts[choice, 3]
    state[game, CLOCK] = 0
    state[game, ORIGIN] = -1
    state[game, HERE] = -1
    state[game, DEPTH] = 0
    state[game, ROUTE] = 0
    state[game, CAPTURED] = 0
    state[game, STEPS] = 0
    state[game, ENDED] = 0
    play_as = state[game, PLAY_AS]
    state[game, AGENT] = next_random(state, game, 2) if play_as == 2 else play_as
    legal = _generate(state, game, moves)
    if opponent != OPPONENT_NONE and state[game, AGENT] != state[game, TURN]:
        if opponent == OPPONENT_RANDOM:
            legal = _opponent_reply(state, history, game, moves, legal)
        else:
            state[game, OPPONENT_MOVE] = AWAITING
    return legal


@kernel_no_alloc
def _write_mask(state: np.ndarray, game: int, moves: np.ndarray, legal: int,
                masks: np.ndarray) -> None:
    for action in range(ACTION_COUNT):
        masks[game, action] = 0
    if state[game, ENDED]:
        return
    turn = state[game, TURN]
    for row in range(legal):
        key = moves[row, 3]
        if _follows(state, game, key):
            square, direction = _next_hop(state, game, key)
            masks[game, _action(square, direction, turn)] = 1


@kernel_no_alloc
def write_observation(state: np.ndarray, history: np.ndarray, game: int,
                      observations: np.ndarray) -> None:
    """The game's planes, flat (``64 * 8``), as the agent (or else the side to act) sees it."""
    black = state[game, BLACK]
    white = state[game, WHITE]
    kings = state[game, KINGS]
    here_bit = 0
    jumped = 0
    if state[game, DEPTH] > 0:
        # ^: a king whose jump has come back round to its start has not moved.
        moved = (1 << state[game, ORIGIN]) ^ (1 << state[game, HERE])
        if (kings >> state[game, ORIGIN]) & 1:
            kings ^= moved
        if state[game, TURN] == 0:
            black ^= moved
        else:
            white ^= moved
        jumped = state[game, CAPTURED]
        here_bit = 1 << state[game, HERE]
        black &= ~jumped
        white &= ~jumped
        kings &= ~jumped
    observer = state[game, AGENT]
    if observer < 0:
        observer = state[game, TURN]
    own, other = (black, white) if observer == 0 else (white, black)
    clock = state[game, CLOCK]
    forty = min(clock, FORTY_MOVE_PLIES) / FORTY_MOVE_PLIES
    repeated = 0.0
    if clock > 0:
        repeated = (occurrences(state, history, game) - 1) / 2
    for cell in range(CELLS):
        base = cell * PLANES
        for plane in range(6):
            observations[game, base + plane] = 0.0
        observations[game, base + 6] = forty
        observations[game, base + 7] = repeated
    for index in range(32):
        bit = 1 << index
        if (own | other | jumped) & bit == 0:
            continue
        base = PLANES * (CELL[index] if observer == 0 else CELL[31 - index])
        king = 1 if kings & bit else 0
        if own & bit:
            observations[game, base + king] = 1.0
        elif other & bit:
            observations[game, base + 2 + king] = 1.0
        if here_bit & bit:
            observations[game, base + 4] = 1.0
        if jumped & bit:
            observations[game, base + 5] = 1.0


@kernel_no_alloc
def _end(state: np.ndarray, game: int, end: int, rewards: np.ndarray, terminated: np.ndarray,
         truncated: np.ndarray, ends: np.ndarray) -> None:
    """Record why the game ended and the rewards: +1 to the winner, -1 to the loser."""
    ends[game] = end
    if end in (NO_MOVES, ILLEGAL_ACTION):
        loser = state[game, TURN]  # the side to move, or the one that played illegally
        rewards[game, loser] = -1.0
        rewards[game, 1 - loser] = 1.0
        terminated[game] = True
    else:
        truncated[game] = True


@kernel_no_alloc
def reset_games(state: np.ndarray, history: np.ndarray, starts: np.ndarray, start_random: int,
                offset: int, opponent: int, moves: np.ndarray, masks: np.ndarray,
                observations: np.ndarray) -> None:
    """Start every game of the batch again and write its mask and observation."""
    for game in range(state.shape[0]):
        state[game, LAST_MOVE] = -1
        state[game, OPPONENT_MOVE] = -1
        legal = _reset(state, game, starts, start_random, offset, opponent, history, moves)
        _write_mask(state, game, moves, legal, masks)
        write_observation(state, history, game, observations)


@kernel_no_alloc
def step_games(state: np.ndarray, history: np.ndarray, actions: np.ndarray,
               starts: np.ndarray, start_random: int, offset: int, max_steps: int,
               opponent: int, autoreset: int, illegal: int, moves: np.ndarray,
               masks: np.ndarray, observations: np.ndarray, rewards: np.ndarray,
               terminated: np.ndarray, truncated: np.ndarray, ends: np.ndarray) -> int:
    """Play one action in every game (one hop each) and write every output.

    A game that ended at the previous step (next-step autoreset) starts again
    instead, its action ignored. A game that ends now has its rewards, flags
    and ``ends`` set; with same-step autoreset it starts again at once and its
    mask and observation are the new game's, else they are the final ones
    (the mask all zeros). Against the random opponent, its reply is made as
    soon as the agent's move is complete.

    Returns -1, or with ``illegal`` ILLEGAL_REFUSE the index of the first
    game whose action is not legal, before anything has changed. Actions must
    be 0-127 (the caller checks).
    """
    count = state.shape[0]
    if illegal == ILLEGAL_REFUSE:
        for game in range(count):
            if state[game, ENDED] == 0 and masks[game, actions[game]] == 0:
                return game
    for game in range(count):
        rewards[game, 0] = 0.0
        rewards[game, 1] = 0.0
        terminated[game] = False
        truncated[game] = False
        ends[game] = GOES_ON
        state[game, LAST_MOVE] = -1
        state[game, OPPONENT_MOVE] = -1
        if state[game, ENDED]:
            legal = _reset(state, game, starts, start_random, offset, opponent, history, moves)
        else:
            action = actions[game]
            end = GOES_ON
            legal = -1
            if masks[game, action] == 0:
                end = ILLEGAL_ACTION
            else:
                legal = _generate(state, game, moves)
                completed = _play(state, history, game, action, moves, legal)
                state[game, STEPS] += 1
                if completed == 1:
                    legal = _generate(state, game, moves)
                    end = _outcome(state, history, game, legal)
                    if end == GOES_ON and opponent == OPPONENT_RANDOM:
                        legal = _opponent_reply(state, history, game, moves, legal)
                        end = _outcome(state, history, game, legal)
                    elif end == GOES_ON and opponent == OPPONENT_EXTERNAL:
                        state[game, OPPONENT_MOVE] = AWAITING
                if (end == GOES_ON and max_steps > 0 and state[game, STEPS] >= max_steps
                        and state[game, OPPONENT_MOVE] != AWAITING):
                    end = STEP_CAP
            if end != GOES_ON:
                _end(state, game, end, rewards, terminated, truncated, ends)
                if autoreset == AUTORESET_SAME_STEP:
                    legal = _reset(state, game, starts, start_random, offset, opponent,
                                   history, moves)
                else:
                    state[game, ENDED] = 1
            if legal < 0:
                legal = _generate(state, game, moves)
        _write_mask(state, game, moves, legal, masks)
        write_observation(state, history, game, observations)
    return -1


@kernel_no_alloc
def reply_games(state: np.ndarray, history: np.ndarray, replies: np.ndarray,
                starts: np.ndarray, start_random: int, offset: int, max_steps: int,
                autoreset: int, moves: np.ndarray, masks: np.ndarray,
                observations: np.ndarray, rewards: np.ndarray, terminated: np.ndarray,
                truncated: np.ndarray, ends: np.ndarray) -> int:
    """Make the external opponent's replies (route keys) in the games AWAITING one.

    The second half of :func:`step_games` against an opponent outside the
    kernel (the engine): the reply is made, the game ends or goes on as there,
    and the outputs are written. A reply to a game's first move (just reset)
    cannot end it (the caller checks its starts). Games that start again here
    and have the opponent to move are AWAITING again. Returns -1, or the index
    of the first game whose reply is not a legal move (that game unchanged).
    """
    for game in range(state.shape[0]):
        if state[game, OPPONENT_MOVE] != AWAITING:
            continue
        legal = _generate(state, game, moves)
        chosen = -1
        for row in range(legal):
            if moves[row, 3] == replies[game]:
                chosen = row
        if chosen < 0:
            return game
        state[game, OPPONENT_MOVE] = moves[chosen, 3]
        _complete(state, history, game, moves, chosen)
        legal = _generate(state, game, moves)
        if state[game, STEPS] > 0:
            end = _outcome(state, history, game, legal)
            if end == GOES_ON and max_steps > 0 and state[game, STEPS] >= max_steps:
                end = STEP_CAP
            if end != GOES_ON:
                _end(state, game, end, rewards, terminated, truncated, ends)
                if autoreset == AUTORESET_SAME_STEP:
                    legal = _reset(state, game, starts, start_random, offset,
                                   OPPONENT_EXTERNAL, history, moves)
                else:
                    state[game, ENDED] = 1
        _write_mask(state, game, moves, legal, masks)
        write_observation(state, history, game, observations)
    return -1


@kernel_no_alloc
def random_actions(state: np.ndarray, masks: np.ndarray, actions: np.ndarray) -> None:
    """A uniformly random legal action of each game, from the game's generator (0 where none)."""
    for game in range(state.shape[0]):
        count = 0
        for action in range(ACTION_COUNT):
            if masks[game, action]:
                count += 1
        actions[game] = 0
        if count == 0:
            continue
        pick = next_random(state, game, count)
        for action in range(ACTION_COUNT):
            if masks[game, action]:
                if pick == 0:
                    actions[game] = action
                    break
                pick -= 1
