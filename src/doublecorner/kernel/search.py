"""The engine's inner loop: one alpha-beta search of the root to a fixed depth.

A principal-variation search (negamax) with a transposition table, killer
moves, a history table, late-move reductions, internal iterative reduction,
reverse futility pruning near the leaves and ProbCut further up (both while
more than 8 pieces are on the board), an extension for forced moves
(a position with one legal move costs no depth), a singular extension (a
table move that a shallower search finds far better than every other move is
searched a ply deeper), a threat extension (a quiet
leaf whose opponent could jump is searched one move further, while more than 8
pieces are on the board) and a capture quiescence
(below depth 0 the search goes on while the side to move must capture; a quiet
position is scored by :func:`.evaluate.evaluate`, with no stand-pat when a
capture is compulsory; the network's scores are cached by position,
:mod:`.evalcache`). Draws by repetition and by the 40-move rule are scored
0 inside the tree; a side with no legal move at ply ``p`` scores
``-(MATE - p)``, so a win in fewer plies scores higher.

numba cannot cache recursive functions safely (issue #6061), so the recursion
is a state machine over an explicit stack: ``frames[p]`` holds the state of
the node at ply ``p`` and its moves sit in ``moves[frames[p, START]:frames[p,
END]]``, one flat stack for the whole line like :mod:`.perft`. The Python
driver (:mod:`doublecorner.engine.search`) runs iterative deepening and the
aspiration windows around :func:`search_window`, and sets ``control[STOP]`` from
another thread to stop it; the loop reads the flag every 1024 nodes.
"""

from __future__ import annotations

import numpy as np

from doublecorner._jit import kernel_inline, kernel_no_alloc
from doublecorner.kernel.bitops import bit_index, popcount
from doublecorner.kernel.bits import FULL
from doublecorner.kernel.egtb_index import egtb_value
from doublecorner.kernel.encoding import JUMP_COUNT_SHIFT
from doublecorner.kernel.evalcache import MISSING, eval_cache_probe, eval_cache_store
from doublecorner.kernel.evaluate import evaluate
from doublecorner.kernel.hashing import WHITE_TO_MOVE, ZOBRIST_PIECES
from doublecorner.kernel.movegen import _count_moves_for, _generate_at, has_captures
from doublecorner.kernel.network import (
    evaluate_network,
    refresh_accumulators,
    update_accumulators,
)
from doublecorner.kernel.ordering import (
    is_late_quiet,
    penalise_tried,
    pick_next,
    record_cutoff,
    score_moves,
)
from doublecorner.kernel.scores import (
    FORTY_MOVE_PLIES,
    INFINITE,
    MATE,
    MAX_PLY,
    TABLE_BOUND,
    TABLE_WIN,
)
from doublecorner.kernel.tt import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    T_DATA,
    T_MOVE,
    clock_key,
    score_from_tt,
    score_to_tt,
    tt_find,
    tt_store,
)

# Reverse futility pruning: at a depth of RFP_DEPTH or less, a static score RFP_MARGIN
# a ply above beta cuts off. Only with more pieces than RFP_MORE_PIECES_THAN on the
# board: in the endings a static score says little (with it there, the First
# Position's win is no longer proved at depth 80).
RFP_DEPTH = 3
RFP_MARGIN = 75
RFP_MORE_PIECES_THAN = 8
# Internal iterative reduction: a node this deep without a table move is searched
# a ply shallower.
IIR_DEPTH = 4
# A late quiet move is reduced two plies instead of one from this depth and this
# many moves tried.
LMR_DEEP_DEPTH = 5
LMR_DEEP_TRIED = 5
# The threat extension (see the leaf test in search_window): at most this many plies
# past the root's depth, and only with more pieces than this on the board: in the
# endings, where kings threaten jumps at every move, it kept the search from proving
# the First Position won at depth 80 (+10.91 after 375 M nodes).
THREAT_PLIES = 3
THREAT_MORE_PIECES_THAN = 8
# ProbCut: a zero-window node at least PROBCUT_DEPTH deep first searches its first
# PROBCUT_MOVES moves PROBCUT_REDUCTION plies shallower against beta + PROBCUT_MARGIN;
# a move that beats that bound there is taken to beat beta at full depth, and the
# node is cut off. A shallow search rarely misjudges a move by that much, and a
# refuted line is cut at a fraction of its cost. Only with more pieces than
# PROBCUT_MORE_PIECES_THAN on the board, as reverse futility pruning.
PROBCUT_DEPTH = 5
PROBCUT_REDUCTION = 3
PROBCUT_MARGIN = 60
PROBCUT_MOVES = 2
PROBCUT_MORE_PIECES_THAN = 8
# Singular extension: at a node at least SINGULAR_DEPTH deep whose table move has a
# lower bound (or exact score) from a search at most SINGULAR_TT_SLACK plies
# shallower, every other move is first searched to half the depth against that
# score less SINGULAR_MARGIN a ply; if none reaches it, the table's move is the only
# good one and is searched a ply deeper (while the line is shorter than twice the
# root's depth). Only with more pieces than SINGULAR_MORE_PIECES_THAN on the board:
# in the four-piece endings, where a king's lone good move is common, the First
# Position's searches (depths 40 to 80) ran past seven minutes of CPU unfinished
# (about a minute without it). Down to five pieces since 2026-12-06 (it was more
# than eight before; the match is in docs/training.md).
SINGULAR_DEPTH = 8
SINGULAR_TT_SLACK = 3
SINGULAR_MARGIN = 2
SINGULAR_MORE_PIECES_THAN = 4
# The history penalty (see .ordering.penalise_tried) only with more pieces than this
# on the board: with it in the endings the First Position's search to depth 80 no
# longer proved the win (+0.46 after 471 M nodes).
PENALTY_MORE_PIECES_THAN = 8
MOVE_ROWS = 16384  # rows of the move stack: far above any line of MAX_PLY positions
CHECK_EVERY = 1024  # nodes between two reads of the stop flag

# Fields of a frame: one row per ply.
(F_BLACK, F_WHITE, F_KINGS, F_TURN, F_KEY, F_CLOCK, F_ALPHA, F_BETA, F_DEPTH, F_START,
 F_END, F_CUR, F_BEST, F_BEST_KEY, F_ALPHA0, F_STAGE, F_TRIED, F_CAPTURE, F_PROBE,
 F_SINGULAR, F_SINGULAR_BETA, F_EXTEND) = range(22)
FRAME_FIELDS = 22

# Fields of the control array, shared with the driver.
(C_STOP, C_NODES, C_NODE_LIMIT, C_SELDEPTH, C_ABORTED, C_GENERATION, C_ROOT_BEST_KEY,
 C_ROOT_BEST_SCORE, C_OVERFLOWS, C_TABLE_PIECES, C_TABLE_HITS, C_EVALUATION) = range(12)
CONTROL_FIELDS = 12

# Values of control[C_EVALUATION].
EVALUATION_LINEAR, EVALUATION_NETWORK = 0, 1


# How a child is being searched: the first move, a zero window, a reduced zero window,
# ProbCut's shallow search against a raised bound, the singular extension's test.
STAGE_FULL, STAGE_ZERO, STAGE_REDUCED, STAGE_PROBE, STAGE_SINGULAR = 0, 1, 2, 3, 4
_ENTER, _NEXT, _RETURN = 0, 1, 2


@kernel_inline
def _child_key(key: int, black: int, white: int, kings: int, child_black: int,
               child_white: int, child_kings: int) -> int:
    """The Zobrist key after a move, updated from the squares it changed."""
    changed = ((black ^ child_black) | (white ^ child_white) | (kings ^ child_kings)) & FULL
    while changed:
        bit = changed & -changed
        changed ^= bit
        index = bit_index(bit)
        king_row = 32 if kings & bit else 0
        if black & bit:
            key ^= ZOBRIST_PIECES[king_row + index]
        elif white & bit:
            key ^= ZOBRIST_PIECES[64 + king_row + index]
        king_row = 32 if child_kings & bit else 0
        if child_black & bit:
            key ^= ZOBRIST_PIECES[king_row + index]
        elif child_white & bit:
            key ^= ZOBRIST_PIECES[64 + king_row + index]
    child_key: int = key ^ ZOBRIST_PIECES[WHITE_TO_MOVE]
    return child_key


@kernel_inline
def _enter_child(frames: np.ndarray, moves: np.ndarray, ply: int, row: int, depth: int,
                 alpha: int, beta: int) -> None:
    """Set up the frame at ``ply + 1`` for the move in ``row``."""
    black, white, kings = frames[ply, F_BLACK], frames[ply, F_WHITE], frames[ply, F_KINGS]
    turn = frames[ply, F_TURN]
    child_black, child_white, child_kings = moves[row, 0], moves[row, 1], moves[row, 2]
    child = ply + 1
    frames[child, F_BLACK] = child_black
    frames[child, F_WHITE] = child_white
    frames[child, F_KINGS] = child_kings
    frames[child, F_TURN] = turn ^ 1
    frames[child, F_KEY] = _child_key(frames[ply, F_KEY], black, white, kings,
                                      child_black, child_white, child_kings)
    # The 40-move count restarts on a capture or a man's move (a crowning included).
    if turn == 0:
        progress = (white != child_white) or ((black & ~kings) != (child_black & ~child_kings))
    else:
        progress = (black != child_black) or ((white & ~kings) != (child_white & ~child_kings))
    frames[child, F_CLOCK] = 0 if progress else frames[ply, F_CLOCK] + 1
    frames[child, F_ALPHA] = alpha
    frames[child, F_BETA] = beta
    frames[child, F_DEPTH] = depth


@kernel_inline
def _catch_up_accumulators(frames: np.ndarray, network: np.ndarray, accumulators: np.ndarray,
                           accumulated: int, ply: int) -> None:
    """Bring ``accumulators[accumulated + 1 .. ply]`` up to date along the search line.

    They are updated only when a leaf needs them: a child cut off by the
    transposition table, a repetition or the endgame tables never pays for its
    update.
    """
    for parent in range(accumulated, ply):
        child = parent + 1
        update_accumulators(frames[parent, F_BLACK], frames[parent, F_WHITE],
                            frames[parent, F_KINGS], frames[child, F_BLACK],
                            frames[child, F_WHITE], frames[child, F_KINGS], network,
                            accumulators, parent)


@kernel_inline
def _leaf_score(frames: np.ndarray, ply: int, accumulated: int, weights: np.ndarray,
                scratch: np.ndarray, network: np.ndarray, accumulators: np.ndarray,
                network_scratch: np.ndarray, eval_cache: np.ndarray,
                use_network: bool) -> tuple[int, int]:
    """The static score of the node at ``ply`` (``-(MATE - ply)`` if its mover has no
    move), and how far the accumulators are now up to date.

    The network's scores are kept in ``eval_cache`` (:mod:`.evalcache`).
    """
    black, white, kings = frames[ply, F_BLACK], frames[ply, F_WHITE], frames[ply, F_KINGS]
    turn = frames[ply, F_TURN]
    if use_network:
        if not _can_move(black, white, kings, turn):
            return -(MATE - ply), accumulated
        key = frames[ply, F_KEY]
        cached = eval_cache_probe(eval_cache, key)
        if cached != MISSING:
            return cached, accumulated
        _catch_up_accumulators(frames, network, accumulators, accumulated, ply)
        score = evaluate_network(black, white, kings, turn, network, accumulators, ply,
                                 network_scratch)
        eval_cache_store(eval_cache, key, score)
        return score, ply
    value = evaluate(black, white, kings, turn, weights, scratch)
    return (-(MATE - ply) if value == -MATE else value), accumulated


@kernel_inline
def _is_repetition(frames: np.ndarray, game_keys: np.ndarray, ply: int, key: int,
                   clock: int) -> bool:
    """Whether the position at ``ply`` occurred before, in the search line or the game."""
    earlier = ply - 2
    while ply - earlier <= clock:
        if earlier >= 0:
            if frames[earlier, F_KEY] == key:
                return True
        else:
            index = game_keys.shape[0] + earlier
            if index < 0:
                return False
            if game_keys[index] == key:
                return True
        earlier -= 2
    return False


@kernel_inline
def _generate(frames: np.ndarray, moves: np.ndarray, ply: int, start: int) -> int:
    black, white, kings = frames[ply, F_BLACK], frames[ply, F_WHITE], frames[ply, F_KINGS]
    if frames[ply, F_TURN] == 0:
        return _generate_at(black, white, kings, 0, moves, start)
    return _generate_at(black, white, kings, 1, moves, start)


@kernel_inline
def _can_move(black: int, white: int, kings: int, turn: int) -> bool:
    if turn == 0:
        return _count_moves_for(black, white, kings, 0) > 0
    return _count_moves_for(black, white, kings, 1) > 0


@kernel_no_alloc
def search_window(frames: np.ndarray, moves: np.ndarray, order: np.ndarray,
                  game_keys: np.ndarray, tt: np.ndarray, killers: np.ndarray,
                  history: np.ndarray, pv: np.ndarray, pv_length: np.ndarray,
                  weights: np.ndarray, scratch: np.ndarray, network: np.ndarray,
                  accumulators: np.ndarray, network_scratch: np.ndarray,
                  eval_cache: np.ndarray, control: np.ndarray, table_offsets: np.ndarray,
                  table_packed: np.ndarray) -> int:
    """Search the root in ``frames[0]`` to ``frames[0, F_DEPTH]`` within its window.

    The root frame holds the position, its Zobrist key, 40-move clock, alpha,
    beta and depth. ``game_keys`` are the keys of the game's earlier positions,
    oldest first, for repetitions. Returns the root's score (a bound when it
    falls outside the window); ``pv[0, :pv_length[0]]`` is the principal
    variation as move keys. If the stop flag is raised or the node limit is
    reached, sets ``control[C_ABORTED]`` and returns at once; the best root move
    found so far is in ``control[C_ROOT_BEST_KEY]`` (-1 if none).

    With ``control[C_TABLE_PIECES]`` above 0, a position of at most that many
    pieces reached by a capture or a man's move (a fresh 40-move count, so a
    table win is one the count cannot spoil) is scored from the endgame tables
    ``table_offsets``/``table_packed`` (see :func:`.egtb_index.egtb_value`).

    Leaves are scored by the linear evaluation with ``weights`` or, with
    ``control[C_EVALUATION]`` set to :data:`EVALUATION_NETWORK`, by the
    network in ``network`` (see :mod:`.network`), whose accumulators for the
    line are kept in ``accumulators[ply]``, brought up to date along the line
    only when a leaf is scored (:func:`_catch_up_accumulators`), and whose
    scores are kept in ``eval_cache`` (:mod:`.evalcache`) for the positions
    that come back.
    """
    nodes = control[C_NODES]
    node_limit = control[C_NODE_LIMIT]
    seldepth = control[C_SELDEPTH]
    generation = control[C_GENERATION] & 0xFF
    table_pieces = control[C_TABLE_PIECES]
    table_hits = control[C_TABLE_HITS]
    use_network = control[C_EVALUATION] == EVALUATION_NETWORK
    accumulated = 0  # accumulators[0 .. accumulated] are up to date for the line
    if use_network:
        refresh_accumulators(frames[0, F_BLACK], frames[0, F_WHITE], frames[0, F_KINGS],
                             network, accumulators, 0)
    bucket_mask = (tt.shape[0] - 1) & ~1
    ply = 0
    mode = _ENTER
    value = 0
    while True:
        if mode == _ENTER:
            nodes += 1
            if nodes >= node_limit or ((nodes & (CHECK_EVERY - 1)) == 0 and control[C_STOP] != 0):
                control[C_ABORTED] = 1
                break
            seldepth = max(seldepth, ply)
            pv_length[ply] = ply
            # A node entered anew: its accumulators (if any were made) were a sibling's.
            accumulated = min(accumulated, max(ply - 1, 0))
            black, white, kings = frames[ply, F_BLACK], frames[ply, F_WHITE], frames[ply, F_KINGS]
            turn, key, clock = frames[ply, F_TURN], frames[ply, F_KEY], frames[ply, F_CLOCK]
            alpha, beta, depth = frames[ply, F_ALPHA], frames[ply, F_BETA], frames[ply, F_DEPTH]
            pieces = popcount(black | white)  # the tables and the middlegame tests
            mode = _RETURN  # unless the node has moves to search
            if ply > 0:
                if clock >= FORTY_MOVE_PLIES:
                    value = 0 if _can_move(black, white, kings, turn) else -(MATE - ply)
                    continue
                if _is_repetition(frames, game_keys, ply, key, clock):
                    value = 0
                    continue
                # No line from here can beat a win found nearer the root.
                alpha = max(alpha, -(MATE - ply))
                beta = min(beta, MATE - ply - 1)
                if alpha >= beta:
                    value = alpha
                    continue
                if clock == 0 and pieces <= table_pieces:
                    known = egtb_value(black, white, kings, turn, table_offsets, table_packed)
                    if known != -2:
                        table_hits += 1
                        value = 0 if known == 0 else known * (TABLE_WIN - ply)
                        continue
            quiet_leaf = depth <= 0 and not has_captures(black, white, kings, turn)
            # A threat: a quiet leaf whose opponent could jump if it were its move is
            # searched one move further (a shot the static score cannot see), while the
            # line is at most THREAT_PLIES past the root's depth and the middlegame lasts.
            if (quiet_leaf and depth == 0 and ply > 0
                    and ply < frames[0, F_DEPTH] + THREAT_PLIES
                    and pieces > THREAT_MORE_PIECES_THAN
                    and has_captures(black, white, kings, 1 - turn)):
                depth = 1
                quiet_leaf = False
            if ply >= MAX_PLY - 1 or quiet_leaf:
                value, accumulated = _leaf_score(frames, ply, accumulated, weights, scratch,
                                                 network, accumulators, network_scratch,
                                                 eval_cache, use_network)
                continue
            tt_move = -1
            tt_depth = -1
            tt_score = 0
            tt_bound = BOUND_UPPER
            slot = tt_find(tt, key ^ clock_key(clock), bucket_mask)
            if slot >= 0:
                tt_move = tt[slot, T_MOVE]
                data = tt[slot, T_DATA]
                tt_depth = (data >> 16) & 0xFF
                tt_score = score_from_tt((data & 0xFFFF) - 32768, ply)
                tt_bound = (data >> 24) & 3
                if ply > 0 and beta - alpha == 1 and tt_depth >= depth:
                    stored = tt_score
                    bound = tt_bound
                    if (bound == BOUND_EXACT or (bound == BOUND_LOWER and stored >= beta)
                            or (bound == BOUND_UPPER and stored <= alpha)):
                        value = stored
                        continue
            # Internal iterative reduction: a deep node the table knows nothing of
            # (no move to try first) is searched a ply shallower; its move ordering
            # is poor, and a later iteration that comes back finds the table's move.
            if tt_move < 0 and depth >= IIR_DEPTH and ply > 0:
                depth -= 1
            # Reverse futility: a zero-window node near the leaves whose static score
            # beats beta by a margin a few quiet moves cannot undo is cut off at once;
            # not where either side has a capture: a shot in the air is no quiet score.
            if (ply > 0 and depth <= RFP_DEPTH and beta - alpha == 1
                    and abs(beta) < TABLE_BOUND
                    and pieces > RFP_MORE_PIECES_THAN
                    and not has_captures(black, white, kings, turn)
                    and not has_captures(black, white, kings, 1 - turn)):
                static, accumulated = _leaf_score(frames, ply, accumulated, weights, scratch,
                                                  network, accumulators, network_scratch,
                                                  eval_cache, use_network)
                if static - RFP_MARGIN * depth >= beta:
                    value = static - RFP_MARGIN * depth
                    continue
            start = frames[ply - 1, F_END] if ply > 0 else 0
            end = _generate(frames, moves, ply, start)
            if end < 0:  # the move stack is full: score the node as a leaf
                control[C_OVERFLOWS] += 1
                value, accumulated = _leaf_score(frames, ply, accumulated, weights, scratch,
                                                 network, accumulators, network_scratch,
                                                 eval_cache, use_network)
                continue
            if end == start:
                value = -(MATE - ply)
                continue
            capture = (moves[start, 3] >> JUMP_COUNT_SHIFT) & 15 != 0
            if end - start == 1 and depth > 0:
                depth += 1  # a forced move costs no depth
            score_moves(moves, order, start, end, turn, ply, tt_move, capture, killers, history)
            frames[ply, F_ALPHA] = alpha
            frames[ply, F_BETA] = beta
            frames[ply, F_ALPHA0] = alpha
            frames[ply, F_DEPTH] = depth
            frames[ply, F_START] = start
            frames[ply, F_END] = end
            frames[ply, F_CUR] = start
            frames[ply, F_BEST] = -INFINITE
            frames[ply, F_BEST_KEY] = -1
            frames[ply, F_TRIED] = 0
            frames[ply, F_CAPTURE] = capture
            frames[ply, F_PROBE] = 0  # the moves still to try in ProbCut's shallow search
            if (ply > 0 and depth >= PROBCUT_DEPTH and beta - alpha == 1
                    and end - start > 1 and abs(beta) < TABLE_BOUND - PROBCUT_MARGIN
                    and pieces > PROBCUT_MORE_PIECES_THAN):
                frames[ply, F_PROBE] = PROBCUT_MOVES
            frames[ply, F_SINGULAR] = 0
            frames[ply, F_EXTEND] = -1
            if (ply > 0 and depth >= SINGULAR_DEPTH and tt_move >= 0 and end - start > 1
                    and tt_bound != BOUND_UPPER and tt_depth >= depth - SINGULAR_TT_SLACK
                    and abs(tt_score) < TABLE_BOUND and ply < 2 * frames[0, F_DEPTH]
                    and pieces > SINGULAR_MORE_PIECES_THAN):
                frames[ply, F_SINGULAR] = 1
                frames[ply, F_SINGULAR_BETA] = tt_score - SINGULAR_MARGIN * depth
                frames[ply, F_EXTEND] = tt_move
            mode = _NEXT

        elif mode == _NEXT:
            row = frames[ply, F_CUR]
            end = frames[ply, F_END]
            alpha, beta = frames[ply, F_ALPHA], frames[ply, F_BETA]
            if frames[ply, F_SINGULAR] == 1 and frames[ply, F_PROBE] == 0 and row >= end:
                # No other move reached the bound: the table's move is extended.
                frames[ply, F_SINGULAR] = 0
                frames[ply, F_CUR] = frames[ply, F_START]
                continue
            if row >= end or alpha >= beta:
                best = frames[ply, F_BEST]
                if best <= frames[ply, F_ALPHA0]:
                    bound = BOUND_UPPER
                elif best >= beta:
                    bound = BOUND_LOWER
                else:
                    bound = BOUND_EXACT
                table_key = frames[ply, F_KEY] ^ clock_key(frames[ply, F_CLOCK])
                tt_store(tt, table_key, bucket_mask, frames[ply, F_BEST_KEY],
                          score_to_tt(best, ply), frames[ply, F_DEPTH], bound, generation)
                value = best
                mode = _RETURN
                continue
            pick_next(moves, order, row, end)
            depth = frames[ply, F_DEPTH]
            tried = frames[ply, F_TRIED]
            if frames[ply, F_PROBE] > 0:
                probe_beta = beta + PROBCUT_MARGIN
                frames[ply, F_STAGE] = STAGE_PROBE
                _enter_child(frames, moves, ply, row, depth - 1 - PROBCUT_REDUCTION,
                             -probe_beta, -probe_beta + 1)
            elif frames[ply, F_SINGULAR] == 1:
                if moves[row, 3] == frames[ply, F_EXTEND]:  # the move under test is skipped
                    frames[ply, F_CUR] = row + 1
                    continue
                singular_beta = frames[ply, F_SINGULAR_BETA]
                frames[ply, F_STAGE] = STAGE_SINGULAR
                _enter_child(frames, moves, ply, row, (depth - 1) // 2,
                             -singular_beta, -singular_beta + 1)
            elif tried == 0:
                frames[ply, F_STAGE] = STAGE_FULL
                extension = 1 if moves[row, 3] == frames[ply, F_EXTEND] else 0
                _enter_child(frames, moves, ply, row, depth - 1 + extension, -beta, -alpha)
            elif (depth >= 3 and tried >= 3 and frames[ply, F_CAPTURE] == 0
                  and is_late_quiet(order[row])):
                reduction = 2 if depth >= LMR_DEEP_DEPTH and tried >= LMR_DEEP_TRIED else 1
                frames[ply, F_STAGE] = STAGE_REDUCED
                _enter_child(frames, moves, ply, row, depth - 1 - reduction, -alpha - 1, -alpha)
            else:
                frames[ply, F_STAGE] = STAGE_ZERO
                _enter_child(frames, moves, ply, row, depth - 1, -alpha - 1, -alpha)
            ply += 1
            mode = _ENTER

        else:  # _RETURN: ``value`` is the score of the node at ``ply``, for its mover
            if ply == 0:
                break
            ply -= 1
            score = -value
            row = frames[ply, F_CUR]
            alpha, beta, depth = frames[ply, F_ALPHA], frames[ply, F_BETA], frames[ply, F_DEPTH]
            stage = frames[ply, F_STAGE]
            if stage == STAGE_PROBE:
                if score >= beta + PROBCUT_MARGIN:  # cut off: the shallow search beat beta by far
                    value = score - PROBCUT_MARGIN
                    mode = _RETURN
                    continue
                frames[ply, F_PROBE] -= 1
                frames[ply, F_CUR] = row + 1
                if frames[ply, F_PROBE] == 0 or row + 1 >= frames[ply, F_END]:
                    frames[ply, F_PROBE] = 0  # no cut: the node is searched in full
                    frames[ply, F_CUR] = frames[ply, F_START]
                mode = _NEXT
                continue
            if stage == STAGE_SINGULAR:
                frames[ply, F_CUR] = row + 1
                if score >= frames[ply, F_SINGULAR_BETA]:  # another move is as good
                    frames[ply, F_SINGULAR] = 0
                    frames[ply, F_EXTEND] = -1
                    frames[ply, F_CUR] = frames[ply, F_START]
                mode = _NEXT
                continue
            if stage == STAGE_REDUCED and score > alpha:
                frames[ply, F_STAGE] = STAGE_ZERO  # the reduction failed: search it fully
                _enter_child(frames, moves, ply, row, depth - 1, -alpha - 1, -alpha)
                ply += 1
                mode = _ENTER
                continue
            if stage == STAGE_ZERO and alpha < score < beta:
                frames[ply, F_STAGE] = STAGE_FULL  # better than the best: find its true score
                _enter_child(frames, moves, ply, row, depth - 1, -beta, -alpha)
                ply += 1
                mode = _ENTER
                continue
            move_key = moves[row, 3]
            if score > frames[ply, F_BEST]:
                frames[ply, F_BEST] = score
                frames[ply, F_BEST_KEY] = move_key
                if score > alpha:
                    frames[ply, F_ALPHA] = score
                    pv[ply, ply] = move_key
                    for index in range(ply + 1, pv_length[ply + 1]):
                        pv[ply, index] = pv[ply + 1, index]
                    pv_length[ply] = max(pv_length[ply + 1], ply + 1)
                    if ply == 0:
                        control[C_ROOT_BEST_KEY] = move_key
                        control[C_ROOT_BEST_SCORE] = score
                    if score >= beta and frames[ply, F_CAPTURE] == 0:
                        record_cutoff(killers, history, ply, frames[ply, F_TURN], move_key,
                                      depth)
                        if popcount(frames[ply, F_BLACK] | frames[ply, F_WHITE]) > (
                                PENALTY_MORE_PIECES_THAN):
                            penalise_tried(moves, history, frames[ply, F_START], row,
                                           frames[ply, F_TURN], depth)
            frames[ply, F_TRIED] += 1
            frames[ply, F_CUR] = row + 1
            mode = _NEXT

    control[C_NODES] = nodes
    control[C_SELDEPTH] = seldepth
    control[C_TABLE_HITS] = table_hits
    return value
