"""The game database (doublecorner.db): import, the position index, queries, against
small collections counted by hand."""

from __future__ import annotations

import ast
import doctest
import io
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

import doublecorner.db
from doublecorner import Board, DraughtsError
from doublecorner.db import Exploration, GameDatabase, GameQuery, ImportProgress, importer
from doublecorner.db.schema import SCHEMA_VERSION
from doublecorner.errors import GameDatabaseError
from doublecorner.pdn import iter_games


def pdn(moves: str, result: str = "*", **tags: str) -> str:
    """A game's PDN text: the tags given, then ``moves`` (PDN movetext) and ``result``."""
    head = "".join(f'[{name} "{value}"]\n' for name, value in tags.items())
    return f"{head}\n{moves} {result}\n\n"


def write(folder: Path, name: str, *games: str) -> Path:
    path = folder / name
    path.write_text("".join(games), encoding="utf-8")
    return path


def board_after(moves: str, fen: str | None = None) -> Board:
    board = Board() if fen is None else Board(fen)
    for text in moves.split():
        board.push_str(text)
    return board


@pytest.fixture()
def database(tmp_path: Path) -> Iterator[GameDatabase]:
    with GameDatabase(tmp_path / "games.sqlite3") as opened:
        yield opened


def stats(found: Exploration) -> list[tuple[str, int, int, int, int]]:
    return [(move.move, move.games, move.black_wins, move.draws, move.white_wins)
            for move in found.moves]


# -- the position index ---------------------------------------------------------------


def test_transpositions_count_every_game_that_reached_the_position(
        tmp_path: Path, database: GameDatabase) -> None:
    # Games 1-3 reach the position after 11-15 23-19 9-14 22-17 by two move orders;
    # game 4 leaves the line at its fourth move.
    path = write(tmp_path, "t.pdn",
                 pdn("1. 11-15 23-19 2. 9-14 22-17 3. 5-9", "1-0", Black="A"),
                 pdn("1. 9-14 22-17 2. 11-15 23-19 3. 8-11", "1/2-1/2", Black="B"),
                 pdn("1. 9-14 23-19 2. 11-15 22-17 3. 5-9", "0-1", Black="C"),
                 pdn("1. 11-15 23-19 2. 9-14 27-23", "1-0", Black="D"))
    summary = database.import_files([path])
    assert (summary.imported, summary.duplicates, summary.faulty) == (4, 0, 0)

    found = database.explore(board_after("11-15 23-19 9-14 22-17"))
    assert found.games == 3
    assert stats(found) == [("5-9", 2, 1, 0, 1), ("8-11", 1, 0, 1, 0)]
    assert {game.black for game in found.top_games} == {"A", "B", "C"}

    start = database.explore(Board())
    assert start.games == 4
    assert stats(start) == [("11-15", 2, 2, 0, 0), ("9-14", 2, 0, 1, 1)]
    after_three = database.explore(board_after("11-15 23-19 9-14"))  # C's 9-14 23-19 11-15
    assert stats(after_three) == [("22-17", 2, 1, 0, 1), ("27-23", 1, 1, 0, 0)]


def test_the_last_position_of_a_game_counts_with_no_move(tmp_path: Path,
                                                         database: GameDatabase) -> None:
    path = write(tmp_path, "end.pdn", pdn("1. 11-15 23-19", "1/2-1/2"),
                 pdn("1. 11-15 23-19 2. 8-11", "1-0", Black="X"))
    database.import_files([path])
    found = database.explore(board_after("11-15 23-19"))
    assert found.games == 2
    assert stats(found) == [("8-11", 1, 1, 0, 0)]


def test_a_position_reached_twice_in_a_game_counts_once(tmp_path: Path,
                                                        database: GameDatabase) -> None:
    # Kings shuffle back: the start position comes back after four plies.
    moves = "1. 1-5 32-28 2. 5-1 28-32 3. 1-5 32-28"
    path = write(tmp_path, "rep.pdn", pdn(moves, "*", FEN="B:WK32:BK1"))
    database.import_files([path])
    found = database.explore(Board("B:WK32:BK1"))
    assert found.games == 1
    assert stats(found) == [("1-5", 1, 0, 0, 0)]


def test_a_set_up_game_is_indexed_from_its_fen_and_never_at_the_start(
        tmp_path: Path, database: GameDatabase) -> None:
    fen = "W:W18:B14"
    path = write(tmp_path, "setup.pdn", pdn("1... 18x9", "0-1", SetUp="1", FEN=fen))
    database.import_files([path])
    assert database.explore(Board()).games == 0
    found = database.explore(Board(fen))
    assert (found.games, stats(found)) == (1, [("18x9", 1, 0, 0, 1)])
    assert database.explore(board_after("18x9", fen)).games == 1


def test_captures_are_shown_in_short_form_where_that_is_unambiguous(
        tmp_path: Path, database: GameDatabase) -> None:
    fen = "B:W18,26:B14"
    path = write(tmp_path, "jump.pdn", pdn("1. 14x23x30", "1-0", FEN=fen))
    database.import_files([path])
    assert stats(database.explore(Board(fen))) == [("14x30", 1, 1, 0, 0)]


# -- what is imported ----------------------------------------------------------------


def test_identical_games_are_stored_once(tmp_path: Path, database: GameDatabase) -> None:
    game = pdn("1. 11-15 23-19", "1-0", Black="Ann", White="Bob", Date="2026.11.30")
    same_elsewhere = pdn("1. 11-15 23-19", "1-0", Black="Ann", White="Bob",
                         Date="2026.11.30", Site="Another collection")
    other_players = pdn("1. 11-15 23-19", "1-0", Black="Cy", White="Bob", Date="2026.11.30")
    first = write(tmp_path, "a.pdn", game, game)
    second = write(tmp_path, "b.pdn", same_elsewhere, other_players)
    summary = database.import_files([first, second])
    assert (summary.imported, summary.duplicates) == (2, 2)
    assert database.count_games() == 2
    assert database.explore(Board()).games == 2


def test_a_faulty_game_is_imported_up_to_its_fault(tmp_path: Path,
                                                   database: GameDatabase) -> None:
    path = write(tmp_path, "bad.pdn",
                 pdn("1. 11-15 23-19 2. 9-14 11-16 3. 5-9", "0-1", Black="Faulty"),
                 pdn("1. 11-15 22-18", "1-0", Black="Good"))
    summary = database.import_files([path])
    assert (summary.imported, summary.faulty, summary.skipped) == (2, 1, 0)
    assert [(name, number) for name, number, _ in summary.faults] == [(str(path), 1)]
    assert "illegal move '11-16'" in summary.faults[0][2]

    kept = database.explore(board_after("11-15 23-19 9-14"))
    assert kept.games == 1
    assert stats(kept) == []  # the game's moves end at its fault
    assert kept.top_games[0].black == "Faulty"
    stored = database.game(kept.top_games[0].id)
    kept_game = next(iter_games(io.StringIO(stored.pdn)))
    assert [str(move) for move in kept_game.mainline_moves()] == ["11-15", "23-19", "9-14"]
    assert len(stored.faults) == 1 and "line 3, column 24" in stored.faults[0]


def test_a_game_without_a_start_position_is_skipped(tmp_path: Path,
                                                    database: GameDatabase) -> None:
    path = write(tmp_path, "skip.pdn", pdn("1. 32-28", "*", GameType="20"),
                 pdn("1. 11-15", "*", FEN="B:W99:B1"), pdn("1. 11-15", "*"))
    summary = database.import_files([path])
    assert (summary.imported, summary.skipped) == (1, 2)
    assert [number for _, number, _ in summary.faults] == [1, 2]
    assert database.count_games() == 1


def test_an_empty_game_is_its_start_position(tmp_path: Path, database: GameDatabase) -> None:
    path = write(tmp_path, "empty.pdn", pdn("", "1/2-1/2", Black="Nobody"))
    database.import_files([path])
    found = database.explore(Board())
    assert (found.games, stats(found), found.top_games[0].black) == (1, [], "Nobody")


def test_a_file_imported_before_is_passed_over(tmp_path: Path,
                                               database: GameDatabase) -> None:
    path = write(tmp_path, "once.pdn", pdn("1. 11-15", "*"), pdn("1. 9-14", "*"))
    copy = write(tmp_path, "copy.pdn", path.read_text())
    database.import_files([path])
    again = database.import_files([path, copy])
    assert (again.imported, again.duplicates, again.files, again.files_done) == (0, 0, 2, 2)


def test_an_interrupted_import_goes_on_where_it_stopped(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer, "BATCH_GAMES", 2)
    monkeypatch.setattr(importer, "PROGRESS_EVERY_GAMES", 1)
    openings = ["11-15", "11-16", "9-13", "9-14", "10-14", "10-15", "12-16"]
    path = write(tmp_path, "seven.pdn", *(pdn(f"1. {move}", "*") for move in openings))
    db_path = tmp_path / "games.sqlite3"

    def stop_at_the_fifth_game(step: ImportProgress) -> None:
        if step.games == 5:
            raise KeyboardInterrupt

    with GameDatabase(db_path) as database, pytest.raises(KeyboardInterrupt):
        database.import_files([path], progress=stop_at_the_fifth_game)
    with GameDatabase(db_path) as database:
        assert database.count_games() == 4  # two batches of two were written
        steps: list[ImportProgress] = []
        summary = database.import_files([path], progress=steps.append)
        assert (summary.imported, summary.duplicates) == (3, 0)  # the first four not read
        assert database.count_games() == 7
        assert database.explore(Board()).games == 7
        assert steps[-1].bytes_read == steps[-1].bytes_total == path.stat().st_size
        assert [step.games for step in steps[:3]] == [5, 6, 7]


def test_progress_reaches_the_total_over_several_files(tmp_path: Path,
                                                       database: GameDatabase) -> None:
    first = write(tmp_path, "1.pdn", pdn("1. 11-15", "*"))
    second = write(tmp_path, "2.pdn", pdn("1. 9-14", "*"), pdn("1. 9-13", "*"))
    steps: list[ImportProgress] = []
    database.import_files([first, second], progress=steps.append)
    total = first.stat().st_size + second.stat().st_size
    assert [(step.bytes_read, step.path) for step in steps] == [
        (first.stat().st_size, str(first)), (total, str(second))]
    assert all(step.bytes_total == total for step in steps)


def test_a_file_that_is_not_pdn_is_refused_by_name(tmp_path: Path,
                                                   database: GameDatabase) -> None:
    path = tmp_path / "image.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    with pytest.raises(GameDatabaseError, match=r"image\.png"):
        database.import_files([path])
    with pytest.raises(GameDatabaseError, match=r"missing\.pdn"):
        database.import_files([tmp_path / "missing.pdn"])


# -- search and show -------------------------------------------------------------------


@pytest.fixture()
def club(tmp_path: Path, database: GameDatabase) -> GameDatabase:
    path = write(tmp_path, "club.pdn",
                 pdn("1. 11-15", "1-0", Event="Club 100%", Date="2024.05.01", Black="Ann",
                     White="Bob"),
                 pdn("1. 9-14", "0-1", Event="Open", Date="2025.02.03", Black="Bob",
                     White="Cy"),
                 pdn("1. 10-14", "1/2-1/2", Event="Open", Date="2025.??.??", Black="cy",
                     White="ann"),
                 pdn("1. 12-16", "*", Event="Club", Black="Dee", White="Eve"))
    database.import_files([path])
    return database


def found(database: GameDatabase, **fields: str) -> list[str]:
    return [f"{game.black}-{game.white}" for game in database.search(GameQuery(**fields))]


def test_search_by_player_either_side_in_any_case(club: GameDatabase) -> None:
    assert found(club, player="ANN") == ["cy-ann", "Ann-Bob"]  # newest first
    assert found(club, black="bob") == ["Bob-Cy"]
    assert found(club, white="cy") == ["Bob-Cy"]


def test_search_by_event_date_and_result(club: GameDatabase) -> None:
    assert found(club, event="club") == ["Ann-Bob", "Dee-Eve"]  # unknown dates last
    assert found(club, event="100%") == ["Ann-Bob"]  # % is a character, not a wildcard
    assert found(club, date_from="2025") == ["Bob-Cy", "cy-ann"]
    assert found(club, date_from="2024", date_to="2024.12") == ["Ann-Bob"]
    # a date known to the year only counts as the year's first day
    assert found(club, date_to="2025.01") == ["cy-ann", "Ann-Bob"]
    assert found(club, result="1/2-1/2") == ["cy-ann"]
    assert found(club, event="Open", result="0-1") == ["Bob-Cy"]
    assert club.search(GameQuery(), limit=2) == club.search(GameQuery())[:2]


def test_search_refuses_a_bad_date_or_result(club: GameDatabase) -> None:
    with pytest.raises(ValueError, match="'May 1990'"):
        club.search(GameQuery(date_from="May 1990"))
    with pytest.raises(ValueError, match="'2-0'"):
        club.search(GameQuery(result="2-0"))


def test_a_stored_game_reads_back_as_the_same_game(tmp_path: Path,
                                                   database: GameDatabase) -> None:
    text = pdn("1. 11-15 23-19 2. 8-11 22-17", "1-0", Event="E", Black="Ann",
               White="Bob", Date="2026.11.30", Round="3", Annotator="Me")
    annotated = pdn("1. 11-15 {the Old Fourteenth} (1. 9-14 22-17) 23-19 2. 8-11!", "0-1",
                    Black="Cy")
    path = write(tmp_path, "show.pdn", text, annotated)
    database.import_files([path])
    plain, notes = (next(iter_games(io.StringIO(database.game(number).pdn)))
                    for number in (1, 2))
    original = next(iter_games(io.StringIO(text)))
    assert plain.headers == {**original.headers, "Site": "?", "GameType": "21"}
    assert plain.mainline_moves() == original.mainline_moves()
    assert notes.variations[0].comment == "the Old Fourteenth"
    assert len(notes.variations) == 2 and notes.end().nags == {1}
    assert database.game(1).faults == ()
    with pytest.raises(GameDatabaseError, match="no game has the id 99"):
        database.game(99)


# -- the file -------------------------------------------------------------------------------


def test_the_file_is_in_wal_mode_and_refuses_other_files(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    GameDatabase(path).close()
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    text_file = write(tmp_path, "notes.txt", "not a database, a text file of some length\n" * 99)
    with pytest.raises(GameDatabaseError, match=r"notes\.txt"):
        GameDatabase(text_file)
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE t (x)")
    with pytest.raises(GameDatabaseError, match="not a doublecorner game database"):
        GameDatabase(other)
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(GameDatabaseError, match="newer version"):
        GameDatabase(path)


def test_read_only_opens_only_an_existing_game_database_and_never_writes(
        tmp_path: Path) -> None:
    games = write(tmp_path, "games.pdn", pdn("1. 11-15 23-19", "1-0", Black="Ann"))
    path = tmp_path / "games.sqlite3"
    with GameDatabase(path) as database:
        database.import_files([games])
    more = write(tmp_path, "more.pdn", pdn("1. 9-14", "0-1"))
    with GameDatabase(path, read_only=True) as database:
        assert database.explore(Board()).games == 1
        with pytest.raises(GameDatabaseError, match="readonly"):
            database.import_files([more])
    assert GameDatabase(path).count_games() == 1
    empty = tmp_path / "empty.sqlite3"
    empty.write_bytes(b"")
    text_file = write(tmp_path, "notes.txt", "not a database\n" * 99)
    for path, problem in ((tmp_path / "missing.sqlite3", "unable to open"),
                          (empty, "not a doublecorner game database"),
                          (text_file, "not a database")):
        with pytest.raises(GameDatabaseError, match=problem):
            GameDatabase(path, read_only=True)
    assert not (tmp_path / "missing.sqlite3").exists() and empty.stat().st_size == 0


def test_a_stored_game_gives_its_tags_start_and_main_line(tmp_path: Path,
                                                          database: GameDatabase) -> None:
    set_up = pdn("1. 18x9", "1-0", Black="Ann", FEN="W:W18:B14", SetUp="1")
    database.import_files([write(tmp_path, "set-up.pdn", set_up)])
    game = database.game(1)
    assert (game.tags, game.start_fen, game.moves) == (
        {"Black": "Ann", "FEN": "W:W18:B14", "SetUp": "1", "Result": "1-0"}, "W:W18:B14",
        ("18x9",))


def test_errors_are_draughts_errors() -> None:
    assert issubclass(GameDatabaseError, DraughtsError)


def test_tags_are_kept_whole(tmp_path: Path, database: GameDatabase) -> None:
    path = write(tmp_path, "tags.pdn", pdn("1. 11-15", "*", Black="Müller", Opening="Old"))
    database.import_files([path])
    with sqlite3.connect(database.path) as connection:
        tags = connection.execute("SELECT tags FROM games").fetchone()[0]
    assert json.loads(tags) == {"Black": "Müller", "Opening": "Old", "Result": "*"}


def test_the_package_imports_nothing_from_the_front_ends_or_the_engine() -> None:
    for path in Path(doublecorner.db.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith(
                    ("doublecorner.web", "doublecorner.cli", "doublecorner.engine")), (
                    path.name, node.module)


def test_the_examples_of_docs_db_md_run() -> None:
    path = Path(__file__).resolve().parents[1] / "docs" / "db.md"
    failures, tried = doctest.testfile(str(path), module_relative=False,
                                       optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
