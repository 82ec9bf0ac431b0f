"""Perft against the published counts: the ground truth for move generation."""

from __future__ import annotations

import pytest

from doublecorner import Board, Position
from doublecorner.perft import board_perft, divide, perft
from tests.conftest import read_tsv

PUBLISHED = {int(row["depth"]): int(row["nodes"]) for row in read_tsv("perft-start.tsv")}
START = Position.start()


@pytest.mark.parametrize("depth", range(10))
def test_kernel_perft_matches_published_counts(depth: int) -> None:
    expected = 1 if depth == 0 else PUBLISHED[depth]
    assert perft(START, depth) == expected


@pytest.mark.parametrize("depth", range(1, 7))
def test_board_api_perft_matches_published_counts(depth: int) -> None:
    assert board_perft(Board(), depth) == PUBLISHED[depth]


def test_divide_lists_every_root_move_and_sums_to_perft() -> None:
    rows = divide(START, 6)
    assert [str(move) for move, _ in rows] == [
        "9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    assert sum(count for _, count in rows) == PUBLISHED[6]


def test_divide_reports_its_progress_from_the_start() -> None:
    calls: list[tuple[int, int]] = []
    divide(START, 2, on_move_done=lambda done, total: calls.append((done, total)))
    assert calls == [(done, 7) for done in range(8)]  # (0, 7): the count has begun


def test_kernel_and_board_agree_on_positions_with_kings_and_multi_jumps() -> None:
    for fen in ("W:WK15,20:BK28,12", "B:W22,K5:BK15,K6", "W:WK30,22,16,K2:B21,14,13,K10",
                "B:WK10,13,K17,K23,32:B5,12,K22,K29,K31",
                "W:W30,29,22,21,9,6:B24,20,16,13,8,7"):
        for depth in range(1, 6):
            assert perft(Position.from_fen(fen), depth) == board_perft(Board(fen), depth), fen


def test_negative_depth_is_rejected() -> None:
    with pytest.raises(ValueError, match="-1"):
        perft(START, -1)
    with pytest.raises(ValueError, match="0"):
        divide(START, 0)
