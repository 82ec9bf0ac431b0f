"""Self-play records: the format round-trips any legal game; damage is an error naming the
file and the line; files are written whole and read bounded."""

from __future__ import annotations

import hashlib
import lzma
import os
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublecorner import Board, Position
from doublecorner.errors import EngineError, FileError, IllegalMoveError
from doublecorner.train import records
from doublecorner.train.records import (
    GameRecord,
    decode_record,
    encode_record,
    legal_moves_sorted,
    read_config,
    read_records,
    records_digest,
    records_files,
    records_path,
    records_paths,
    write_records,
)
from tests.conftest import positions

CONFIG = {"nodes": 50, "evaluation": "linear"}
OPENING = ("11-15", "23-19", "8-11", "22-17")


def random_game(start: Position, rng: random.Random, plies: int, number: int) -> GameRecord:
    """A game of random legal moves from ``start`` (stopping where no move is left)."""
    board = Board.from_position(start)
    moves = []
    for _ in range(plies):
        legal = legal_moves_sorted(board)
        if not legal:
            break
        moves.append(rng.choice(legal))
        board.push(moves[-1])
    scores = tuple(rng.randint(-32_000, 32_000) for _ in moves)
    return GameRecord(number, start, tuple(moves), scores, rng.choice((-1, 0, 1)))


def opening_record(number: int = 3) -> GameRecord:
    board = Board()
    moves = tuple(board.push_str(text) for text in OPENING)
    return GameRecord(number, Position.start(), moves, (10, -20, 30, -40), 1)


def write_lines(path: Path, *lines: str) -> Path:
    """A records file of these lines, compressed as the writer does."""
    with lzma.open(path, "wt", encoding="utf-8") as stream:
        stream.write("".join(line + "\n" for line in lines))
    return path


HEADER = '#dcg 1 {"nodes": 50}'


@settings(max_examples=80, deadline=None)
@given(positions(), st.randoms(use_true_random=False), st.integers(0, 150),
       st.integers(0, 10**9))
def test_any_legal_game_round_trips(start: Position, rng: random.Random, plies: int,
                                    number: int) -> None:
    record = random_game(start, rng, plies, number)
    line = encode_record(record)
    assert "\n" not in line and line.count("\t") == 4
    again = decode_record(line)
    assert again == record
    assert again.states() == GameRecord(*[getattr(record, name) for name in
                                          ("number", "start", "moves", "scores",
                                           "result")]).states()


@settings(max_examples=15, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 6))
def test_a_file_of_games_round_trips(rng: random.Random, count: int) -> None:
    games = [random_game(Position.start(), rng, rng.randint(0, 120), number)
             for number in range(count)]
    with tempfile.TemporaryDirectory() as folder:
        path = records_path(Path(folder), 7)
        write_records(path, games, config=CONFIG)
        assert path.name == "games-00007.txt.xz"
        assert list(read_records(path)) == games
        assert read_config(path) == CONFIG
        assert os.listdir(folder) == [path.name]  # no temporary file left


def test_a_code_from_62_up_is_written_in_brackets() -> None:
    # No position reached yet has 63 legal moves (12 kings have at most 48), but the
    # format can name one: the index in brackets, which the reader takes anywhere.
    assert [records._code(index) for index in (0, 35, 61, 62, 140)] == [
        "0", "Z", "z", "(62)", "(140)"]
    plain = "4\t0\tB:W21:B9\t00\t1,2"
    assert decode_record(plain.replace("00", "(0)(0)")) == decode_record(plain)


def test_states_are_the_boards_before_each_move() -> None:
    record = opening_record()
    boards = [(*board.bitboards(), int(board.turn), board.halfmove_clock)
              for board in record.boards()]
    assert decode_record(encode_record(record)).states() == tuple(boards[:-1])
    assert record.states() == tuple(boards[:-1])  # replayed when not decoded


@pytest.mark.parametrize(("line", "message"), [
    ("3\t1\tB:W21:B9", "5 fields separated by tabs, not 3"),
    ("x\t1\tB:W21:B9\t0\t5", "game's number 'x' is not a whole number"),
    ("\u0663\t1\tB:W21:B9\t0\t5", "is not a whole number"),  # int() would take it
    ("3\t1_0\tB:W21:B9\t0\t5", "the result '1_0' is not a whole number"),
    ("3\t2\tB:W21:B9\t0\t5", "game record '3': the result 2 is not -1, 0 or 1"),
    ("3\t1\tB:W33:B9\t0\t5", "game record '3'"),
    ("3\t1\tB:W21:B9\t0\t5,6", "game record '3': 1 moves but 2 scores"),
    ("3\t1\tB:W21:B9\t0\t 5", "a score ' 5' is not a whole number"),
    ("3\t1\tB:W21:B9\t09\t5,6", "move 2 is code '9', but W:W21:B13 has 1 legal move"),
    ("3\t1\tB:W21:B9\t(2\t5", "an unclosed or malformed code at character 1"),
    ("3\t1\tB:W21:B9\t(\u00b2)\t5", "an unclosed or malformed code"),
    ("3\t1\tB:W21:B9\t(-1)\t5", "an unclosed or malformed code"),
    ("3\t1\tB:W21:B9\t!\t5", "'!' is no move code"),
])
def test_a_damaged_line_is_an_engine_error_naming_the_game(line: str, message: str) -> None:
    with pytest.raises(EngineError, match=r"^(a )?game record") as error:
        decode_record(line)
    assert message in str(error.value)


def test_a_damaged_line_names_the_file_and_its_line(tmp_path: Path) -> None:
    good = encode_record(opening_record())
    path = write_lines(tmp_path / "games-00000.txt.xz", HEADER, good, "", good,
                       good.replace("\t1\t", "\t7\t", 1))
    with pytest.raises(EngineError) as error:
        list(read_records(path))
    message = str(error.value)
    # The blank line 3 is counted: the damage is on line 5.
    assert message == f"'{path}', line 5: game record '3': the result 7 is not -1, 0 or 1"


def test_a_code_past_the_legal_moves_names_the_position(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "games-00000.txt.xz", HEADER,
                       "4\t0\tB:W21:B9\t0Z\t1,2")
    with pytest.raises(EngineError, match=r"line 2: game record '4': move 2 is code 'Z', but "
                                          r"W:W21:B13 has 1 legal move$"):
        list(read_records(path))


@pytest.mark.parametrize(("header", "message"), [
    ('#dcg 2 {"nodes": 50}', "is a records file of version '2'; this doublecorner reads "
                             "version 1"),
    ("#dcg 1 [1, 2]", "is no records file: its first line should be '#dcg 1 {...}'"),
    ("#dcg 1 {nodes", "is no records file"),
    ("games", "is no records file: its first line should be '#dcg 1 {...}', not 'games'"),
    ("", "is no records file"),
])
def test_the_header_names_the_format_and_its_version(tmp_path: Path, header: str,
                                                     message: str) -> None:
    path = write_lines(tmp_path / "games-00000.txt.xz", header, encode_record(opening_record()))
    for reader in (read_config, lambda path: list(read_records(path))):
        with pytest.raises(EngineError) as error:
            reader(path)
        assert str(error.value).startswith(f"'{path}'") and message in str(error.value)


@pytest.mark.parametrize(("content", "message"), [
    (b"not compressed", "it is no xz file, or a damaged one"),
    (lzma.compress(HEADER.encode() + b"\n3\t0\tB:W21:B9\t0\t5\n")[:-20], "it is cut short"),
    (lzma.compress(b"#dcg 1 {}\n\xff\xfe\n"), "it is no UTF-8 text"),
])
def test_a_damaged_file_is_an_engine_error_naming_it(tmp_path: Path, content: bytes,
                                                     message: str) -> None:
    path = tmp_path / "games-00000.txt.xz"
    path.write_bytes(content)
    with pytest.raises(EngineError) as error:
        list(read_records(path))
    assert str(error.value) == f"cannot read the records file '{path}': {message}"


def test_reads_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "games-00000.txt.xz"
    write_records(path, [opening_record()], config=CONFIG)
    monkeypatch.setattr(records, "MAX_LINE_CHARACTERS", 70)  # the header fits, the game not
    with pytest.raises(EngineError, match=r"line 2: longer than 70 characters"):
        list(read_records(path))
    monkeypatch.setattr(records, "MAX_LINE_CHARACTERS", 1 << 20)
    monkeypatch.setattr(records, "MAX_TEXT_CHARACTERS", 100)
    with pytest.raises(EngineError, match=r"more than 100 characters of text"):
        list(read_records(path))
    monkeypatch.setattr(records, "MAX_FILE_BYTES", 10)
    with pytest.raises(EngineError, match=r"bytes, more than a records file can be \(10 bytes"):
        read_config(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_or_a_device_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "games-00000.txt.xz"
    os.mkfifo(fifo)
    with pytest.raises(EngineError, match="FIFO"):
        list(read_records(fifo))
    with pytest.raises(EngineError, match="FIFO"):
        records_digest(fifo)
    if Path("/dev/zero").exists():
        with pytest.raises(EngineError, match="character device"):
            read_config(Path("/dev/zero"))
    with pytest.raises(FileError, match="FIFO"):
        write_records(fifo, [opening_record()], config=CONFIG)


def test_a_failed_write_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "games-00000.txt.xz"
    write_records(path, [opening_record(1)], config=CONFIG)
    before = path.read_bytes()
    board = Board()
    board.push_str("11-15")
    illegal = GameRecord(2, Position.start(), (board.parse_move("23-19"),), (0,), 0)
    with pytest.raises(IllegalMoveError):  # White's move, at the start, where Black moves
        write_records(path, [opening_record(1), illegal], config=CONFIG)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == [path.name]


def test_the_files_of_a_folder_and_of_a_list(tmp_path: Path) -> None:
    for index in (1, 0, 12):
        write_records(records_path(tmp_path, index), [opening_record(index)], config=CONFIG)
    (tmp_path / "games-3.txt.xz").write_bytes(b"")  # not a records file's name
    (tmp_path / ".games-00004.txt.xz.1a2b.tmp").write_bytes(b"")  # still being written
    names = [path.name for path in records_paths(tmp_path)]
    assert names == ["games-00000.txt.xz", "games-00001.txt.xz", "games-00012.txt.xz"]
    single = tmp_path / "games-00001.txt.xz"
    assert records_files([single, tmp_path]) == [single, *records_paths(tmp_path)]
    (tmp_path / "empty").mkdir()
    with pytest.raises(EngineError, match=r"no self-play records \(games-\*.txt.xz\) in"):
        records_files([tmp_path / "empty"])
    with pytest.raises(EngineError, match="no such folder or records file"):
        records_files([tmp_path / "missing"])


def test_the_digest_is_the_sha256_of_the_file(tmp_path: Path) -> None:
    path = records_path(tmp_path, 0)
    write_records(path, [opening_record()], config=CONFIG)
    assert records_digest(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_record_checks_its_own_fields() -> None:
    with pytest.raises(ValueError, match="2 moves but 1 scores"):
        GameRecord(1, Position.start(), opening_record().moves[:2], (0,), 0)
    with pytest.raises(ValueError, match="result 3 is not -1, 0 or 1"):
        GameRecord(1, Position.start(), (), (), 3)
