"""Whole files read bounded and written atomically: never read without end, never replace
what is not a regular file (issue 27)."""

from __future__ import annotations

import json
import os
import re
import stat
import struct
from pathlib import Path

import numpy as np
import pytest

from doublecorner.book import Book
from doublecorner.book import format as book_format
from doublecorner.cli import main
from doublecorner.db import GameDatabase
from doublecorner.egtb.material import Material
from doublecorner.egtb.storage import (
    DamagedTableError,
    SliceData,
    max_slice_bytes,
    read_slice,
    slice_path,
    write_slice,
)
from doublecorner.engine import network as network_module
from doublecorner.engine.network import Network
from doublecorner.errors import (
    BookError,
    DraughtsError,
    EngineError,
    FileError,
    GameDatabaseError,
    TableError,
)
from doublecorner.files import atomic_write, atomic_writer, read_bounded
from doublecorner.match.ballots import three_move_deck
from doublecorner.match.journal import read_journal
from doublecorner.train.pipeline import portable_record
from doublecorner.train.positions import read_positions
from doublecorner.train.records import read_records
from tests.test_book import GAMES
from tests.test_protocol import Lines

NOTICES = ("doublecorner: compiling", "doublecorner: compiled in")

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
needs_dev_zero = pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")


def refusal(error: pytest.ExceptionInfo[FileError]) -> str:
    message = str(error.value)
    assert isinstance(error.value, DraughtsError) and isinstance(error.value, OSError)
    assert "\n" not in message
    return message


def test_a_regular_file_within_its_bound_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "a.bin"
    path.write_bytes(b"12345")
    assert read_bounded(path, max_bytes=5, what="test file") == b"12345"


def test_a_file_over_its_bound_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.bin"
    path.write_bytes(b"x" * 6)
    with pytest.raises(FileError) as error:
        read_bounded(path, max_bytes=5, what="test file")
    message = refusal(error)
    assert "big.bin" in message and "6 bytes" in message and "5 bytes at most" in message


@needs_dev_zero
def test_dev_zero_is_refused_as_a_device() -> None:
    with pytest.raises(FileError) as error:
        read_bounded("/dev/zero", max_bytes=1 << 20, what="test file")
    assert "'/dev/zero'" in refusal(error) and "character device" in refusal(error)


@needs_fifo
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(FileError) as error:
        read_bounded(fifo, max_bytes=100, what="test file")
    assert "FIFO" in refusal(error) and "pipe" in refusal(error)


def test_a_folder_and_a_missing_file_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="folder"):
        read_bounded(tmp_path, max_bytes=100, what="test file")
    with pytest.raises(FileError, match=r"none.bin.*does not exist"):
        read_bounded(tmp_path / "none.bin", max_bytes=100, what="test file")


def test_an_atomic_write_replaces_a_file_and_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    path.write_bytes(b"old")
    path.chmod(0o600)
    atomic_write(path, b"new", what="test file")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [entry.name for entry in tmp_path.iterdir()] == ["out.bin"]  # no temporary left


def test_an_atomic_write_goes_through_a_symbolic_link(tmp_path: Path) -> None:
    target = tmp_path / "target.bin"
    target.write_bytes(b"old")
    link = tmp_path / "link.bin"
    link.symlink_to(target)
    assert atomic_write(link, b"new", what="test file") == target
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == b"new"


@needs_fifo
def test_an_atomic_write_never_replaces_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(FileError) as error:
        atomic_write(fifo, b"data", what="test file")
    assert "cannot write" in refusal(error) and "FIFO" in refusal(error)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert [entry.name for entry in tmp_path.iterdir()] == ["pipe"]


def test_an_atomic_write_refuses_a_folder_and_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(FileError, match="folder, not a file"):
        atomic_write(tmp_path, b"data", what="test file")
    with pytest.raises(FileError, match=r"the folder .*no' does not exist"):
        atomic_write(tmp_path / "no" / "x.bin", b"data", what="test file")
    assert not (tmp_path / "no").exists()


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "out.bin"
    path.write_bytes(b"old")
    with pytest.raises(ZeroDivisionError), atomic_writer(path, what="test file") as stream:
        stream.write(b"half")
        raise ZeroDivisionError
    assert path.read_bytes() == b"old"
    assert [entry.name for entry in tmp_path.iterdir()] == ["out.bin"]


# -- every reader of a known-size format ----------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line and not line.startswith(NOTICES)]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def not_regular(tmp_path: Path) -> list[Path]:
    """Paths that are no regular file: /dev/zero, a FIFO, a folder (those this system has)."""
    paths = [Path("/dev/zero")] if Path("/dev/zero").exists() else []
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe")
        paths.append(tmp_path / "pipe")
    (tmp_path / "folder").mkdir()
    return [*paths, tmp_path / "folder"]


@pytest.mark.parametrize("option", ["--network", "--book"])
@pytest.mark.parametrize("command", ["analyse", "bestmove"])
def test_no_regular_file_as_network_or_book_is_one_line_naming_it(
        command: str, option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for path in not_regular(tmp_path):
        status, out, err = run(capsys, command, "B:W18:B14", "--depth", "1", option, str(path))
        assert (status, out) == (2, ""), err
        line = one_line(err)
        assert repr(str(path)) in line and ("folder" in line or "not a regular file" in line)


def test_an_oversized_network_file_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.dcnn"
    with open(path, "wb") as stream:  # sparse: no disk is used
        stream.truncate(network_module.MAX_FILE_BYTES + 1)
    with pytest.raises(EngineError, match=r"huge.dcnn.*more than a network file can be"):
        Network.from_file(path)


def test_an_oversized_book_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.book"
    with open(path, "wb") as stream:
        stream.truncate(book_format.MAX_FILE_BYTES + 1)
    with pytest.raises(BookError, match=r"huge.book.*more than an? opening book can be"):
        Book.open(path)


def test_a_network_header_claiming_huge_provenance_is_damage(tmp_path: Path) -> None:
    data = bytearray(Network.default().to_bytes())
    struct.pack_into("<I", data, 24, network_module.MAX_PROVENANCE_BYTES + 1)
    with pytest.raises(EngineError, match="more than the 1,048,576 allowed"):
        Network.from_bytes(bytes(data), source="x.dcnn")


@needs_fifo
def test_a_fifo_among_the_tables_is_refused_not_waited_on(tmp_path: Path) -> None:
    material = Material(1, 0, 0, 1)
    os.mkfifo(slice_path(tmp_path, material))
    with pytest.raises(TableError, match="FIFO"):
        read_slice(tmp_path, material)
    with pytest.raises(FileError, match="FIFO"):
        write_slice(tmp_path, SliceData(material, np.zeros((material.size + 3) // 4, np.uint8),
                                        np.zeros(material.size, np.uint8)))
    assert stat.S_ISFIFO(slice_path(tmp_path, material).lstat().st_mode)


def test_an_oversized_table_file_is_damage_to_rebuild(tmp_path: Path) -> None:
    material = Material(1, 0, 0, 1)
    with open(slice_path(tmp_path, material), "wb") as stream:
        stream.truncate(max_slice_bytes(material) + 1)
    with pytest.raises(DamagedTableError, match=r"more than slice 1001 can take.*rebuild"):
        read_slice(tmp_path, material)


@needs_fifo
def test_a_fifo_named_as_self_play_records_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "games-00000.txt.xz")
    with pytest.raises(EngineError, match=r"games-00000.txt.xz.*FIFO"):
        read_positions(tmp_path)
    with pytest.raises(EngineError, match="FIFO"):
        list(read_records(tmp_path / "games-00000.txt.xz"))


@needs_fifo
def test_a_fifo_as_match_results_is_refused(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    os.mkfifo(tmp_path / "results.jsonl")
    with pytest.raises(FileError, match=r"results.jsonl.*FIFO"):
        read_journal(tmp_path / "results.jsonl", three_move_deck())
    for resume in ([], ["--resume"]):
        status, _, err = run(capsys, "match", "random", "random:seed=1", "--openings", "1",
                             "--quiet", "--results", str(tmp_path / "results.jsonl"), *resume)
        assert status == 2 and "FIFO" in one_line(err)


def test_the_dcp_engine_answers_an_error_for_a_network_or_book_that_is_no_file(
        tmp_path: Path) -> None:
    lines = Lines()
    for path in not_regular(tmp_path):
        for option in ("EvalFile", "BookFile"):
            answer = lines.send(f"setoption name {option} value {path}")
            assert len(answer) == 1 and answer[0].startswith("error "), answer
            assert repr(str(path)) in answer[0]
    assert lines.send("isready") == ["readyok"]  # and it goes on, as it was
    assert lines.search("go depth 2")[-1].startswith("bestmove ")


# -- every writer: a regular file it owns ----------------------------------------------------


@pytest.fixture(scope="module")
def games_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("files-db")
    (folder / "games.pdn").write_text(GAMES, encoding="utf-8")
    path = folder / "games.sqlite3"
    assert main(["db", "import", str(folder / "games.pdn"), "--db", str(path)]) == 0
    return path


@needs_fifo
def test_book_build_never_replaces_a_fifo(games_db: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "out.book"
    os.mkfifo(fifo)
    status, _, err = run(capsys, "book", "build", "--db", str(games_db), "--out", str(fifo),
                         "--min-games", "1")
    assert status == 2 and "FIFO" in one_line(err) and "out.book" in one_line(err)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_book_build_writes_through_a_symbolic_link(games_db: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "books" / "main.book"
    target.parent.mkdir()
    target.write_bytes(b"an old book")
    link = tmp_path / "link.book"
    link.symlink_to(target)
    status, _, _ = run(capsys, "book", "build", "--db", str(games_db), "--out", str(link),
                       "--min-games", "1")
    assert status == 0
    assert link.is_symlink() and link.resolve() == target
    assert len(Book.open(target)) > 0
    assert sorted(entry.name for entry in target.parent.iterdir()) == ["main.book"]


@needs_fifo
def test_a_network_is_saved_through_a_link_and_never_onto_a_fifo(tmp_path: Path) -> None:
    network = Network.default()
    target = tmp_path / "net.dcnn"
    (tmp_path / "link.dcnn").symlink_to(target)
    network.save(tmp_path / "link.dcnn")
    assert (tmp_path / "link.dcnn").is_symlink()
    assert np.array_equal(Network.from_file(target).parameters, network.parameters)
    os.mkfifo(tmp_path / "pipe.dcnn")
    with pytest.raises(EngineError, match=r"pipe.dcnn.*FIFO"):
        network.save(tmp_path / "pipe.dcnn")


@pytest.mark.parametrize("command", [["db", "import", "{pdn}"], ["serve", "--port", "0"]])
def test_a_database_in_a_missing_folder_is_refused_alike(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    uvicorn = pytest.importorskip("uvicorn")
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    pdn = tmp_path / "games.pdn"
    pdn.write_text(GAMES, encoding="utf-8")
    argv = [word.format(pdn=pdn) for word in command]
    missing = tmp_path / "typo" / "games.sqlite3"
    status, _, err = run(capsys, *argv, "--db", str(missing))
    assert status == 2
    assert one_line(err) == (f"doublecorner: error: --db {str(missing)!r}: the folder "
                             f"{str(missing.parent)!r} does not exist")
    assert not missing.parent.exists()


@needs_fifo
@pytest.mark.parametrize("command", [["db", "import", "{pdn}"], ["serve", "--port", "0"],
                                     ["db", "explore"]])
def test_a_fifo_as_the_database_is_refused_alike(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    uvicorn = pytest.importorskip("uvicorn")
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    pdn = tmp_path / "games.pdn"
    pdn.write_text(GAMES, encoding="utf-8")
    fifo = tmp_path / "games.sqlite3"
    os.mkfifo(fifo)
    status, _, err = run(capsys, *[word.format(pdn=pdn) for word in command], "--db", str(fifo))
    assert status == 2 and "FIFO" in one_line(err)
    with pytest.raises(GameDatabaseError, match="FIFO"):
        GameDatabase(fifo)


def test_db_import_says_what_a_device_or_a_folder_is(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    for path in not_regular(tmp_path):
        status, _, err = run(capsys, "db", "import", str(path), "--db",
                             str(tmp_path / "games.sqlite3"))
        assert status == 2
        line = one_line(err)
        assert repr(str(path)) in line and "does not exist" not in line
        assert "folder" in line or "not a regular file" in line
        with GameDatabase(tmp_path / "lib.sqlite3") as database, pytest.raises(
                GameDatabaseError, match=r"not a regular file|folder"):
            database.import_files([path])


# -- shipped files carry no machine paths ----------------------------------------------------


def machine_paths(value: object) -> list[str]:
    """Every string in ``value`` (JSON) that is an absolute path: ``/...`` or ``C:\\...``."""
    if isinstance(value, dict):
        return [found for item in value.values() for found in machine_paths(item)]
    if isinstance(value, list):
        return [found for item in value for found in machine_paths(item)]
    if isinstance(value, str) and (value.startswith(("/", "\\")) or
                                   re.match(r"[A-Za-z]:[\\/]", value)):
        return [value]
    return []


def test_the_shipped_network_names_no_path_of_the_machine_that_trained_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert machine_paths(Network.default().provenance) == []
    assert main(["train", "info"]) == 0  # the shipped file, by default
    assert json.loads(capsys.readouterr().out) == Network.default().provenance


def test_provenance_records_paths_relative_or_by_name(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    record = {"folders": [str(tmp_path / "data" / "gen1"), "data/gen2"],
              "played_by": [{"network": "/elsewhere/nets/gen1.dcnn", "nodes": 6000,
                             "egtb_dir": "C:\\Users\\ann\\egtb"}],
              "history": [{"fit": {"start": "/elsewhere/gen0.dcnn"}}]}
    assert portable_record(record) == {
        "folders": ["data/gen1", "data/gen2"],
        "played_by": [{"network": "gen1.dcnn", "nodes": 6000, "egtb_dir": "egtb"}],
        "history": [{"fit": {"start": "gen0.dcnn"}}]}
