"""Move: a value type holding a path of squares."""

from __future__ import annotations

import pickle

import pytest

from doublecorner import InvalidMoveError, Move


def test_step_and_capture_text() -> None:
    assert str(Move(11, 15)) == "11-15"
    assert str(Move(9, 18, 27)) == "9x18x27"
    assert str(Move(9, 18)) == "9x18"
    assert Move(9, 18).captures == (14,)
    assert Move(11, 15).captures == ()
    assert not Move(11, 15).is_capture


def test_moves_are_values() -> None:
    assert Move(9, 18, 27) == Move.parse("9x18x27")
    assert len({Move(9, 18, 27), Move.parse("9X18X27")}) == 1
    assert Move(9, 18, 27) != Move(9, 18)
    assert pickle.loads(pickle.dumps(Move(9, 18, 27))) == Move(9, 18, 27)
    assert eval(repr(Move(9, 18, 27))) == Move(9, 18, 27)
    with pytest.raises(AttributeError):
        Move(11, 15).path = (11, 16)  # type: ignore[misc]


@pytest.mark.parametrize("text,problem", [
    ("", "expected a step"),
    ("11", "expected a step"),
    ("11-", "expected a step"),
    ("11-33", "33 is not in 1-32"),
    ("0-5", "0 is not in 1-32"),
    ("11-17", "adjacent"),
    ("9x27", "short form"),
    ("9-18-27", "expected a step"),
    ("9x18-27", "expected a step"),
    ("eleven-fifteen", "expected a step"),
    ("a2-b3", "square a2 is a light square"),
    ("c3-d5", "square d5 is a light square"),
    ("c3-18", "not both"),
    ("c3-d5-e6", "expected a step"),
    ("i3-h4", "expected a step"),
    ("c3-e5", "adjacent"),
])
def test_parse_rejects_bad_text_and_says_why(text: str, problem: str) -> None:
    with pytest.raises(InvalidMoveError, match=problem) as error:
        Move.parse(text)
    assert repr(text) in str(error.value)


@pytest.mark.parametrize("path", [(11,), (11, 11), (1, 32), (0, 5), (9, 14, 18)])
def test_constructor_checks_geometry(path: tuple[int, ...]) -> None:
    with pytest.raises(InvalidMoveError):
        Move(*path)


@pytest.mark.parametrize("text,path", [
    ("c3-d4", (22, 18)), ("C3-D4", (22, 18)), (" f6-e5 ", (11, 15)), ("b8-a7", (1, 5)),
    ("h8-g7", (4, 8)), ("a1-b2", (29, 25)), ("g1-h2", (32, 28)),
    ("e3xc5", (23, 14)), ("c3xe5xg7", (22, 15, 8)), ("a1Xc3", (29, 22)),
])
def test_parse_reads_squares_named_a1_to_h8(text: str, path: tuple[int, ...]) -> None:
    assert Move.parse(text) == Move(*path)
