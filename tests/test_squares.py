"""Square numbering against the published table."""

from __future__ import annotations

import pytest

from doublecorner import InvalidSquareError, parse_square, square_name
from doublecorner.squares import square_file, square_row
from tests.conftest import read_tsv

TABLE = read_tsv("square-coordinates.tsv")


@pytest.mark.parametrize("row", TABLE, ids=lambda row: row["square"])
def test_square_names_match_the_reference_table(row: dict[str, str]) -> None:
    square = int(row["square"])
    assert square_name(square) == row["algebraic"]
    assert parse_square(row["algebraic"]) == square
    assert square_file(square) == int(row["file_index_0_7"])
    assert square_row(square) == int(row["row_from_top_0_7"])


def test_single_and_double_corners() -> None:
    assert square_name(29) == "a1"  # White's single corner, near left
    assert {square_name(28), square_name(32)} == {"h2", "g1"}  # White's double corner
    assert {square_name(1), square_name(5)} == {"b8", "a7"}  # Black's double corner
    assert square_name(4) == "h8"  # Black's single corner


@pytest.mark.parametrize("bad", [0, 33, -1, True, "5", 2.0])
def test_bad_squares_are_rejected_by_name(bad: object) -> None:
    with pytest.raises(InvalidSquareError, match="invalid square"):
        square_name(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["a2", "i1", "", "33", "b9"])
def test_bad_square_names_are_rejected(bad: str) -> None:
    with pytest.raises(InvalidSquareError) as error:
        parse_square(bad)
    assert repr(bad) in str(error.value)


@pytest.mark.parametrize("name", ["\u00b2", "\u0661\u0667", "\uff11\uff17", "\u0663",
                                  "\U0001d7cf\U0001d7d5", "1" * 5000, 17])
def test_parse_square_reads_only_ascii_notation(name: object) -> None:
    with pytest.raises(InvalidSquareError, match="invalid square"):
        parse_square(name)  # type: ignore[arg-type]
