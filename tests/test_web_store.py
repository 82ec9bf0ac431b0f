"""The SQLite store of the web app: records in and out, order, durability settings, bad files."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from doublecorner import Color
from doublecorner.web.record import AgreedEnding, Agreement, Clock, GameMode, GameRecord
from doublecorner.web.store import SCHEMA_VERSION, GameStore, StoreError, default_db_path
from doublecorner.web.tokens import Seat

START = "B:W21-32:B1-12"


def record(game_id: str, **fields: object) -> GameRecord:
    base = GameRecord(id=game_id, mode=GameMode.TWO_PLAYER, created="2026-11-30T12:00:00Z",
                      updated="2026-11-30T12:00:00Z", black="human", white="human",
                      start_fen=START)
    return replace(base, **fields)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "games.sqlite3"  # the folder does not exist yet


def test_every_field_comes_back_as_it_went_in(path: Path) -> None:
    full = record("g_1", mode=GameMode.ENGINE, human=Color.WHITE, seconds=1.5,
                  black="doublecorner (1.5 s per move)", moves=("11-15", "9x18x27"),
                  agreed=AgreedEnding(Agreement.RESIGNATION, Color.BLACK),
                  draw_offer=Color.WHITE, tags={"Event": "Café ☕", "Round": "3"}, result="1-0")
    plain = record("g_2", mode=GameMode.ANALYSIS, level=None,
                   agreed=AgreedEnding(Agreement.DRAW_AGREED, None), result="1/2-1/2")
    store = GameStore(path)
    store.insert([full, plain])
    assert store.get("g_1") == full
    assert store.get("g_2") == plain
    assert store.get("g_3") is None
    store.close()


def test_games_are_on_disk_for_the_next_store(path: Path) -> None:
    first = GameStore(path)
    first.insert([record("g_1")])
    assert first.update(record("g_1", moves=("11-15",), updated="2026-11-30T12:01:00Z"))
    first.close()
    second = GameStore(path)
    found = second.get("g_1")
    assert found is not None and found.moves == ("11-15",)
    assert found.updated == "2026-11-30T12:01:00Z"
    second.close()


def test_the_file_is_in_wal_mode_with_full_sync(path: Path) -> None:
    store = GameStore(path)
    assert store.journal_mode == "wal"
    store.close()
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    connection.close()


def test_recent_lists_the_newest_first_even_within_a_second(path: Path) -> None:
    store = GameStore(path)
    store.insert([record("g_a", created="2026-11-30T12:00:00Z")])
    store.insert([record("g_b", created="2026-11-30T12:00:05Z")])
    store.insert([record("g_c", created="2026-11-30T12:00:05Z")])
    assert [game.id for game in store.recent(10)] == ["g_c", "g_b", "g_a"]
    assert [game.id for game in store.recent(1)] == ["g_c"]
    store.close()


def test_an_insert_adds_all_games_or_none(path: Path) -> None:
    store = GameStore(path)
    store.insert([record("g_1")])
    with pytest.raises(StoreError, match="cannot add"):
        store.insert([record("g_2"), record("g_1")])
    assert store.count() == 1 and store.get("g_2") is None
    store.close()


def test_update_and_delete_say_whether_the_game_was_there(path: Path) -> None:
    store = GameStore(path)
    assert not store.update(record("g_1"))
    store.insert([record("g_1")])
    assert store.delete("g_1")
    assert not store.delete("g_1")
    assert store.count() == 0
    store.close()


def test_a_file_that_is_not_a_database_is_refused(path: Path) -> None:
    path.parent.mkdir()
    path.write_bytes(b"these are not the games you are looking for" * 100)
    with pytest.raises(StoreError, match=r"games\.sqlite3"):
        GameStore(path)


def test_a_database_from_a_newer_version_is_refused(path: Path) -> None:
    path.parent.mkdir()
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()
    with pytest.raises(StoreError, match="newer version"):
        GameStore(path)


def test_a_folder_in_the_way_is_reported(tmp_path: Path) -> None:
    (tmp_path / "games.sqlite3").mkdir()
    with pytest.raises(StoreError, match=r"games\.sqlite3"):
        GameStore(tmp_path / "games.sqlite3")


@pytest.mark.parametrize(("environ", "platform", "expected"), [
    ({"XDG_DATA_HOME": "/data"}, "linux", "/data/doublecorner/games.sqlite3"),
    ({"XDG_DATA_HOME": "relative/data"}, "linux",
     "/home/ann/.local/share/doublecorner/games.sqlite3"),
    ({}, "linux", "/home/ann/.local/share/doublecorner/games.sqlite3"),
    ({}, "darwin", "/home/ann/Library/Application Support/doublecorner/games.sqlite3"),
    ({"LOCALAPPDATA": "/appdata"}, "win32", "/appdata/doublecorner/games.sqlite3"),
])
def test_the_default_path_is_in_the_users_data_directory(environ: dict[str, str], platform: str,
                                                        expected: str) -> None:
    found = default_db_path(environ, platform=platform, home=Path("/home/ann"))
    assert found.as_posix() == expected


def test_a_file_of_schema_1_is_brought_up_to_date(path: Path) -> None:
    path.parent.mkdir()
    connection = sqlite3.connect(path)
    connection.executescript("""
        CREATE TABLE games (id TEXT PRIMARY KEY, mode TEXT NOT NULL, created TEXT NOT NULL,
            updated TEXT NOT NULL, black TEXT NOT NULL, white TEXT NOT NULL,
            start_fen TEXT NOT NULL, human TEXT, level INTEGER, seconds REAL,
            moves TEXT NOT NULL, agreed_reason TEXT, agreed_winner TEXT, draw_offer TEXT,
            tags TEXT NOT NULL, result TEXT NOT NULL);
        INSERT INTO games VALUES ('g_old', 'two-player', '2026-01-01T00:00:00Z',
            '2026-01-01T00:00:00Z', 'human', 'human', 'B:W21-32:B1-12', NULL, NULL, NULL,
            '11-15', NULL, NULL, NULL, '{}', '*');
        PRAGMA user_version = 1;
    """)
    connection.close()
    store = GameStore(path)
    old = store.get("g_old")
    assert old is not None and old.moves == ("11-15",) and not old.private
    assert store.seats("g_old") == {}  # made before seats: nobody can change it
    store.close()
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    connection.close()


def test_seats_and_invites_are_kept_beside_the_games(path: Path) -> None:
    store = GameStore(path)
    store.insert([record("g_1", private=True, takeback_request=Color.WHITE,
                         clock=Clock(initial=60.0, increment=1.0, black=59.5, white=60.0,
                                     since=1.5))],
                 seats=[("g_1", Seat.BLACK, "b" * 64)], invites=[("g_1", Seat.WHITE, "s" * 64)],
                 creator="10.0.0.1")
    found = store.get("g_1")
    assert found is not None and found.private and found.takeback_request is Color.WHITE
    assert found.clock == Clock(initial=60.0, increment=1.0, black=59.5, white=60.0, since=1.5)
    assert store.count_by("10.0.0.1") == 1 and store.count_by("10.0.0.2") == 0
    assert store.invite("g_1") == (Seat.WHITE, "s" * 64)
    assert store.claim_invite("g_1", "x" * 64, "w" * 64) is None  # another secret
    assert store.claim_invite("g_1", "s" * 64, "w" * 64) is Seat.WHITE
    assert store.claim_invite("g_1", "s" * 64, "v" * 64) is None  # used once
    assert store.seats("g_1") == {Seat.BLACK: "b" * 64, Seat.WHITE: "w" * 64}
    assert [game.id for game in store.games_of(["w" * 64], 10)] == ["g_1"]
    assert store.games_of([], 10) == [] and store.games_of(["z" * 64], 10) == []
    assert store.delete("g_1")
    assert store.seats("g_1") == {} and store.invite("g_1") is None
    store.close()
