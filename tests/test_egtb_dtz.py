"""Distance to zeroing: an independent solver, its bounds, and wins kept under the 40-move rule."""

from __future__ import annotations

import collections
import itertools

import pytest

from doublecorner.board import Board
from doublecorner.cli import main
from doublecorner.color import Color
from doublecorner.egtb import Material, Tables, Value
from doublecorner.egtb.dtz import solve_block
from doublecorner.kernel import generate_moves
from doublecorner.kernel.egtb_index import flip_board, rank_position, unrank_position
from doublecorner.move import Move
from doublecorner.position import Position
from tests.retrograde import settle

State = tuple[int, int, int, int]  # black, white, kings, turn
LONG_WIN = "B:WK21,25:BK2,K3"  # Black's two kings against man and king: DTC 73


def _block_states(black_men: int, white_men: int, black_kings: int,
                  white_kings: int) -> list[State]:
    """Every placement of the kings around fixed men, either side to move."""
    free = [1 << square for square in range(32) if not (black_men | white_men) >> square & 1]
    states = []
    for crowned in itertools.combinations(free, black_kings):
        rest = [bit for bit in free if bit not in crowned]
        for crowned_white in itertools.combinations(rest, white_kings):
            black, white = black_men | sum(crowned), white_men | sum(crowned_white)
            for turn in (0, 1):
                states.append((black, white, sum(crowned) | sum(crowned_white), turn))
    return states


def _restarts(state: State, child: tuple[int, int, int]) -> bool:
    black, white, kings, _ = state
    child_black, child_white, child_kings = child
    return (black & ~kings != child_black & ~child_kings
            or white & ~kings != child_white & ~child_kings
            or (black | white).bit_count() != (child_black | child_white).bit_count())


def _dtz_independently(tables: Tables, states: list[State]) -> dict[State, int]:
    """Plies to the next man move or capture by plain retrograde over dicts.

    Shares with :mod:`doublecorner.egtb.dtz` only the move generator and the
    tables' win/draw/loss values of the positions a restarting move reaches.
    """
    inside = set(states)
    value: dict[State, Value] = {}
    distance: dict[State, int] = {}
    open_moves: dict[State, int] = {}
    drawn_exit: set[State] = set()
    parents: dict[State, list[State]] = collections.defaultdict(list)
    frontier: list[State] = []
    for state in states:
        black, white, kings, turn = state
        children = generate_moves(black, white, kings, turn).tolist()
        open_moves[state] = 0
        won = False
        for child_black, child_white, child_kings, _ in children:
            child = (child_black, child_white, child_kings, 1 - turn)
            if child in inside and not _restarts(state, child[:3]):
                open_moves[state] += 1
                parents[child].append(state)
                continue
            after = tables.value(Position(child_black, child_white, child_kings,
                                          Color(1 - turn)))
            won |= after == Value.LOSS
            if after == Value.DRAW:
                drawn_exit.add(state)
        if not children or (not won and open_moves[state] == 0 and state not in drawn_exit):
            value[state], distance[state] = Value.LOSS, (1 if children else 0)
        elif won:
            value[state], distance[state] = Value.WIN, 1
        if state in value:
            frontier.append(state)
    frontier.sort(key=lambda state: distance[state])
    settle(frontier, parents, value, open_moves, distance=distance, never_lost=drawn_exit)
    return {state: distance.get(state, 0) for state in states}


@pytest.mark.parametrize(("men", "kings"), [
    ((1 << 9, 0), (1, 2)),  # a black man on 10 against two kings
    ((0, 1 << 20), (2, 1)),  # two black kings against a white man on 21 and a king
    ((1 << 9, 1 << 22), (1, 1)),  # men on 10 and 23, a king each: the block is its own mirror
])
def test_dtz_matches_an_independent_solver(egtb4: Tables, men: tuple[int, int],
                                           kings: tuple[int, int]) -> None:
    states = _block_states(*men, *kings)
    expected = _dtz_independently(egtb4, states)
    found = {state: egtb4.dtz(Position(*state[:3], Color(state[3]))) for state in states}
    assert found == expected
    assert max(expected.values()) > 1


def test_dtz_is_at_most_the_dtc_and_equals_it_without_men(egtb4: Tables) -> None:
    for name in ("0211", "1102", "0202"):
        material = Material(*map(int, name))
        dtc = egtb4.dtc_array(material)
        for index in range(0, material.size, 997):
            position = Position(*unrank_position(index, *material), Color.BLACK)
            if egtb4.value(position) != Value.WIN:
                continue
            dtz = egtb4.dtz(position)
            assert 0 < dtz <= dtc[index]
            if material.men == 0:
                assert dtz == dtc[index]


def test_a_solved_block_holds_its_mirror_and_agrees_with_the_probe(egtb4: Tables) -> None:
    position = Position.from_fen(LONG_WIN)
    flipped = Position(int(flip_board(position.white)), int(flip_board(position.black)),
                       int(flip_board(position.kings)), Color.WHITE)  # the same, colours swapped
    block = solve_block(egtb4, position.black, position.white, position.kings)
    assert block.dtz.shape[0] == 2 * block.size and not block.self_mirror
    index = int(rank_position(position.black, position.white, position.kings)) - block.base
    assert int(block.dtz[index]) == egtb4.dtz(position) == 31
    assert egtb4.dtz(flipped) == 31


def _restarted(before: Position, after: Position) -> bool:
    """Whether a man moved or a piece was taken: the 40-move count starts again."""
    return ((before.black & ~before.kings, before.white & ~before.kings)
            != (after.black & ~after.kings, after.white & ~after.kings)
            or (before.black | before.white).bit_count()
            != (after.black | after.white).bit_count())


def test_a_win_too_long_for_the_dtc_is_won_by_dtz_within_the_rule(egtb4: Tables) -> None:
    # 20 plies already counted: 20 + DTC 73 would pass 80, 20 + DTZ does not.
    clock = 20
    position = Position.from_fen(LONG_WIN)
    probe = egtb4.probe(position, halfmove_clock=clock)
    assert egtb4.dtc(position) == 73 and probe.dtz == 31
    assert probe.wins_within_the_rule(clock)
    assert not egtb4.probe(position).wins_within_the_rule(clock)  # DTC alone would not
    board = Board(LONG_WIN)
    while board.outcome(claim_draw=True) is None:  # a repetition would end it: a failure
        before = board.position()
        if board.turn == Color.BLACK:
            move = egtb4.probe(before, halfmove_clock=clock).best_moves[0]
        else:  # the loser puts the restart off as long as it can
            move = max(board.legal_moves, key=lambda reply: _delay(egtb4, board, reply))
        board.push(move)
        clock = 0 if _restarted(before, board.position()) else clock + 1
        assert clock < 80, f"the 40-move count ran out at {board.fen()}"
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None and outcome.winner == Color.BLACK


def _delay(tables: Tables, board: Board, move: Move) -> int:
    child = board.copy(stack=False)
    child.push(move)
    if _restarted(board.position(), child.position()):
        return -1
    return tables.dtz(child.position())


def test_the_engine_answers_such_a_win_from_the_tables(egtb4: Tables) -> None:
    from doublecorner.engine import Engine, Limit

    engine = Engine(hash_mb=1, tables=egtb4)
    result = engine.search(Position.from_fen(LONG_WIN), Limit(depth=2), halfmove_clock=20)
    assert result.depth == 0 and result.score.is_win  # from the tables, by DTZ
    assert result.move in egtb4.probe(Position.from_fen(LONG_WIN), 20).best_moves


def test_cli_probe_with_a_clock_prints_the_dtz(egtb4_dir: object,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["egtb", "probe", LONG_WIN, "--dir", str(egtb4_dir), "--clock", "20"]) == 0
    out = capsys.readouterr().out
    assert "73 plies to conversion" in out and "to the next man move or capture" in out
