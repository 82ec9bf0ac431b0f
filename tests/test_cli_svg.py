"""``doublecorner show --svg``, through main(argv) as a user would call it."""

from __future__ import annotations

from pathlib import Path

import pytest

from doublecorner import STARTING_FEN, Position, svg
from doublecorner.cli import main
from tests.test_svg import lightness, parse, with_class


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_show_svg_dash_prints_only_the_picture(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "show", "--svg", "-")
    assert (status, err) == (0, "")
    assert out == svg.board(Position.from_fen(STARTING_FEN))
    root = parse(out)
    assert len(with_class(root, "piece", "man")) == 24
    assert len(with_class(root, "coordinate", "number")) == 32  # numbers by default


def test_show_svg_file_writes_the_picture_instead_of_the_text_board(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "kings.svg"
    status, out, _ = run(capsys, "show", "W:WK15,20:BK28,12", "--svg", str(target),
                         "--style", "book", "--coordinates", "algebraic", "--flip")
    assert (status, out) == (0, "")
    root = parse(target.read_text(encoding="utf-8"))
    assert target.read_text(encoding="utf-8") == svg.board(
        Position.from_fen("W:WK15,20:BK28,12"), style=svg.Style.BOOK,
        coordinates=svg.Coordinates.ALGEBRAIC, flipped=True)
    playing = with_class(root, "square", "playing")
    assert all(lightness(square.get("fill")) > 240 for square in playing)  # a book diagram
    leftmost = min(with_class(root, "coordinate", "file"), key=lambda label: float(
        label.get("x", "nan")))
    assert leftmost.text == "h"


def test_show_svg_draws_the_other_themes_and_stacked_kings(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "show", "W:WK15,20:BK28,12", "--svg", "-", "--style", "wood",
                         "--kings", "stacked")
    assert status == 0
    assert out == svg.board(Position.from_fen("W:WK15,20:BK28,12"), style=svg.Style.WOOD,
                            kings=svg.Kings.STACKED)


def test_show_svg_without_coordinates(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "show", "--svg", "-", "--coordinates", "none")
    assert status == 0
    assert with_class(parse(out), "coordinate") == []


@pytest.mark.parametrize(("argv", "message"), [
    (["show", "--svg", "-", "--style", "fancy"], "invalid choice: 'fancy'"),
    (["show", "--svg", "-", "--coordinates", "roman"], "invalid choice: 'roman'"),
    (["show", "--style", "book"], "--style applies to the SVG picture"),
    (["show", "--coordinates", "none"], "--coordinates applies to the SVG picture"),
    (["show", "--kings", "stacked"], "--kings applies to the SVG picture"),
    (["show", "B:W1:B1", "--svg", "-"], "both sides"),
    (["show", "--svg"], "expected one argument"),
])
def test_bad_svg_options_exit_2_with_one_line(capsys: pytest.CaptureFixture[str],
                                              argv: list[str], message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert message in err and err.count("\n") == 1


def test_show_svg_reports_a_file_it_cannot_write(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    target = tmp_path / "missing" / "board.svg"
    status, out, err = run(capsys, "show", "--svg", str(target))
    assert (status, out) == (2, "")
    assert "does not exist" in err and str(target) in err and err.count("\n") == 1
