"""Invariants of Board over random games and random positions (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from doublecorner import Board, Move, Position, Termination
from tests.conftest import positions


def _sorted_moves(board: Board) -> list[Move]:
    return sorted(board.legal_moves, key=lambda move: move.path)


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 120))
def test_push_pop_restores_fen_key_and_moves(rng: random.Random, plies: int) -> None:
    board = Board()
    snapshots = []
    for _ in range(plies):
        moves = _sorted_moves(board)
        if not moves:
            break
        snapshots.append((board.fen(), board.zobrist_key(), moves, board.halfmove_clock))
        board.push(rng.choice(moves))
    while snapshots:
        fen, key, moves, clock = snapshots.pop()
        board.pop()
        assert (board.fen(), board.zobrist_key(), board.halfmove_clock) == (fen, key, clock)
        assert _sorted_moves(board) == moves


@settings(max_examples=150, deadline=None)
@given(positions())
def test_every_listed_move_pushes_and_reads_back_from_its_text(position: Position) -> None:
    board = Board.from_position(position)
    before = board.fen()
    for move in _sorted_moves(board):
        assert board.parse_move(str(move)) == move
        assert Move.parse(str(move)) == move
        board.push(move)
        assert board.turn == position.turn.opponent
        board.pop()
        assert board.fen() == before


@settings(max_examples=300, deadline=None)
@given(positions())
def test_fen_round_trips(position: Position) -> None:
    fen = position.fen()
    assert Position.from_fen(fen) == position
    assert Board(fen).fen() == fen
    assert Board(f'[FEN "{fen}."]').position() == position


@settings(max_examples=200, deadline=None)
@given(positions())
def test_zobrist_key_is_a_function_of_the_position(position: Position) -> None:
    twin = Position.from_fen(position.fen())
    assert twin.zobrist_key() == position.zobrist_key()
    assert 0 <= position.zobrist_key() < 2**64
    flipped = Position(position.black, position.white, position.kings, position.turn.opponent)
    assert flipped.zobrist_key() != position.zobrist_key()


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False))
def test_random_games_end_with_an_outcome_consistent_with_the_rules(rng: random.Random) -> None:
    board = Board()
    for _ in range(20000):
        outcome = board.outcome(claim_draw=True)  # as a referee, who claims draws at once
        if outcome is not None:
            break
        assert board.outcome() is None  # the board by itself ends no sooner
        board.push(rng.choice(_sorted_moves(board)))
    assert outcome is not None, board.fen()
    if outcome.termination is Termination.NO_MOVES:
        assert len(board.legal_moves) == 0
        assert outcome.winner is board.turn.opponent
        assert board.outcome() == outcome
    elif outcome.termination is Termination.FORTY_MOVE_RULE:
        assert outcome.winner is None and board.halfmove_clock >= 80
        assert board.outcome() is None  # unclaimed, the game goes on
    else:
        assert outcome.winner is None and board.is_repetition(3)
        assert board.outcome() is None
    assert board.is_game_over(claim_draw=True)
    # Replaying the move list from the start reaches the same end.
    replay = Board()
    for move in board.move_stack:
        replay.push(move)
    assert replay.fen() == board.fen() and replay.outcome(claim_draw=True) == outcome
