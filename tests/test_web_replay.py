"""The web app's replay of stored games (doublecorner.web.state.replay) and its kept boards.

A replay that starts from a kept board must give the board a replay from the start gives:
the position, the history (repetitions, the forty-move count) and the legal moves.
"""

from __future__ import annotations

import dataclasses

import pytest

from doublecorner.board import Board
from doublecorner.web import state
from doublecorner.web.record import GameMode, GameRecord
from doublecorner.web.state import replay
from doublecorner.web.store import StoreError

# Kings shuffle after the men are gone: a line whose later plies repeat positions.
START = "W:WK30,K31:BK3,K4"
SHUFFLE = ("30-26", "3-7", "26-30", "7-3", "30-26", "3-7", "26-30", "7-3", "31-27")


def record(moves: tuple[str, ...], *, game_id: str = "g_replay", start: str = START
           ) -> GameRecord:
    return GameRecord(id=game_id, mode=GameMode.TWO_PLAYER, created="", updated="",
                      black="?", white="?", start_fen=start, moves=moves)


def from_the_start(moves: tuple[str, ...], start: str = START) -> Board:
    board = Board(start)
    for text in moves:
        board.push_str(text)
    return board


def same(board: Board, expected: Board) -> None:
    assert board.fen() == expected.fen()
    assert board.move_stack == expected.move_stack
    assert board.halfmove_clock == expected.halfmove_clock
    assert board.can_claim_threefold_repetition() == expected.can_claim_threefold_repetition()
    assert sorted(map(str, board.legal_moves)) == sorted(map(str, expected.legal_moves))


@pytest.fixture(autouse=True)
def no_kept_boards() -> None:
    state._replayed.clear()


def test_a_game_that_grows_is_replayed_from_its_kept_board_as_from_the_start() -> None:
    for plies in range(len(SHUFFLE) + 1):
        same(replay(record(SHUFFLE[:plies])), from_the_start(SHUFFLE[:plies]))
    assert state._replayed["g_replay"][1] == SHUFFLE


def test_a_move_taken_back_or_changed_is_replayed_from_the_start() -> None:
    replay(record(SHUFFLE))
    same(replay(record(SHUFFLE[:3])), from_the_start(SHUFFLE[:3]))
    other = (*SHUFFLE[:3], "7-2")
    same(replay(record(other)), from_the_start(other))


def test_another_start_position_under_the_same_id_is_not_taken_for_it() -> None:
    replay(record(("30-26",)))
    start = "W:WK30,K32:BK3,K4"
    same(replay(record(("30-26", "3-7"), start=start)),
         from_the_start(("30-26", "3-7"), start))


def test_the_caller_may_change_its_board_without_changing_what_is_kept() -> None:
    board = replay(record(SHUFFLE[:2]))
    board.push_str("26-22")
    board.push_str("7-11")
    same(replay(record(SHUFFLE[:4])), from_the_start(SHUFFLE[:4]))


def test_a_damaged_game_is_a_store_error_and_is_not_kept() -> None:
    replay(record(SHUFFLE[:2]))
    with pytest.raises(StoreError, match=r"g_replay.*damaged"):
        replay(record((*SHUFFLE[:2], "26-1")))
    assert state._replayed["g_replay"][1] == SHUFFLE[:2]


def test_at_most_so_many_games_are_kept_the_last_replayed(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(state, "REPLAYED_GAMES_KEPT", 3)
    for number in range(5):
        replay(dataclasses.replace(record(SHUFFLE[:1]), id=f"g_{number}"))
    replay(dataclasses.replace(record(SHUFFLE[:1]), id="g_2"))
    assert list(state._replayed) == ["g_3", "g_4", "g_2"]
