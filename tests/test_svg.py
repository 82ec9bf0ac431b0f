"""SVG boards, read back with an XML parser: where things are drawn and in what colours."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings

from doublecorner import Board, Color, InvalidSquareError, Move, Position, svg
from tests.conftest import positions, read_tsv

SVG = "{http://www.w3.org/2000/svg}"
TABLE = read_tsv("square-coordinates.tsv")
KINGS_FEN = "W:WK15,20:BK28,12"
# A king on every square: Black on 1-16, White on 17-32.
FULL_BOARD = Position(0x0000FFFF, 0xFFFF0000, 0xFFFFFFFF, Color.BLACK)


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg"
    return root


def with_class(root: ET.Element, *names: str) -> list[ET.Element]:
    """The elements whose class attribute holds all of ``names``."""
    return [element for element in root.iter()
            if set(names) <= set(element.get("class", "").split())]


def piece_centre(root: ET.Element, square: int) -> tuple[float, float]:
    (piece,) = [element for element in with_class(root, "piece")
                if element.get("data-square") == str(square)]
    circle = piece.find(f"{SVG}circle")
    assert circle is not None
    return float(circle.get("cx", "nan")), float(circle.get("cy", "nan"))


def square_size(root: ET.Element) -> float:
    """The side of a square in user units, for a picture without a margin."""
    return float(root.get("viewBox", "").split()[2]) / 8


def rgb(colour: str | None) -> tuple[int, int, int]:
    assert colour is not None and re.fullmatch(r"#[0-9a-f]{6}", colour), colour
    red, green, blue = (int(colour[index:index + 2], 16) for index in (1, 3, 5))
    return red, green, blue


def lightness(colour: str | None) -> float:
    red, green, blue = rgb(colour)
    return 0.299 * red + 0.587 * green + 0.114 * blue


def fill_under(root: ET.Element, x: float, y: float) -> str | None:
    """The fill of the last-drawn board square (playing or not) that holds the point."""
    fill = None
    for rect in with_class(root, "square"):
        left, top = float(rect.get("x", "nan")), float(rect.get("y", "nan"))
        width, height = float(rect.get("width", "nan")), float(rect.get("height", "nan"))
        if left <= x < left + width and top <= y < top + height:
            fill = rect.get("fill")
    return fill


def test_picture_is_standalone_svg_with_size_title_and_description() -> None:
    root = parse(svg.board(Position.from_fen(KINGS_FEN), size=300, coordinates=None))
    assert root.get("viewBox") == "0 0 360 360"
    assert (root.get("width"), root.get("height")) == ("300", "300")
    title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
    assert title is not None and title.text == "Checkers position W:WK15,20:B12,K28"
    assert desc is not None and desc.text == (
        "White to move. Black: men on 12; kings on 28. White: men on 20; kings on 15.")


def test_size_none_leaves_the_size_to_the_page() -> None:
    root = parse(svg.board(Board(), size=None))
    assert root.get("width") is None and root.get("height") is None
    assert root.get("viewBox") == "0 0 360 360"


def test_men_and_kings_are_found_by_class_and_only_kings_wear_crowns() -> None:
    root = parse(svg.board(Position.from_fen(KINGS_FEN)))
    found = {(element.get("class"), element.get("data-square"))
             for element in with_class(root, "piece")}
    assert found == {("piece black man", "12"), ("piece black king", "28"),
                     ("piece white man", "20"), ("piece white king", "15")}
    assert len(with_class(root, "crown")) == 2
    for king in with_class(root, "piece", "king"):
        assert len(with_class(king, "crown")) == 1
    for man in with_class(root, "piece", "man"):
        assert with_class(man, "crown") == []


def test_start_position_has_twelve_red_and_twelve_white_men() -> None:
    root = parse(svg.board(Board()))
    black = {int(man.get("data-square", "0")) for man in with_class(root, "piece", "black", "man")}
    white = {int(man.get("data-square", "0")) for man in with_class(root, "piece", "white", "man")}
    assert (black, white) == (set(range(1, 13)), set(range(21, 33)))
    assert with_class(root, "crown") == []


@given(positions())
@settings(max_examples=40, deadline=None)
def test_every_piece_is_drawn_once_as_what_it_is(position: Position) -> None:
    root = parse(svg.board(position))
    drawn = {int(element.get("data-square", "0")): element.get("class")
             for element in with_class(root, "piece")}
    expected = {}
    for square in range(1, 33):
        piece = position.piece_at(square)
        if piece is not None:
            kind = "king" if piece.is_king else "man"
            expected[square] = f"piece {piece.color.name.lower()} {kind}"
    assert drawn == expected
    assert len(with_class(root, "piece")) == len(expected)


@pytest.mark.parametrize("style", list(svg.Style))
@pytest.mark.parametrize("flipped", [False, True])
def test_pieces_stand_where_the_reference_table_puts_their_squares(
        style: svg.Style, flipped: bool) -> None:
    root = parse(svg.board(FULL_BOARD, coordinates=None, flipped=flipped, style=style))
    size = square_size(root)
    for row in TABLE:
        file, top_row = int(row["file_index_0_7"]), int(row["row_from_top_0_7"])
        if flipped:  # White at the top: the board turned half a circle
            file, top_row = 7 - file, 7 - top_row
        expected = ((file + 0.5) * size, (top_row + 0.5) * size)
        assert piece_centre(root, int(row["square"])) == pytest.approx(expected), row


def test_the_single_corner_stays_at_each_players_left_in_both_styles() -> None:
    # Square 29 (a1) is White's near-left corner, square 4 (h8) Black's.
    for style in svg.Style:
        root = parse(svg.board(FULL_BOARD, coordinates=None, style=style))
        size = square_size(root)
        assert piece_centre(root, 29) == pytest.approx((size / 2, 7.5 * size))
        assert piece_centre(root, 4) == pytest.approx((7.5 * size, size / 2))


def test_tournament_board_is_green_and_buff_with_red_and_white_discs() -> None:
    root = parse(svg.board(Position.from_fen(KINGS_FEN)))
    for square in with_class(root, "square", "playing"):
        red, green, blue = rgb(square.get("fill"))
        assert green > red + 40 and green > blue + 40, square.attrib  # green
    (unused,) = with_class(root, "square", "unused")
    red, green, blue = rgb(unused.get("fill"))
    assert min(red, green) > 200 and red >= green > blue + 30  # buff: pale yellow-brown
    for disc in with_class(root, "piece", "black"):
        circle = disc.find(f"{SVG}circle")
        assert circle is not None
        red, green, blue = rgb(circle.get("fill"))
        assert red > green + 100 and red > blue + 100  # Black plays the red pieces
    for disc in with_class(root, "piece", "white"):
        circle = disc.find(f"{SVG}circle")
        assert circle is not None
        assert min(rgb(circle.get("fill"))) > 220


def test_pieces_sit_on_dark_squares_in_tournament_style_and_light_ones_in_books() -> None:
    position = Position.from_fen(KINGS_FEN)
    tournament = parse(svg.board(position, coordinates=None))
    book = parse(svg.board(position, coordinates=None, style=svg.Style.BOOK))
    for square in (12, 15, 20, 28):
        centre = piece_centre(tournament, square)
        assert piece_centre(book, square) == centre  # the same spot of the picture
        (x, y) = centre
        neighbour = (x - square_size(book), y)  # the square to its left: unused
        assert lightness(fill_under(tournament, *centre)) < lightness(
            fill_under(tournament, *neighbour))
        assert lightness(fill_under(book, *centre)) > lightness(fill_under(book, *neighbour))
        assert lightness(fill_under(book, *centre)) > 240  # printed white


def test_book_pieces_are_printed_black_and_white() -> None:
    root = parse(svg.board(Position.from_fen(KINGS_FEN), style=svg.Style.BOOK))
    fills = {element.get("class"): element.find(f"{SVG}circle") for element in
             with_class(root, "piece")}
    assert lightness(fills["piece black man"].get("fill")) < 40  # type: ignore[union-attr]
    assert lightness(fills["piece white king"].get("fill")) > 240  # type: ignore[union-attr]


@pytest.mark.parametrize("style", [svg.Style.WOOD, svg.Style.SLATE])
def test_the_other_colours_keep_the_tournament_boards_pieces_and_dark_playing_squares(
        style: svg.Style) -> None:
    position = Position.from_fen(KINGS_FEN)
    root = parse(svg.board(position, coordinates=None, style=style))
    tournament = parse(svg.board(position, coordinates=None))
    (unused,) = with_class(root, "square", "unused")
    for square in with_class(root, "square", "playing"):
        assert lightness(square.get("fill")) < lightness(unused.get("fill")) - 60, square.attrib
    for side in ("black", "white"):
        (man,) = with_class(root, "piece", side, "man")
        (theirs,) = with_class(tournament, "piece", side, "man")
        disc, tournament_disc = man.find(f"{SVG}circle"), theirs.find(f"{SVG}circle")
        assert disc is not None and tournament_disc is not None
        assert disc.get("fill") == tournament_disc.get("fill")  # red and white
        assert disc.attrib["cx"] == tournament_disc.attrib["cx"]


def test_a_stacked_king_is_two_men_one_above_the_other_inside_its_square() -> None:
    position = Position.from_fen(KINGS_FEN)
    root = parse(svg.board(position, coordinates=None, kings=svg.Kings.STACKED))
    assert with_class(root, "crown") == []
    size = square_size(root)
    for king in with_class(root, "piece", "king"):
        lower, upper = king.findall(f"{SVG}circle")
        assert lower.get("class") == "lower" and upper.get("class") is None
        assert lower.get("fill") == upper.get("fill") and lower.get("cx") == upper.get("cx")
        _, y = piece_centre(parse(svg.board(position, coordinates=None)),
                              int(king.get("data-square", "0")))
        low, high = float(lower.get("cy", "nan")), float(upper.get("cy", "nan"))
        assert high < y < low  # the upper man higher up the picture: its edge shows below
        radius = float(upper.get("r", "nan"))
        assert y - size / 2 < high - radius and low + radius < y + size / 2
    for man in with_class(root, "piece", "man"):
        assert len(man.findall(f"{SVG}circle")) == 1
    assert svg.board(position) == svg.board(position, kings=svg.Kings.CROWNED)


def marked(root: ET.Element, kind: str) -> set[int]:
    return {int(element.get("data-square", "0")) for element in with_class(root, kind)}


def test_last_move_defaults_to_the_last_move_made_on_a_board() -> None:
    board = Board()
    board.push_str("11-15")
    assert marked(parse(svg.board(board)), "last-move") == {11, 15}
    assert marked(parse(svg.board(board.position())), "last-move") == set()
    assert marked(parse(svg.board(board, last_move=(23, 19))), "last-move") == {19, 23}
    assert marked(parse(svg.board(Board())), "last-move") == set()


def test_last_move_of_a_capture_marks_every_square_it_visits() -> None:
    board = Board("B:W14,23:B9")
    board.push_str("9x27")
    assert marked(parse(svg.board(board)), "last-move") == {9, 18, 27}


def test_highlight_marks_the_squares_given() -> None:
    root = parse(svg.board(Board(), highlight=[1, 32, 32]))
    assert marked(root, "highlight") == {1, 32}
    assert len(with_class(root, "highlight")) == 2


def points_of(arrow: ET.Element) -> tuple[list[tuple[float, float]], tuple[float, float]]:
    """The points of an arrow's shaft and the tip of its head."""
    shaft, head = arrow.find(f"{SVG}path"), arrow.find(f"{SVG}polygon")
    assert shaft is not None and head is not None
    numbers = [float(value) for value in re.findall(r"-?[\d.]+", shaft.get("d", ""))]
    tip_x, tip_y = (float(value) for value in head.get("points", "").split()[0].split(","))
    return list(zip(numbers[::2], numbers[1::2], strict=True)), (tip_x, tip_y)


def test_arrows_run_from_square_to_square_and_a_capture_along_its_path() -> None:
    root = parse(svg.board(Board(), coordinates=None, arrows=[(22, 17), Move(9, 18, 27)]))
    centre = {row_square: piece_centre(parse(svg.board(FULL_BOARD, coordinates=None)),
                                       row_square) for row_square in (9, 17, 18, 22, 27)}
    step, capture = with_class(root, "arrow")
    shaft, tip = points_of(step)
    assert shaft[0] == pytest.approx(centre[22]) and tip == pytest.approx(centre[17])
    shaft, tip = points_of(capture)
    assert shaft[0] == pytest.approx(centre[9]) and shaft[1] == pytest.approx(centre[18])
    assert tip == pytest.approx(centre[27])


def test_an_arrow_from_a_square_to_itself_rings_the_square() -> None:
    root = parse(svg.board(Board(), coordinates=None, arrows=[(18, 18)]))
    (ring,) = with_class(root, "arrow")
    assert ring.tag == f"{SVG}circle" and ring.get("fill") == "none"
    centre = piece_centre(parse(svg.board(FULL_BOARD, coordinates=None)), 18)
    assert (float(ring.get("cx", "nan")), float(ring.get("cy", "nan"))) == centre


def test_square_numbers_label_each_playing_square() -> None:
    root = parse(svg.board(Board(), coordinates=svg.Coordinates.NUMBERS, flipped=True))
    labels = with_class(root, "coordinate", "number")
    assert sorted(int(label.text or "0") for label in labels) == list(range(1, 33))
    for label in labels:
        playing = [rect for rect in with_class(root, "square", "playing")
                   if rect.get("data-square") == label.text]
        x, y = float(label.get("x", "nan")), float(label.get("y", "nan"))
        assert fill_under(root, x, y) == playing[0].get("fill")
        assert float(playing[0].get("x", "nan")) <= x < float(playing[0].get("x", "nan")) + 45
        assert float(playing[0].get("y", "nan")) <= y < float(playing[0].get("y", "nan")) + 45


@pytest.mark.parametrize(("flipped", "files", "ranks"), [
    (False, "abcdefgh", "87654321"), (True, "hgfedcba", "12345678")])
def test_algebraic_coordinates_run_along_the_margin(flipped: bool, files: str,
                                                    ranks: str) -> None:
    root = parse(svg.board(Board(), coordinates=svg.Coordinates.ALGEBRAIC, flipped=flipped))
    assert root.get("viewBox") == "0 0 400 400"
    file_labels = sorted(with_class(root, "coordinate", "file"),
                         key=lambda label: float(label.get("x", "nan")))
    rank_labels = sorted(with_class(root, "coordinate", "rank"),
                         key=lambda label: float(label.get("y", "nan")))
    assert "".join(label.text or "" for label in file_labels) == files
    assert "".join(label.text or "" for label in rank_labels) == ranks
    assert with_class(root, "coordinate", "number") == []


def test_no_coordinates_draws_no_labels() -> None:
    root = parse(svg.board(Board(), coordinates=None))
    assert with_class(root, "coordinate") == [] and root.find(f".//{SVG}text") is None


def test_board_shows_itself_in_jupyter_as_the_default_picture() -> None:
    board = Board()
    assert board._repr_svg_() == svg.board(Board())
    board.push_str("9-14")
    assert board._repr_svg_() == svg.board(board)
    assert marked(parse(board._repr_svg_()), "last-move") == {9, 14}


def test_anything_with_a_board_method_is_drawn_as_its_board() -> None:
    class Node:
        def board(self) -> Board:
            board = Board()
            board.push_str("11-16")
            return board

    assert svg.board(Node()) == svg.board(Node().board())


@pytest.mark.parametrize(("call", "error"), [
    (lambda: svg.board(Board(), highlight=[33]), InvalidSquareError),
    (lambda: svg.board(Board(), arrows=[(0, 5)]), InvalidSquareError),
    (lambda: svg.board(Board(), arrows=[(5,)]), ValueError),
    (lambda: svg.board(Board(), arrows=["11-15"]), TypeError),  # type: ignore[list-item]
    (lambda: svg.board(Board(), size=0), ValueError),
    (lambda: svg.board(Board(), style="book"), TypeError),  # type: ignore[arg-type]
    (lambda: svg.board(Board(), kings="stacked"), TypeError),  # type: ignore[arg-type]
    (lambda: svg.board(Board(), coordinates="numbers"), TypeError),  # type: ignore[arg-type]
    (lambda: svg.board("B:W21-32:B1-12"), TypeError),  # type: ignore[arg-type]
], ids=["highlight", "arrow-square", "arrow-length", "arrow-text", "size", "style", "kings",
        "coordinates", "source"])
def test_bad_arguments_raise_precise_errors(call: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        call()  # type: ignore[operator]


def test_a_game_node_shows_itself_as_its_board() -> None:
    from doublecorner.pdn import Game

    game = Game()
    node = game.add_line([Move(11, 15), Move(23, 19)])
    assert node._repr_svg_() == svg.board(node.board())
    assert "last-move" in node._repr_svg_()
