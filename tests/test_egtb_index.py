"""Ranking of endgame-table slices: perfect, round-tripping, and the published counts."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublecorner.egtb import Material, materials, total_positions
from doublecorner.kernel import generate_moves
from doublecorner.kernel.egtb_index import flip_board, rank_position, slice_size, unrank_position

BLACK_MEN = range(28)  # squares 1-28
WHITE_MEN = range(4, 32)  # squares 5-32


def _placements(material: Material) -> set[tuple[int, int, int]]:
    """Every placement of a material, enumerated directly (no ranking involved)."""
    found = set()
    for black_men in itertools.combinations(BLACK_MEN, material.black_men):
        for white_men in itertools.combinations(WHITE_MEN, material.white_men):
            if set(black_men) & set(white_men):
                continue
            free = [s for s in range(32) if s not in black_men and s not in white_men]
            for black_kings in itertools.combinations(free, material.black_kings):
                rest = [s for s in free if s not in black_kings]
                for white_kings in itertools.combinations(rest, material.white_kings):
                    black = sum(1 << s for s in black_men + black_kings)
                    white = sum(1 << s for s in white_men + white_kings)
                    kings = sum(1 << s for s in black_kings + white_kings)
                    found.add((black, white, kings))
    return found


@pytest.mark.parametrize("material", [Material(1, 0, 1, 0), Material(2, 0, 1, 0),
                                      Material(0, 1, 2, 0), Material(1, 1, 0, 1),
                                      Material(0, 2, 0, 1), Material(3, 0, 0, 1)])
def test_ranking_is_a_bijection_onto_the_placements(material: Material) -> None:
    placements = _placements(material)
    assert slice_size(*material) == len(placements)
    ranks = {rank_position(*placement) for placement in placements}
    assert ranks == set(range(len(placements)))
    for index in range(len(placements)):
        assert unrank_position(index, *material) in placements


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(materials(6)), st.data())
def test_unrank_then_rank_gives_the_index(material: Material, data: st.DataObject) -> None:
    index = data.draw(st.integers(0, material.size - 1))
    black, white, kings = unrank_position(index, *material)
    assert Material.of(black, white, kings) == material
    assert black & white == 0 and kings & ~(black | white) == 0
    assert black & ~kings & 0xF0000000 == 0 and white & ~kings & 0xF == 0
    assert rank_position(black, white, kings) == index


@pytest.mark.parametrize(("pieces", "published"), [
    (4, 6_408_836), (5, 145_859_644), (6, 2_571_945_320)])
def test_positions_match_the_published_totals(pieces: int, published: int) -> None:
    # The published figures count placements (each side at least one piece, men off
    # their own crowning row) once; the tables store each once, with Black to move,
    # and reach the White-to-move twin by flipping the board.
    assert total_positions(pieces) == published


def _children(black: int, white: int, kings: int, turn: int) -> set[tuple[int, ...]]:
    return {tuple(row[:3]) for row in generate_moves(black, white, kings, turn).tolist()}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(materials(5)), st.data())
def test_flipping_the_board_swaps_the_sides_moves(material: Material,
                                                  data: st.DataObject) -> None:
    black, white, kings = unrank_position(data.draw(st.integers(0, material.size - 1)),
                                          *material)
    flipped = (flip_board(white), flip_board(black), flip_board(kings))
    white_moves = {(flip_board(w), flip_board(b), flip_board(k))
                   for b, w, k in _children(*flipped, 1)}
    assert white_moves == _children(black, white, kings, 0)


def test_flip_turns_square_s_into_33_minus_s() -> None:
    squares = np.arange(32)
    assert [flip_board(1 << int(s)) for s in squares] == [1 << (31 - int(s)) for s in squares]
