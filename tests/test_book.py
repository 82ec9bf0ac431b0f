"""Opening books (doublecorner.book): the file format, damaged files, and books built from
small databases whose entries are counted by hand."""

from __future__ import annotations

import random
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from doublecorner import Board, Move, Position
from doublecorner.book import Book, BookError, BuildProgress, build_book
from doublecorner.book.format import CRC_OFFSET, ENTRY, HEADER, NO_SCORE, VERSION, encode_book
from doublecorner.book.move_code import MAX_SQUARES, move_code, move_from_code
from doublecorner.db import GameDatabase
from doublecorner.errors import InvalidMoveError

# Games 1-3 reach the position after 11-15 23-19 9-14 22-17 by two move orders; game 4
# leaves at White's first move; game 5 starts from a set-up position.
GAMES = """[Black "A"]
1. 11-15 23-19 2. 9-14 22-17 3. 8-11 1-0

[Black "B"]
1. 9-14 22-17 2. 11-15 23-19 3. 8-11 1/2-1/2

[Black "C"]
1. 11-15 23-19 2. 9-14 22-17 3. 5-9 0-1

[Black "D"]
1. 11-15 22-18 1-0

[Black "E"]
[FEN "B:W28:B1"]
1. 1-5 28-24 1-0
"""


def board_after(moves: str, fen: str | None = None) -> Board:
    board = Board() if fen is None else Board(fen)
    for text in moves.split():
        board.push_str(text)
    return board


def table(book: Book, moves: str, fen: str | None = None) -> list[tuple[str, int, int, int, int]]:
    """The book's entries after ``moves``: move, weight, wins, draws, losses."""
    return [(str(entry.move), entry.weight, entry.wins, entry.draws, entry.losses)
            for entry in book.entries(board_after(moves, fen))]


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GameDatabase]:
    folder = tmp_path_factory.mktemp("book")
    (folder / "games.pdn").write_text(GAMES, encoding="utf-8")
    with GameDatabase(folder / "games.sqlite3") as opened:
        summary = opened.import_files([folder / "games.pdn"])
        assert summary.imported == 5
        yield opened


# -- building from games --------------------------------------------------------------


def test_every_move_weighs_the_half_points_its_side_scored(database: GameDatabase) -> None:
    book = build_book(database, min_games=1)
    # Black: 11-15 won 2 (A, D) and lost 1 (C); 9-14 drew 1 (B).
    assert table(book, "") == [("11-15", 4, 2, 0, 1), ("9-14", 1, 0, 1, 0)]
    # White after 11-15: 23-19 won C, lost A; 22-18 lost D (weight 0: kept, never played).
    assert table(book, "11-15") == [("23-19", 2, 1, 0, 1), ("22-18", 0, 0, 0, 1)]
    # The position after four plies, reached by A, B, C by two orders: 8-11 won A, drew B.
    assert table(book, "11-15 23-19 9-14 22-17") == [("8-11", 3, 1, 1, 0), ("5-9", 0, 0, 0, 1)]
    assert table(book, "9-14 22-17 11-15 23-19") == table(book, "11-15 23-19 9-14 22-17")
    # A set-up game's start is a root of the book too.
    assert table(book, "", "B:W28:B1") == [("1-5", 2, 1, 0, 0)]
    assert table(book, "1-5", "B:W28:B1") == [("28-24", 0, 0, 0, 1)]


def test_min_games_keeps_the_moves_played_often_and_counts_transpositions(
        database: GameDatabase) -> None:
    book = build_book(database, min_games=2)
    assert table(book, "") == [("11-15", 4, 2, 0, 1)]
    assert table(book, "11-15") == [("23-19", 2, 1, 0, 1)]
    assert table(book, "11-15 23-19") == [("9-14", 2, 1, 0, 1)]
    assert table(book, "11-15 23-19 9-14") == [("22-17", 2, 1, 0, 1)]
    # 8-11 counts B, which came by the other order (9-14 has 1 game at the start).
    assert table(book, "11-15 23-19 9-14 22-17") == [("8-11", 3, 1, 1, 0)]
    assert book.positions == 5 and len(book) == 5


def test_max_plies_stops_the_book_that_far_from_the_start(database: GameDatabase) -> None:
    book = build_book(database, min_games=1, max_plies=1)
    assert [str(entry.move) for entry in book.entries(Board())] == ["11-15", "9-14"]
    assert book.entries(board_after("11-15")) == ()
    assert table(book, "", "B:W28:B1") == [("1-5", 2, 1, 0, 0)]
    assert book.positions == 2


def test_the_build_reports_its_progress_and_provenance(database: GameDatabase) -> None:
    steps: list[BuildProgress] = []
    book = build_book(database, min_games=2, max_plies=3, progress=steps.append)
    assert [step.ply for step in steps] == [0, 0, 1, 2]  # two roots, then one a ply
    assert steps[-1].entries == len(book) == 3
    step = book.provenance["steps"][0]
    assert (step["step"], step["games"], step["min_games"], step["max_plies"]) == (
        "build", 5, 2, 3)


def test_bad_build_options_are_refused(database: GameDatabase) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        build_book(database, min_games=0)


# -- choosing -------------------------------------------------------------------------


def test_choose_draws_by_weight_among_legal_moves_only(database: GameDatabase) -> None:
    book = build_book(database, min_games=1)
    drawn = [str(book.choose(Board(), random.Random(seed)).move)  # type: ignore[union-attr]
             for seed in range(400)]
    assert set(drawn) == {"11-15", "9-14"}
    assert 0.7 < drawn.count("11-15") / len(drawn) < 0.9  # 4 to 1
    same = [book.choose(Board(), random.Random(3)) for _ in range(2)]
    assert same[0] == same[1]
    # A weight of 0 is never drawn: after 11-15 22-18 is kept but 23-19 always comes.
    assert {str(book.choose(board_after("11-15"), random.Random(seed)).move)  # type: ignore[union-attr]
            for seed in range(50)} == {"23-19"}
    assert book.choose(board_after("11-15 22-18")) is None  # out of book
    assert board_after("11-15 22-18").position() not in book
    assert Board() in book


def test_an_entry_that_is_not_legal_in_its_position_is_never_played() -> None:
    start = Position.start()
    entries = np.array([(start.zobrist_key(), move_code(Move(22, 18)), 50, NO_SCORE, 1, 0, 0),
                        (start.zobrist_key(), move_code(Move(9, 13)), 1, NO_SCORE, 0, 1, 0)],
                       ENTRY)
    book = Book(entries, {})
    assert [str(entry.move) for entry in book.entries(start)] == ["9-13"]
    assert str(book.choose(start, random.Random(0)).move) == "9-13"  # type: ignore[union-attr]


def test_a_capture_route_is_matched_exactly() -> None:
    # The king on 22 takes 9, 10, 17 and 18 round the block either way: same ends, same
    # pieces, two routes; the book's entry names one of them.
    board = Board("B:W9,10,17,18:BK22")
    assert sorted(str(move) for move in board.legal_moves) == ["22x13x6x15x22",
                                                                "22x15x6x13x22"]
    chosen = Move(22, 15, 6, 13, 22)
    entries = np.array([(board.zobrist_key(), move_code(chosen), 5, 12, 0, 0, 0)], ENTRY)
    book = Book(entries, {})
    found = book.entries(board)
    assert [entry.move for entry in found] == [chosen] and found[0].score == 12
    assert all(book.choose(board, random.Random(seed)).move == chosen  # type: ignore[union-attr]
               for seed in range(20))


# -- the move code --------------------------------------------------------------------


@given(st.lists(st.integers(1, 32), min_size=2, max_size=MAX_SQUARES))
def test_move_codes_round_trip(path: list[int]) -> None:
    try:
        move = Move(*path)
    except InvalidMoveError:
        return
    assert move_from_code(move_code(move)) == move


def test_a_path_too_long_for_the_book_is_refused() -> None:
    with pytest.raises(ValueError, match="more than 12 squares"):
        move_code(Move(1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1))
    with pytest.raises(InvalidMoveError):
        move_from_code(1 << 60)


# -- the file -------------------------------------------------------------------------


def test_a_book_round_trips_through_its_file(database: GameDatabase, tmp_path: Path) -> None:
    book = build_book(database, min_games=1)
    path = tmp_path / "games.book"
    book.write(path)
    again = Book.open(path)
    assert again.path == path
    assert np.array_equal(again.array, book.array)
    assert again.provenance == book.provenance
    assert table(again, "11-15 23-19 9-14 22-17") == table(book, "11-15 23-19 9-14 22-17")
    keys = again.array["key"]
    assert (keys[1:] >= keys[:-1]).all()
    data = path.read_bytes()
    assert data.startswith(b"DCBOOK\x1a\n")
    assert struct.unpack_from("<H", data, 8)[0] == VERSION
    assert (len(data) - HEADER.size) % 8 == 0


@given(st.lists(st.tuples(st.integers(0, 2**64 - 1), st.sampled_from(
    [Move(11, 15), Move(9, 18, 27), Move(22, 18), Move(1, 10, 19, 26, 17)]),
    st.integers(0, 65535), st.integers(-32768, 32767), st.integers(0, 2**32 - 1)),
    max_size=20, unique_by=lambda row: (row[0], row[1])),
       st.dictionaries(st.text(max_size=5), st.integers()))
def test_any_entries_round_trip_through_the_bytes(rows: list[tuple[int, Move, int, int, int]],
                                                  provenance: dict[str, int]) -> None:
    from doublecorner.book.format import decode_book

    entries = np.array([(key, move_code(move), weight, score, count, count // 2, 0)
                        for key, move, weight, score, count in rows], ENTRY)
    contents = decode_book(encode_book(entries, provenance))
    assert contents.provenance == provenance
    assert sorted(contents.entries.tolist()) == sorted(entries.tolist())


def _with_crc(data: bytes) -> bytes:
    """``data`` with its checksum made right again (a damage the checksum cannot see)."""
    crc = zlib.crc32(data[HEADER.size:], zlib.crc32(data[:CRC_OFFSET]))
    return data[:CRC_OFFSET] + struct.pack("<I", crc) + data[HEADER.size:]


@pytest.fixture()
def good(database: GameDatabase) -> bytes:
    return encode_book(build_book(database, min_games=1).array, {"note": "test"})


def _damaged(good: bytes) -> dict[str, bytes]:
    entries_at = len(good) - 32 * 9
    swapped = bytearray(good)
    swapped[entries_at:entries_at + 64] = good[entries_at + 32:entries_at + 64] + good[
        entries_at:entries_at + 32]
    bad_move = bytearray(good)
    bad_move[entries_at + 15] = 0xF0  # a 15-square path
    return {
        "empty": b"",
        "cut in the magic": good[:5],
        "cut in the header": good[:20],
        "cut in the entries": good[:-7],
        "one entry short": good[:-32],
        "a byte more": good + b"\0",
        "another format": b"PK\x03\x04" + bytes(60),
        "text": b"[Event \"x\"]\n1. 11-15 *\n" * 4,
        "a flipped bit": good[:-3] + bytes([good[-3] ^ 4]) + good[-2:],
        "a flipped bit in the provenance": good[:HEADER.size + 2] + b"X" + good[HEADER.size + 3:],
        "newer": _with_crc(good[:8] + struct.pack("<H", VERSION + 1) + good[10:]),
        "older": _with_crc(good[:8] + struct.pack("<H", 0) + good[10:]),
        "another entry size": _with_crc(good[:10] + struct.pack("<H", 24) + good[12:]),
        "flags": _with_crc(good[:12] + struct.pack("<I", 1) + good[16:]),
        "other keys": _with_crc(good[:24] + struct.pack("<Q", 12345) + good[32:]),
        "provenance no JSON": _with_crc(good[:HEADER.size] + b"[" + good[HEADER.size + 1:]),
        "unsorted": _with_crc(bytes(swapped)),
        "no move": _with_crc(bytes(bad_move)),
    }


DAMAGES = {
    "empty": "is not a doublecorner opening book",
    "cut in the magic": "is cut short: 5 bytes, not even a whole header",
    "cut in the header": "is cut short: 20 bytes, not even a whole header",
    "cut in the entries": "is cut short",
    "one entry short": "is cut short",
    "a byte more": "is damaged: .* bytes where its header says",
    "another format": "is not a doublecorner opening book",
    "text": "is not a doublecorner opening book",
    "a flipped bit": "checksum",
    "a flipped bit in the provenance": "checksum",
    "newer": "is from a newer version of doublecorner \\(book format 2, this one reads 1\\)",
    "older": "is damaged: its header names book format 0",
    "another entry size": "24-byte entries",
    "flags": "flags 0x1",
    "other keys": "other position keys",
    "provenance no JSON": "provenance is not a JSON object",
    "unsorted": "not in order",
    "no move": "names no move",
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_every_damaged_file_is_one_clear_error_naming_it(damage: str, good: bytes,
                                                         tmp_path: Path) -> None:
    path = tmp_path / f"{damage}.book"
    path.write_bytes(_damaged(good)[damage])
    with pytest.raises(BookError, match=DAMAGES[damage]) as raised:
        Book.open(path)
    assert str(raised.value).startswith(repr(str(path)))
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_a_missing_or_unreadable_book_is_a_book_error(tmp_path: Path) -> None:
    with pytest.raises(BookError, match=r"cannot read the opening book .*missing\.book"):
        Book.open(tmp_path / "missing.book")
    with pytest.raises(BookError, match="cannot read the opening book"):
        Book.open(tmp_path)


def test_a_book_that_cannot_be_written_is_a_book_error(tmp_path: Path) -> None:
    book = Book(np.zeros(0, ENTRY), {})
    with pytest.raises(BookError, match="cannot write the opening book"):
        book.write(tmp_path / "no" / "such" / "folder.book")
    book.write(tmp_path / "empty.book")
    assert len(Book.open(tmp_path / "empty.book")) == 0
    assert not list(tmp_path.glob("*.tmp"))


def test_the_examples_of_docs_book_md_run() -> None:
    import doctest

    path = Path(__file__).resolve().parents[1] / "docs" / "book.md"
    failures, tried = doctest.testfile(str(path), module_relative=False,
                                       optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
