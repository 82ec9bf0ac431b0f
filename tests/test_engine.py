"""The engine: tactics, known endgame results, draws in the tree, limits, stopping."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest
from hypothesis import given, settings

from doublecorner import Board, Color, EngineError, Position
from doublecorner.engine import Engine, Limit, Score, SearchResult, Weights
from doublecorner.engine.tt import TranspositionTable
from doublecorner.kernel import search as kernel_search
from doublecorner.kernel.scores import MATE
from tests.conftest import positions

FIRST_POSITION = "W:WK15,20:BK28,12"
FIRST_POSITION_BLACK_TO_MOVE = "B:WK15,20:BK28,12"


def search(fen: str, *, depth: int, hash_mb: int = 16, **options: object) -> SearchResult:
    return Engine(hash_mb=hash_mb).search(Position.from_fen(fen), Limit(depth=depth),
                                          **options)  # type: ignore[arg-type]


def mirrored(position: Position) -> Position:
    """The same position with the board turned round and the colours swapped."""
    def turn_round(bits: int) -> int:
        return int(f"{bits:032b}"[::-1], 2)

    return Position(turn_round(position.white), turn_round(position.black),
                    turn_round(position.kings), position.turn.opponent)


# -- tactics and known results -------------------------------------------------------------


def test_takes_a_free_man_and_scores_the_win_in_plies() -> None:
    result = search("W:W18:B14", depth=3)
    assert str(result.move) == "18x9"
    assert result.score == Score(MATE - 1) and str(result.score) == "win in 1"


def test_a_side_with_no_move_has_lost_now() -> None:
    result = search("B:W18:B", depth=3)
    assert result.move is None
    assert result.score.is_loss and result.score.plies_to_end == 0


def test_finds_the_shot_that_ends_in_a_five_piece_king_jump() -> None:
    # The Checker Maven, 'Seeing is Believing': 22-17 gives men away to set up 1x10x3x12x19x28.
    result = search("W:W30,29,22,21,9,6:B24,20,16,13,8,7", depth=14)
    assert str(result.move) == "22-17"
    assert result.score.is_win


def test_finds_the_two_for_one_shot_in_banks_v_jordan() -> None:
    # Banks v Jordan 1911: 2-7! sacrifices the king for a two-for-one.
    result = search("W:WK30,22,16,K2:B21,14,13,K10", depth=28, hash_mb=64)
    assert str(result.move) == "2-7"
    assert result.score.value > 150


def test_finds_the_only_winning_move_of_the_first_position_without() -> None:
    result = search("B:W22,K5:BK15,K6", depth=44, hash_mb=64)
    assert str(result.move) == "15-10"
    assert result.score.is_win


def test_the_first_position_is_a_win_for_white_given_enough_depth() -> None:
    result = search(FIRST_POSITION, depth=80, hash_mb=256)
    assert result.score.is_win
    assert str(result.move) in {"15-10", "15-18", "15-19"}  # the solver's winning moves


def test_the_first_position_with_black_to_move_is_no_win_for_either_side() -> None:
    result = search(FIRST_POSITION_BLACK_TO_MOVE, depth=40, hash_mb=64)
    assert not result.score.is_win and not result.score.is_loss
    assert str(result.move) in {"28-24", "28-32"}  # 12-16 loses


def test_a_threat_at_the_horizon_is_searched_a_move_further() -> None:
    # 18-23 leaves White a position where Black threatens a jump White cannot meet. At
    # depth 1 the leaf after it is quiet for White, and scored as it stands the search
    # would prefer 17-21 (+0.78 with the linear evaluation); the threat extension
    # searches White's replies and Black's jump, as a depth-9 search sees it.
    engine = Engine(tables=None, evaluation="linear")
    position = Position.from_fen("B:W26,5,19,11:B27,17,18,13,14")
    shallow = engine.search(position, Limit(depth=1))
    deep = engine.search(position, Limit(depth=9))
    assert str(shallow.move) == str(deep.move) == "18-23"
    assert shallow.score.value > 200 and abs(shallow.score.value - deep.score.value) < 100
    assert shallow.seldepth > 1


def test_no_threat_extension_in_the_endings() -> None:
    # Four pieces: 28-32 crowns a king that threatens 32x23, yet a depth-1 search stops
    # at its leaves (kings threaten at every move in the endings; see THREAT_MORE_PIECES_THAN).
    result = Engine(tables=None, evaluation="linear").search(Position.from_fen("B:W7,27:B13,28"),
                                                             Limit(depth=1))
    assert result.seldepth == 1


_SWITCHED_SEARCH_SCRIPT = """
import json, sys
import doublecorner.kernel.search as kernel_search
from doublecorner import Position
from doublecorner.engine import Engine, Limit
name, values, depth, fens = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
runs = []
for value in values:
    setattr(kernel_search, name, value)
    results = [Engine(hash_mb=1, tables=None, evaluation="linear").search(
        Position.from_fen(fen), Limit(depth=depth)) for fen in fens]
    runs.append([[result.nodes, result.seldepth, str(result.move)] for result in results])
print(json.dumps(runs))
"""


def _searches_with_constant(name: str, values: list[int], depth: int,
                            fens: list[str]) -> list[list[tuple[int, int, str]]]:
    """[nodes, seldepth, move] of a search of each FEN, once with each value of the
    kernel's constant ``name``: without numba the kernel reads its constants when it
    runs, so a subprocess can switch a pruning or an extension."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run([sys.executable, "-c", _SWITCHED_SEARCH_SCRIPT, name,
                           json.dumps(values), str(depth), *fens],
                          capture_output=True, text=True, env=env, check=True, timeout=600)
    return [[(int(nodes), int(seldepth), str(move)) for nodes, seldepth, move in run]
            for run in json.loads(done.stdout)]


def test_probcut_prunes_in_the_middlegame_and_stays_out_of_the_endings() -> None:
    # ProbCut as shipped, then switched off: the 10-piece search changes, the
    # 8-piece ones are the very same.
    fens = ["W:W18,K22,23,25,26:B5,K14,9,10,12", "W:W21,22,25,29:B5,9,12,16",
            "B:W19,22,27,30:B6,10,11,15"]
    shipped = kernel_search.PROBCUT_MOVES
    runs = _searches_with_constant("PROBCUT_MOVES", [shipped, 0], 8, fens)
    with_probcut, without = ([nodes for nodes, _, _ in run] for run in runs)
    assert with_probcut[0] != without[0]
    assert with_probcut[1:] == without[1:]


def test_singular_extension_searches_a_lone_good_move_deeper_above_four_pieces() -> None:
    # The extension moved within reach of a short search (depth 3), then switched
    # off. Black's 2-6 is some two men better than any other move at depth 5 (-0.76
    # against -2.76), so it is singular and searched further; the search must still
    # choose it. The 8-piece search changes too; the First Position's (four pieces)
    # is the very same (see SINGULAR_MORE_PIECES_THAN).
    fens = ["B:WK3,18,23,24,25,28,30,32:B1,2,4,7,9,16", "W:W21,22,25,29:B5,9,12,16",
            FIRST_POSITION]
    (extended, eight, ending), (plain, eight_plain, ending_plain) = _searches_with_constant(
        "SINGULAR_DEPTH", [3, 1000], 7, fens)
    assert extended[0] != plain[0]
    assert extended[1] > plain[1]
    assert extended[2] == plain[2] == "2-6"
    assert eight[0] != eight_plain[0]
    assert ending == ending_plain


# -- draws inside the search ------------------------------------------------------------------


def test_the_forty_move_rule_ends_a_won_king_ending_in_a_draw() -> None:
    fen = "W:WK1,K3:BK30"  # two kings against one, no capture in reach
    assert search(fen, depth=6).score.value > 100
    assert search(fen, depth=6, halfmove_clock=79).score == Score(0)


def test_the_side_behind_repeats_the_position_to_draw() -> None:
    # The game so far: S -(3-7)- T -(26-30)- Q -(7-3)- root. Going back to 26
    # makes S again, with White to move, for the second time.
    history = [Position.from_fen(fen) for fen in ("W:WK1,K3:BK26", "B:WK1,K7:BK26",
                                                   "W:WK1,K7:BK30")]
    root = "B:WK1,K3:BK30"
    assert search(root, depth=6).score.value < -100
    result = search(root, depth=6, history=history, halfmove_clock=3)
    assert str(result.move) == "30-26"
    assert result.score == Score(0)


# -- determinism, limits and stopping --------------------------------------------------------


@pytest.mark.parametrize("fen", ["B:W21-32:B1-12", "W:W18,K22,23,25,26:B5,K14,9,10,12"])
def test_a_fixed_depth_search_is_deterministic(fen: str) -> None:
    first = search(fen, depth=10)
    second = search(fen, depth=10)
    assert (first.move, first.score, first.nodes, first.pv) == (
        second.move, second.score, second.nodes, second.pv)


def test_each_finished_depth_is_reported_in_order() -> None:
    infos: list[SearchResult] = []
    result = Engine(hash_mb=4).search(Position.start(), Limit(depth=6), on_info=infos.append)
    assert [info.depth for info in infos] == [1, 2, 3, 4, 5, 6]
    assert infos[-1] == result
    assert all(info.pv and info.pv[0] == info.move for info in infos)


def test_the_principal_variation_is_a_legal_line() -> None:
    result = search("B:W21-32:B1-12", depth=9)
    board = Board()
    for move in result.pv:
        board.push(move)  # raises if illegal
    assert result.seldepth >= len(result.pv) >= 9


def test_a_node_limit_of_one_still_gives_a_legal_move() -> None:
    result = Engine(hash_mb=1).search(Position.start(), Limit(nodes=1))
    assert result.move in Board().legal_moves


def test_a_stop_event_from_another_thread_returns_a_legal_move() -> None:
    stop = threading.Event()
    engine = Engine(hash_mb=4)
    infos: list[SearchResult] = []

    def on_info(info: SearchResult) -> None:
        infos.append(info)
        if info.depth == 5:
            stop.set()

    result = engine.search(Position.start(), on_info=on_info, stop=stop)
    assert result.move in Board().legal_moves
    assert 5 <= result.depth < 100


def test_engine_stop_ends_a_search_without_limits() -> None:
    engine = Engine(hash_mb=4)
    started = threading.Event()

    def on_info(info: SearchResult) -> None:
        if info.depth == 3:
            started.set()

    results: list[SearchResult] = []
    worker = threading.Thread(target=lambda: results.append(
        engine.search(Position.start(), on_info=on_info)))
    worker.start()
    assert started.wait(60)
    engine.stop()
    worker.join(60)
    assert not worker.is_alive()
    assert results[0].move in Board().legal_moves


def test_a_stop_that_comes_before_the_search_starts_is_not_lost() -> None:
    """The stopping thread cannot know whether the search has begun: the stop must hold."""
    engine = Engine(hash_mb=4)
    engine.stop()
    results: list[SearchResult] = []
    worker = threading.Thread(target=lambda: results.append(
        engine.search(Position.start())), daemon=True)  # no limit: only the stop ends it
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "a stop before the search was forgotten"
    assert results[0].move in Board().legal_moves
    # The request was this search's: the next one runs to its limit.
    assert engine.search(Position.start(), Limit(depth=4)).depth == 4


def test_one_engine_runs_one_search_at_a_time() -> None:
    engine = Engine(hash_mb=4)
    inside = threading.Event()
    errors: list[Exception] = []

    def on_info(info: SearchResult) -> None:
        if info.depth == 2 and not inside.is_set():
            inside.set()
            try:
                engine.search(Position.start(), Limit(depth=1))
            except EngineError as error:
                errors.append(error)

    engine.search(Position.start(), Limit(depth=3), on_info=on_info)
    assert errors and "already searching" in str(errors[0])


def test_limits_reject_nonsense() -> None:
    with pytest.raises(EngineError, match="depth"):
        Limit(depth=0)
    with pytest.raises(EngineError, match="node limit"):
        Limit(nodes=0)
    with pytest.raises(EngineError, match="clock"):
        Limit(clock=float("nan"))


def test_the_transposition_table_keeps_to_its_size() -> None:
    for megabytes in (1, 3, 16):
        table = TranspositionTable(megabytes)
        assert table.table.nbytes <= megabytes << 20
        assert table.table.nbytes > megabytes << 19  # at least half is used
    with pytest.raises(EngineError, match="hash size"):
        TranspositionTable(0)


# -- evaluation ----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(positions())
def test_the_evaluation_is_the_same_from_either_side(position: Position) -> None:
    engine = Engine(hash_mb=1)
    assert engine.evaluate(position) == engine.evaluate(mirrored(position))


@settings(max_examples=60, deadline=None)
@given(positions(max_pieces=10))
def test_every_move_the_engine_returns_is_legal(position: Position) -> None:
    board = Board.from_position(position)
    result = Engine(hash_mb=1).search(position, Limit(depth=3))
    if board.legal_moves:
        assert result.move in board.legal_moves
    else:
        assert result.move is None and result.score.is_loss


def test_weights_change_the_evaluation() -> None:
    position = Position.from_fen("B:W21-32:B1-11,K12")
    plain = Engine(hash_mb=1, evaluation="linear").evaluate(position)
    richer = Engine(hash_mb=1, evaluation="linear",
                    weights=Weights.default().replace(king=300.0)).evaluate(position)
    assert richer.value > plain.value


def test_weights_read_back_from_json() -> None:
    weights = Weights.default().replace(mobility=7.5)
    assert Weights.from_json(weights.to_json(source="test")) == weights
    with pytest.raises(EngineError, match="JSON"):
        Weights.from_json("{")


def test_colour_names_in_mirrored_positions() -> None:
    position = Position.from_fen("B:W18,K22:B5,K14")
    assert mirrored(position).turn is Color.WHITE
    assert mirrored(mirrored(position)) == position


@pytest.mark.parametrize("limit", [Limit(time=0.05), Limit(clock=0.5, increment=0.01),
                                   Limit(clock=3.0, moves_to_go=40)])
def test_time_limits_give_a_legal_move(limit: Limit) -> None:
    result = Engine(hash_mb=4).search(Position.start(), limit)
    assert result.move in Board().legal_moves and result.depth >= 1


def test_a_negative_halfmove_clock_is_refused() -> None:
    with pytest.raises(EngineError, match="halfmove clock must be 0 or more, not -1"):
        Engine(hash_mb=1).search(Position.start(), Limit(depth=1), halfmove_clock=-1)


def test_a_board_brings_its_history_and_clock_to_the_search() -> None:
    # The game of the repetition test above, played on a board: its history makes
    # 30-26 a repetition (a draw for the side behind), its clock counts the king moves.
    board = Board("W:WK1,K3:BK26")
    for move in ("3-7", "26-30", "7-3"):
        board.push(board.parse_move(move))
    assert board.halfmove_clock == 3
    result = Engine(hash_mb=16).search(board, Limit(depth=6))
    assert str(result.move) == "30-26" and result.score == Score(0)
    # Given explicitly, the history wins over the board's: no repetition, Black is lost.
    assert Engine(hash_mb=16).search(board, Limit(depth=6), history=[]).score.value < -100
    assert Engine(hash_mb=1).evaluate(board) == Engine(hash_mb=1).evaluate(board.position())


@pytest.mark.parametrize("wrong", ["B:W21-32:B1-12", None, 7])
def test_a_search_of_something_else_is_a_type_error_naming_it(wrong: object) -> None:
    named = f"expected a Position or a Board, not {type(wrong).__name__}"
    with pytest.raises(TypeError, match=named):
        Engine(hash_mb=1).search(wrong, Limit(depth=1))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected a Position or a Board"):
        Engine(hash_mb=1).evaluate(wrong)  # type: ignore[arg-type]
