"""Reading PDN: the forms real files use, errors with line and column, streams and encodings."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from doublecorner import Board, Color, Move, PdnError
from doublecorner.pdn import (
    SKIP,
    Game,
    GameBuilder,
    HeadersBuilder,
    NotPdnError,
    PdnReader,
    Skip,
    Visitor,
    iter_games,
    read_game,
)
from doublecorner.pdn import nags as nag_codes

DATA = Path(__file__).with_name("data") / "pdn"


def read(text: str, *, strict: bool = False) -> Game:
    game = read_game(io.StringIO(text), strict=strict)
    assert game is not None
    return game


def moves_of(game: Game) -> list[str]:
    return [str(move) for move in game.mainline_moves()]


def error_at(text: str) -> tuple[int, int, str]:
    """The line, column and message of the first error, which strict mode must raise."""
    game = read(text)
    assert game.errors, text
    first = game.errors[0]
    with pytest.raises(PdnError) as raised:
        read(text, strict=True)
    assert (raised.value.line, raised.value.column, str(raised.value)) == (
        first.line, first.column, str(first))
    return first.line, first.column, str(first)


# -- the sample files -----------------------------------------------------------------


def test_every_quirk_of_the_sample_file_reads_without_errors() -> None:
    games = list(iter_games(DATA / "quirks.pdn", strict=True))
    assert [moves_of(game) for game in games] == [
        ["11-15", "23-19", "8-11", "22-17", "4-8", "17-13", "15-18", "24-20"],
        ["11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14"],
        ["1x10x19x12x3", "30-26", "5-9"],
        ["25x18x9x2x11x18"],
        ["9x18x27"],
        ["11-15", "23-19"],
        ["9-14", "22-18"],
    ]
    assert [game.result for game in games] == ["1/2-1/2", "*", "1-0", "0-1", "1-0", "*", "*"]
    assert games[1].headers["Black"] == "Müller"
    assert games[2].board().fen() == "B:W6,8,15,16,30:BK1,5"  # FEN without SetUp
    assert games[3].board().turn is Color.WHITE
    assert games[5].headers == {"Result": "*"}  # no tags: the result comes from the moves
    assert games[6].headers["Event"] == "Quirks: a game on the line of the last result"


def test_annotations_of_the_sample_game_land_on_their_moves() -> None:
    game = next(iter_games(DATA / "quirks.pdn"))
    assert game.headers["Opening"] == "Old Fourteenth"  # tags beyond the seven are kept
    assert list(game.headers)[-2:] == ["Opening", "Annotator"]
    assert game.comment == "A game comment over two lines."
    line = [game, *game.mainline()]
    assert line[3].variations[1].move == Move(22, 18)  # (2... 22-18 $2 ...) for 22-17
    assert line[3].variations[1].nags == {nag_codes.MISTAKE}
    assert line[5].nags == {nag_codes.GOOD_MOVE}  # 4-8!
    assert line[6].comment == "the Old Fourteenth"
    assert line[7].nags == {nag_codes.DUBIOUS_MOVE}  # 15-18?!
    alternative = line[6].variations[1]  # (4. 9-14 ; a line comment ...)
    assert alternative.move == Move(9, 14) and alternative.comment == "a line comment"
    assert [str(node.move) for node in alternative.variations] == ["27-23", "26-22"]
    assert line[8].nags == {14}


def test_the_broken_sample_records_each_fault_and_reads_every_game() -> None:
    games = list(iter_games(DATA / "broken.pdn"))
    assert [game.headers["Event"] for game in games] == [
        "Good", "Illegal move", "Bad FEN", "Ambiguous short form", "No result",
        "Not English draughts", "Also good"]
    faults = [[(error.line, error.column) for error in game.errors] for game in games]
    assert faults == [[], [(9, 24)], [(12, 1)], [(19, 6)], [(23, 15), (23, 33)], [(26, 1)], []]
    assert moves_of(games[1]) == ["11-15", "23-19", "8-11"]  # up to the illegal move
    assert "illegal move '24-19'" in str(games[1].errors[0])
    assert "square 33 is outside 1-32" in str(games[2].errors[0])
    assert "ambiguous" in str(games[3].errors[0]) and "25x18x9x2x11x18" in str(games[3].errors[0])
    assert "GameType '20'" in str(games[5].errors[0]) and games[5].result == "2-0"


# -- move text --------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["11-15", "11x15", "11X15", "11:15"])
def test_every_separator_names_a_plain_move(text: str) -> None:
    assert read(f"1. {text} *", strict=True).mainline_moves() == [Move(11, 15)]


@pytest.mark.parametrize("text", ["9x27", "9x18x27", "9X18X27", "9:27", "9-18-27", "9x18-27"])
def test_a_double_jump_in_full_or_short_form(text: str) -> None:
    game = read(f'[FEN "B:W14,23:B9"]\n1. {text} 1-0', strict=True)
    assert game.mainline_moves() == [Move(9, 18, 27)]


def test_a_king_jump_written_with_hyphens() -> None:
    game = read('[FEN "B:W6,8,15,16,30:BK1,5"]\n1. 1-10-19-12-3 *', strict=True)
    assert game.mainline_moves() == [Move(1, 10, 19, 12, 3)]


@pytest.mark.parametrize("text", [
    "1. 11-15 23-19 2. 8-11 *",
    "1.11-15 23-19 2.8-11 *",
    "1. 11-15 1... 23-19 2. 8-11 *",
    "1. 11-15 1. ... 23-19 2. 8-11 *",
    "11-15 23-19 8-11 *",
    "1. 11-15\n23-19\n\n2. 8-11\n*",
])
def test_move_numbers_in_any_form_or_none(text: str) -> None:
    assert moves_of(read(text, strict=True)) == ["11-15", "23-19", "8-11"]


def test_move_numbers_are_not_checked() -> None:
    assert moves_of(read("7. 11-15 3... 23-19 *", strict=True)) == ["11-15", "23-19"]


# -- results and game boundaries -----------------------------------------------------------


@pytest.mark.parametrize(("result", "winner"), [
    ("1-0", Color.BLACK), ("0-1", Color.WHITE), ("1/2-1/2", None), ("*", None)])
def test_each_result_ends_a_game(result: str, winner: Color | None) -> None:
    games = list(iter_games(io.StringIO(f"1. 11-15 {result} 1. 9-14 *")))
    assert [moves_of(game) for game in games] == [["11-15"], ["9-14"]]
    assert games[0].result == result and games[0].winner() is winner


def test_a_result_tag_is_kept_and_a_missing_one_is_filled_in() -> None:
    assert read('[Result "1-0"]\n1. 11-15 *').result == "1-0"
    assert read('[Result "*"]\n1. 11-15 0-1').result == "0-1"
    assert read("1. 11-15 1/2-1/2").headers == {"Result": "1/2-1/2"}


def test_a_game_without_a_result_is_ended_by_the_next_tags() -> None:
    games = list(iter_games(io.StringIO('[Event "a"]\n1. 11-15\n[Event "b"]\n1. 9-14 *\n')))
    assert [moves_of(game) for game in games] == [["11-15"], ["9-14"]]
    assert [(error.line, error.column) for error in games[0].errors] == [(2, 9)]
    assert "no result" in str(games[0].errors[0]) and not games[1].errors


def test_a_game_without_a_result_at_the_end_of_the_file() -> None:
    assert error_at("1. 11-15 23-19")[:2] == (1, 15)


@pytest.mark.parametrize("text", ["", "   \n\n", "% only an escape line\n", "{a comment}\n",
                                  "; a comment\n"])
def test_text_without_a_game_gives_none(text: str) -> None:
    assert read_game(io.StringIO(text)) is None
    assert list(iter_games(io.StringIO(text), strict=True)) == []


def test_tags_and_moves_may_share_a_line() -> None:
    game = read('[Event "a"] [Round "2"] 1. 11-15 *', strict=True)
    assert game.headers == {"Event": "a", "Round": "2", "Result": "*"}
    assert moves_of(game) == ["11-15"]


def test_escaped_quotes_and_backslashes_in_tag_values() -> None:
    game = read('[Event "the \\"big\\" one \\\\ 2"]\n*', strict=True)
    assert game.headers["Event"] == 'the "big" one \\ 2'


# -- set-up positions and game types ----------------------------------------------------------


@pytest.mark.parametrize("setup", ['[SetUp "1"]\n', ""])
def test_a_fen_tag_sets_the_start_with_or_without_set_up(setup: str) -> None:
    game = read(f'{setup}[FEN "W:W18:B14"]\n1... 18x9 0-1', strict=True)
    assert game.board().fen() == "W:W18:B14"
    assert game.mainline_moves() == [Move(18, 9)]


def test_a_bad_fen_is_an_error_at_its_tag_and_the_moves_are_not_read() -> None:
    line, column, message = error_at('[Event "x"]\n  [FEN "B:W99:B1"]\n1. 1-5 *')
    assert (line, column) == (2, 3) and "bad FEN tag" in message and "99" in message
    assert read('[FEN "B:W99:B1"]\n1. 1-5 *').mainline_moves() == []


def test_a_fen_with_a_huge_number_is_an_error_not_a_crash() -> None:
    game = read(f'[FEN "B:W{"9" * 5000}:B1"]\n*')
    assert len(game.errors) == 1 and "bad FEN tag" in str(game.errors[0])


@pytest.mark.parametrize("game_type", ["21", "21,B,8,8,N1,0"])
def test_english_draughts_game_types_are_read(game_type: str) -> None:
    game = read(f'[GameType "{game_type}"]\n1. 11-15 *', strict=True)
    assert moves_of(game) == ["11-15"]


def test_another_game_type_is_an_error() -> None:
    line, column, message = error_at('[GameType "20,W,10,10,N2,0"]\n1. 32-28 2-0')
    assert (line, column) == (1, 1) and "not English draughts" in message


# -- comments, NAGs and variations ------------------------------------------------------------


def test_comments_before_after_and_at_the_start_of_a_variation() -> None:
    game = read("{start} 1. 11-15 {after 11-15} 23-19 ({why not} 1... 22-18 {bold}) *",
                strict=True)
    assert game.comment == "start"
    first = game.variations[0]
    assert first.comment == "after 11-15"
    main, alternative = first.variations
    assert main.move == Move(23, 19) and main.comment == ""
    assert alternative.starting_comment == "why not" and alternative.comment == "bold"


def test_comments_over_lines_are_joined_and_semicolon_comments_end_at_the_line() -> None:
    game = read("1. 11-15 {one\n  two\n\nthree} 23-19 ; four  five\n2. 8-11 *", strict=True)
    first, second = game.variations[0], game.variations[0].variations[0]
    assert first.comment == "one two three" and second.comment == "four five"
    assert moves_of(game) == ["11-15", "23-19", "8-11"]


def test_percent_lines_are_skipped_but_not_inside_comments() -> None:
    game = read("1. 11-15 {a\n% b}\n% 23-19 is not read\n22-18 *", strict=True)
    assert game.variations[0].comment == "a % b"
    assert moves_of(game) == ["11-15", "22-18"]


def test_two_comments_on_one_move_are_joined() -> None:
    assert read("1. 11-15 {a} {b} *").variations[0].comment == "a b"


@pytest.mark.parametrize(("mark", "nag"), [
    ("!", 1), ("?", 2), ("!!", 3), ("??", 4), ("!?", 5), ("?!", 6)])
def test_marks_attached_or_apart_are_nags(mark: str, nag: int) -> None:
    assert read(f"1. 11-15{mark} *", strict=True).variations[0].nags == {nag}
    assert read(f"1. 11-15 {mark} *", strict=True).variations[0].nags == {nag}


def test_numeric_nags_from_0_to_255() -> None:
    game = read("1. 11-15 $0 $14 $255 *", strict=True)
    assert game.variations[0].nags == {0, 14, 255}


@pytest.mark.parametrize(("text", "column", "words"), [
    ("1. 11-15 $256 *", 10, "bad NAG '$256'"),
    ("1. 11-15 $ *", 10, "bad NAG '$'"),
    ("1. 11-15 $99999999999999999999 *", 10, "bad NAG"),
    ("1. 11-15!!! *", 9, "unknown move mark '!!!'"),
    ("$1 1. 11-15 *", 1, "before any move"),
])
def test_bad_annotations_are_errors(text: str, column: int, words: str) -> None:
    line, found_column, message = error_at(text)
    assert (line, found_column) == (1, column) and words in message


def test_nested_variations_replace_the_move_before_them() -> None:
    game = read("1. 11-15 23-19 (22-18 (24-20 15-18?) 15x22 25x18 (26x17)) (21-17) 2. 8-11 *",
                strict=True)
    after = game.variations[0]
    assert [str(node.move) for node in after.variations] == ["23-19", "22-18", "24-20", "21-17"]
    assert after.variations[2].variations[0].nags == {nag_codes.MISTAKE}  # 15-18?
    jump = after.variations[1].variations[0]
    assert jump.move == Move(15, 22)
    assert [str(node.move) for node in jump.variations] == ["25x18", "26x17"]
    assert moves_of(game) == ["11-15", "23-19", "8-11"]
    sideline = after.variations[1].variations[0].variations[0]
    assert sideline.move == Move(25, 18) and not sideline.is_mainline()


def test_an_illegal_move_in_a_variation_skips_only_that_variation() -> None:
    game = read("1. 11-15 23-19 (22-18 5-1 15x22) 2. 8-11 *")
    assert moves_of(game) == ["11-15", "23-19", "8-11"]
    assert [str(node.move) for node in game.variations[0].variations] == ["23-19", "22-18"]
    assert game.variations[0].variations[1].is_end()  # nothing after the illegal 5-1
    assert [(error.line, error.column) for error in game.errors] == [(1, 23)]


@pytest.mark.parametrize(("text", "where", "words"), [
    ("1. 11-15 23-19 ) 2. 8-11 *", (1, 16), "')' closes no variation"),
    ("(1. 11-15) *", (1, 1), "must follow the move"),
    ("1. 11-15 (9-14 *", (1, 16), "result '*' inside a variation"),
    ("1. 11-15 23-19 (22-18", (1, 16), "never closed"),
    ("1. 11-15 {open comment", (1, 10), "never closed with '}'"),
    ("1. 11-15 23-19 wat 2. 8-11 *", (1, 16), "unexpected 'wat'"),
    ("1. 11-15 } *", (1, 10), "unexpected '}'"),
    ("1. 11-15 23-19 [Event] *", (1, 16), "unexpected '[Event]'"),
    ('[Event "x"\n1. 11-15 *', (1, 1), "malformed tag"),
    ("1. 11-15 99-98 *", (1, 10), "square 99 is not in 1-32"),
    ("1. 11-15 111-15 *", (1, 10), "invalid move '111-15'"),
])
def test_syntax_errors_name_their_line_and_column(text: str, where: tuple[int, int],
                                                 words: str) -> None:
    line, column, message = error_at(text)
    assert (line, column) == where and words in message, message


def test_a_lenient_reader_goes_on_to_the_next_game_after_errors() -> None:
    text = "1. 11-15 11-16 2. 8-11 ) wat *\n\n[Event \"next\"]\n1. 9-14 *\n"
    first, second = iter_games(io.StringIO(text))
    assert moves_of(first) == ["11-15"] and len(first.errors) == 3
    assert second.headers["Event"] == "next" and moves_of(second) == ["9-14"]
    assert not second.errors


def test_strict_mode_raises_at_the_first_problem() -> None:
    games = iter_games(io.StringIO("1. 11-15 *\n1. 11-15 11-16 *\n1. 9-14 *"), strict=True)
    assert moves_of(next(games)) == ["11-15"]
    with pytest.raises(PdnError, match="line 2, column 10: illegal move '11-16'"):
        next(games)


# -- streams and encodings -----------------------------------------------------------------


def test_latin1_and_utf8_with_a_byte_order_mark() -> None:
    latin = read_game((DATA / "latin1.pdn").open("rb"), strict=True)
    assert latin is not None
    assert latin.headers["Black"] == "Müller" and latin.headers["White"] == "Françoise"
    assert latin.variations[0].variations[0].comment == "Müller thinks"
    bom = read_game((DATA / "bom.pdn").open("rb"), strict=True)
    assert bom is not None
    assert bom.headers["Event"].startswith("UTF-8") and bom.headers["Black"] == "Łukasz"


def test_a_text_stream_with_a_byte_order_mark() -> None:
    game = read('\ufeff[Event "x"]\r\n1. 11-15 *\r\n', strict=True)
    assert game.headers["Event"] == "x" and moves_of(game) == ["11-15"]


def test_a_file_mixing_encodings_is_decoded_line_by_line() -> None:
    data = '[Black "Müller"]\n'.encode() + '[White "Müller"]\n'.encode("latin-1") + b"*\n"
    game = read_game(io.BytesIO(data), strict=True)
    assert game is not None and game.headers["Black"] == game.headers["White"] == "Müller"


class GamesForever(io.RawIOBase):
    """A binary stream of endless games that counts the lines read from it."""

    def __init__(self, *, fail_after_lines: int | None = None) -> None:
        self.lines_read = 0
        self.fail_after_lines = fail_after_lines
        self._lines = self._generate()

    def _generate(self) -> Iterator[bytes]:
        number = 0
        while True:
            number += 1
            yield from (f'[Event "{number}"]\n'.encode(), b"\n", b"1. 11-15 23-19\n",
                        b"2. 8-11 22-17 *\n", b"\n")

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> bytes:
        self.lines_read += 1
        if self.fail_after_lines is not None and self.lines_read > self.fail_after_lines:
            raise AssertionError("the reader read too far")
        return next(self._lines)


def test_reading_one_game_reads_only_its_lines() -> None:
    stream = GamesForever(fail_after_lines=4)
    game = read_game(stream, strict=True)  # type: ignore[arg-type]
    assert game is not None and game.headers["Event"] == "1" and len(moves_of(game)) == 4
    assert stream.lines_read == 4


def test_iterating_an_endless_stream_is_lazy() -> None:
    stream = GamesForever()
    games = iter_games(stream)  # type: ignore[arg-type]
    events = [next(games).headers["Event"] for _ in range(3)]
    assert events == ["1", "2", "3"]
    assert stream.lines_read <= 3 * 5 + 1


def test_the_reader_tells_its_line_number() -> None:
    reader = PdnReader(io.StringIO("\n1. 11-15 *\n\n1. 9-14\n*\n"))
    reader.read_game()
    assert reader.line_number == 2
    reader.read_game()
    assert reader.line_number == 5


def test_a_path_is_opened_and_read(tmp_path: Path) -> None:
    path = tmp_path / "one.pdn"
    path.write_bytes("[Black \"Müller\"]\n1. 11-15 *\n".encode("latin-1"))
    assert [game.headers["Black"] for game in iter_games(str(path))] == ["Müller"]
    assert [game.headers["Black"] for game in iter_games(path)] == ["Müller"]


# -- visitors ---------------------------------------------------------------------------------


class Recorder(Visitor[list[str]]):
    """Writes down every call (a move with the plies on its board), to check their order."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def begin_game(self) -> None:
        self.calls.append("begin_game")

    def visit_header(self, name: str, value: str) -> None:
        self.calls.append(f"[{name}={value}]")

    def end_headers(self) -> None:
        self.calls.append("end_headers")

    def visit_move(self, board: Board, move: Move) -> None:
        self.calls.append(f"{move}@{len(board.move_stack)}")

    def visit_comment(self, comment: str) -> None:
        self.calls.append(f"{{{comment}}}")

    def visit_nag(self, nag: int) -> None:
        self.calls.append(f"${nag}")

    def begin_variation(self) -> None:
        self.calls.append("(")

    def end_variation(self) -> None:
        self.calls.append(")")

    def visit_result(self, result: str) -> None:
        self.calls.append(result)

    def end_game(self) -> None:
        self.calls.append("end_game")

    def result(self) -> list[str]:
        return self.calls


def test_the_reader_calls_a_visitor_in_the_order_of_the_text() -> None:
    text = '[Event "e"]\n{c0} 1. 11-15! {c1} 23-19 ({c2} 22-18 $14) 1-0'
    assert read_game(io.StringIO(text), visitor=Recorder()) == [
        "begin_game", "[Event=e]", "end_headers", "{c0}", "11-15@0", "$1", "{c1}", "23-19@1",
        "(", "{c2}", "22-18@1", "$14", ")", "1-0", "end_game"]


def test_the_default_visitor_raises_errors_even_when_reading_leniently() -> None:
    with pytest.raises(PdnError, match="illegal move"):
        read_game(io.StringIO("1. 11-15 11-16 *"), visitor=Recorder())


class SkipVariations(GameBuilder):
    def begin_variation(self) -> Skip:
        return SKIP


def test_a_visitor_may_skip_variations() -> None:
    game = read_game(io.StringIO("1. 11-15 (9-14 {x} 22-18 5-1) 23-19 *"),
                     visitor=SkipVariations())
    assert moves_of(game) == ["11-15", "23-19"] and game.variations[0].comment == ""
    assert len(game.variations) == 1 and not game.errors  # a skipped variation is not read


def test_headers_builder_skips_the_moves_and_their_errors() -> None:
    text = '[Event "a"]\n1. 11-15 11-16 *\n[Event "b"]\n1. 9-14 *\n'
    reader = PdnReader(io.StringIO(text), strict=True)
    assert reader.read_game(HeadersBuilder()) == {"Event": "a"}
    assert reader.read_game(HeadersBuilder()) == {"Event": "b"}
    assert reader.read_game(HeadersBuilder()) is None


class SkipGame(Visitor[str]):
    def begin_game(self) -> Skip:
        return SKIP

    def result(self) -> str:
        return "skipped"


def test_a_visitor_may_skip_whole_games() -> None:
    reader = PdnReader(io.StringIO("1. 11-15 (x *\n1. 9-14 *"), strict=True)
    assert reader.read_game(SkipGame()) == "skipped"
    game = reader.read_game()
    assert game is not None and moves_of(game) == ["9-14"]


# -- the end of a game, the Result tag, and streams that are no PDN (issue 15) ---------------

# Kings shuffling 1-6 / 32-27 and back: the start position occurs a third time after
# 8 plies; nobody claims the draw, and the record goes on.
REPEATING = ('[FEN "B:WK32:BK1"]\n[Result "RESULT"]\n'
             "1. 1-6 32-27 2. 6-1 27-32 3. 1-6 32-27 4. 6-1 27-32 5. 1-6 32-27 RESULT\n")


@pytest.mark.parametrize("result", ["1/2-1/2", "1-0", "*"])
def test_moves_after_an_unclaimed_threefold_repetition_are_read(result: str) -> None:
    game = read(REPEATING.replace("RESULT", result), strict=True)
    assert moves_of(game)[8:] == ["1-6", "32-27"]
    assert game.errors == []
    assert game.result == result  # the Result tag says how the game ended, not the moves


def test_moves_after_forty_quiet_moves_are_read() -> None:
    # Each king circles its own far corner: no man moves and nothing is taken, and the
    # pair of squares repeats only every 24 moves, so no threefold repetition meets it.
    black, white = [3, 8, 12, 16, 19, 15, 10, 7], [30, 25, 21, 17, 22, 26]
    plies = [f"{cycle[k % len(cycle)]}-{cycle[(k + 1) % len(cycle)]}"
             for k in range(41) for cycle in (black, white)]
    game = read(f'[FEN "B:WK30:BK3"]\n[Result "0-1"]\n{" ".join(plies)} 0-1\n', strict=True)
    assert moves_of(game) == plies and len(plies) == 82
    assert game.errors == [] and game.result == "0-1"
    assert game.end().board().outcome(claim_draw=True) is not None


def test_a_move_when_the_side_has_no_move_is_a_fault() -> None:
    game = read_game(io.StringIO('[FEN "W:W18:B14"]\n1... 18x9 9-5 0-1\n'))
    assert game is not None and len(game.mainline_moves()) == 1
    assert "Black has no legal moves" in str(game.errors[0])


@pytest.mark.parametrize(("tag", "movetext", "faulty"), [
    ("1-0", "0-1", True), ("1/2-1/2", "*", True), ("0-1", "0-1", False),
    (" 1-0 ", "1-0", False),
])
def test_a_result_tag_that_disagrees_with_the_moves_is_a_fault(tag: str, movetext: str,
                                                               faulty: bool) -> None:
    game = read_game(io.StringIO(f'[Result "{tag}"]\n1. 11-15 {movetext}\n'))
    assert game is not None
    assert bool(game.errors) is faulty
    if faulty:
        assert f"the Result tag says '{tag}', the moves end with '{movetext}'" in str(
            game.errors[0])
        assert (game.errors[0].line, game.errors[0].column) == (2, 10)


@pytest.mark.parametrize("data", [
    b"\x7fELF\x02\x01\x01\x00\x00\x00\n1. 11-15 *\n",
    b"[Event \"x\"]\n1. 11-15 \x00 *\n",
    b"1. 11-15 " + b"9" * (2 << 20),
])
def test_binary_data_is_not_a_pdn_file_in_either_mode(data: bytes) -> None:
    for strict in (False, True):
        with pytest.raises(NotPdnError, match="not a PDN file"):
            list(iter_games(io.BytesIO(data), strict=strict))


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_with_a_byte_order_mark_is_read(encoding: str) -> None:
    text = ('[Black "M\u00fcller"]\r\n[White "\u00d8degaard"]\r\n1. 11-15 23-19 1-0\r\n\r\n'
            "1. 9-13 *\r\n")
    data = "\ufeff".encode(encoding) + text.encode(encoding)
    games = list(iter_games(io.BytesIO(data)))
    assert [(game.headers.get("Black"), len(game.mainline_moves()), game.errors)
            for game in games] == [("M\u00fcller", 2, []), (None, 1, [])]
    assert games[0].headers["White"] == "\u00d8degaard"
