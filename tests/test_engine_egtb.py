"""The engine with endgame tables: answered at the root, probed inside the tree, said so,
and in play from the tables' positions: no value thrown away, every win converted within
the 40-move rule."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from doublecorner import Board, Color, Move, Position
from doublecorner.cli import main
from doublecorner.egtb import Tables, Value, build, load_tables, materials
from doublecorner.engine import Engine, Limit, Score
from doublecorner.kernel.egtb_index import flip_board, unrank_position

TWO_KINGS_AGAINST_ONE = "W:WK1:BK10,K14"  # White to move, lost
CAPTURE_INTO_THREE = "B:WK18,K30:BK14,K1"  # Black must jump 14x23, leaving three pieces


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("egtb3")
    build(3, directory)
    return directory


@pytest.fixture(scope="module")
def tables(table_dir: Path) -> Tables:
    return load_tables(table_dir, max_pieces=3)


def test_a_position_in_the_tables_is_answered_from_them(tables: Tables) -> None:
    result = Engine(hash_mb=1, tables=tables).search(Position.from_fen(TWO_KINGS_AGAINST_ONE),
                                                     Limit(depth=6))
    assert result.score.is_loss and result.score.is_table_result
    assert str(result.score) == "table loss" and result.table_hits == 1
    assert result.move in Board(TWO_KINGS_AGAINST_ONE).legal_moves


def test_the_search_scores_positions_it_reaches_from_the_tables(tables: Tables) -> None:
    position = Position.from_fen(CAPTURE_INTO_THREE)
    with_tables = Engine(hash_mb=1, tables=tables).search(position, Limit(depth=4))
    without = Engine(hash_mb=1, tables=None).search(position, Limit(depth=4))
    assert with_tables.table_hits > 0 and without.table_hits == 0
    assert with_tables.score.is_table_result
    assert with_tables.move in Board(CAPTURE_INTO_THREE).legal_moves


def test_a_table_win_the_forty_move_count_draws_is_a_draw_kept_by_the_tables(
        tables: Tables) -> None:
    position = Position.from_fen("B:WK1:BK10,K14")
    engine = Engine(hash_mb=1, tables=tables)
    assert engine.search(position, Limit(depth=4)).score.is_win  # from the tables
    late = engine.search(position, Limit(depth=4), halfmove_clock=79)
    # One ply left: the count draws it, but the move still keeps the win.
    assert late.depth == 0 and late.score == Score(0)
    assert late.move in tables.probe(position, halfmove_clock=79).best_moves


def test_a_win_whose_restart_comes_on_the_eightieth_ply_is_won_within_the_rule(
        egtb4: Tables) -> None:
    """B:WK21,25:BK2,K3 restarts the count 31 plies on with best play: from a count of 49
    the count reaches 79 before that move, which neither draws nor lets White claim."""
    position = Position.from_fen("B:WK21,25:BK2,K3")
    assert egtb4.probe(position, halfmove_clock=49).wins_within_the_rule(49)
    assert not egtb4.probe(position, halfmove_clock=50).wins_within_the_rule(50)
    result = Engine(hash_mb=1, tables=egtb4).search(position, Limit(depth=4), halfmove_clock=49)
    assert result.score.is_win and result.depth == 0


def test_analyse_says_when_it_used_the_tables(table_dir: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", TWO_KINGS_AGAINST_ONE, "--depth", "3", "--egtb",
                 str(table_dir)]) == 0
    out = capsys.readouterr().out
    assert "score table loss" in out and "tbhits 1" in out


FORTY_MOVE_PLIES = 80
SAMPLED = 600  # positions of 3 and 4 pieces, drawn from the tables with a fixed seed
PLAYED_OUT = 40  # won positions of them played to the end


def _sampled(tables: Tables, count: int, seed: int) -> list[Position]:
    """Positions drawn from the 3- and 4-piece slices, either side to move, each with a move."""
    chance = random.Random(seed)
    slices = [material for material in materials(4) if material.pieces >= 3]
    found: list[Position] = []
    while len(found) < count:
        material = chance.choice(slices)
        black, white, kings = (int(bits) for bits in
                               unrank_position(chance.randrange(material.size), *material))
        position = (Position(black, white, kings, Color.BLACK) if chance.random() < 0.5 else
                    Position(int(flip_board(white)), int(flip_board(black)),
                             int(flip_board(kings)), Color.WHITE))
        if Board.from_position(position).legal_moves:
            found.append(position)
    return found


def _clocks(tables: Tables, position: Position) -> list[int]:
    """Counts to start from: none, a high one, the last ply, and for a win the highest that
    its distance to conversion, or to the next man move or capture, still fits in (the move
    that restarts the count is the distance-th: the count reaches 79 before it)."""
    clocks = {0, 60, FORTY_MOVE_PLIES - 1}
    if tables.value(position) == Value.WIN:
        clocks.update(FORTY_MOVE_PLIES - distance
                      for distance in (tables.dtc(position), tables.dtz(position))
                      if distance <= FORTY_MOVE_PLIES)
    return sorted(clocks)


def _after(position: Position, move: Move) -> Position:
    board = Board.from_position(position)
    board.push(move)
    return board.position()


def _restarts_count(position: Position, move: Move) -> bool:
    """A capture or a man's move: the 40-move count starts again."""
    return move.is_capture or not position.kings >> (move.path[0] - 1) & 1


def test_from_a_table_draw_or_win_the_engine_never_moves_into_a_worse_value(
        egtb4: Tables) -> None:
    engine = Engine(hash_mb=4, tables=egtb4)
    checked = 0
    for position in _sampled(egtb4, SAMPLED, seed=28):
        value = egtb4.value(position)
        if value == Value.LOSS:
            continue
        for clock in _clocks(egtb4, position):
            engine.new_game()  # each search on its own, not helped by the last one's table
            move = engine.search(position, Limit(depth=6), halfmove_clock=clock).move
            assert move is not None
            left = egtb4.value(_after(position, move))  # for the opponent
            expected = Value.LOSS if value == Value.WIN else Value.DRAW
            assert left == expected, (f"{position.fen()} ({value.name}, count {clock}): "
                                      f"{move} leaves the opponent a {left.name}")
            checked += 1
    assert checked > SAMPLED  # draws and wins, at several counts each


def _defence_by_delay(tables: Tables, position: Position) -> Move:
    """The loser's move that puts the next restart of the count off longest."""
    def delay(move: Move) -> int:
        return -1 if _restarts_count(position, move) else tables.dtz(_after(position, move))
    return max(sorted(Board.from_position(position).legal_moves, key=lambda move: move.path),
               key=delay)


@pytest.mark.parametrize("defence", ["engine", "delay"])
def test_the_engine_converts_every_table_win_within_the_forty_move_rule(
        egtb4: Tables, defence: str) -> None:
    """From won positions, at counts up to the highest the win fits in, the engine wins
    against the engine (the tables' longest resistance) and against a defence that puts
    the restarts off: the count never reaches 80 before a restart, nor 79 where the loser
    could claim the draw with its next move, and nothing repeats."""
    attacker = Engine(hash_mb=4, tables=egtb4)
    defender = Engine(hash_mb=4, tables=egtb4)
    won = [position for position in _sampled(egtb4, 4 * PLAYED_OUT, seed=40)
           if egtb4.value(position) == Value.WIN][:PLAYED_OUT]
    assert len(won) == PLAYED_OUT
    for start in won:
        for first_clock in _clocks(egtb4, start):
            if first_clock + egtb4.dtz(start) > FORTY_MOVE_PLIES:
                continue  # the count draws it with best defence
            board, clock, winner = Board.from_position(start), first_clock, start.turn
            while board.legal_moves:
                position = board.position()
                at = f"{position.fen()} (from {start.fen()} at count {first_clock})"
                assert clock < FORTY_MOVE_PLIES, f"the count ran out at {at}"
                assert not board.is_repetition(3), f"a threefold repetition at {at}"
                if board.turn == winner:
                    move = attacker.search(position, Limit(depth=6),
                                           halfmove_clock=clock).move
                else:
                    assert clock < FORTY_MOVE_PLIES - 1 or all(
                        _restarts_count(position, reply) for reply in board.legal_moves), (
                        f"the loser can claim the draw at {at}")
                    move = (defender.search(position, Limit(depth=6), halfmove_clock=clock).move
                            if defence == "engine" else _defence_by_delay(egtb4, position))
                assert move is not None
                clock = 0 if _restarts_count(position, move) else clock + 1
                board.push(move)
            assert board.turn != winner, f"{start.fen()} at count {first_clock} was not won"
