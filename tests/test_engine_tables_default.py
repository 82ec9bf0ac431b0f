"""Every engine plays with the installed endgame tables unless told otherwise.

The installed tables are those in the default folder (``$XDG_DATA_HOME/doublecorner/egtb``
here: conftest points the variable at an empty folder of the run, and these tests put
tables there). Each front end is tested through its own interface: ``Engine()``, the
command line through ``main``, match players through ``parse_player``, the protocol
through its lines.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from doublecorner import Position
from doublecorner.cli import main
from doublecorner.cli import play as play_command
from doublecorner.egtb import INSTALLED_TABLES, TableError, Tables, materials, resolve_tables
from doublecorner.egtb.material import Material
from doublecorner.engine import Engine, Limit
from doublecorner.errors import EngineError
from doublecorner.match import EnginePlayer, parse_player
from doublecorner.protocol import EngineServer

LOST = "W:WK1:BK10,K14"  # White to move, lost: two kings against one
SEVEN_KINGS = "B:WK21,K22,K23,K24:BK9,K10,K11"


def _copy_tables(source: Path, target: Path) -> Path:
    target.mkdir(parents=True)
    for path in source.glob("*.dcdb"):
        shutil.copyfile(path, target / path.name)
    return target


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, egtb4_dir: Path) -> Path:
    """Tables of up to 4 pieces installed in a fresh default folder; that folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return _copy_tables(egtb4_dir, tmp_path / "data" / "doublecorner" / "egtb")


@pytest.fixture
def other_tables(tmp_path: Path, egtb4_dir: Path) -> Path:
    """Tables of up to 4 pieces in a folder of their own."""
    return _copy_tables(egtb4_dir, tmp_path / "elsewhere")


# -- Engine() from Python -------------------------------------------------------------


def test_an_engine_plays_with_the_installed_tables_by_default(installed: Path) -> None:
    engine = Engine(hash_mb=1)
    assert engine.tables is not None and engine.tables.slice_directory == installed
    result = engine.search(Position.from_fen(LOST), Limit(depth=4))
    assert str(result.score) == "table loss" and result.table_hits == 1


def test_without_installed_tables_an_engine_has_none() -> None:
    assert Engine(hash_mb=1).tables is None
    assert Engine(hash_mb=1).search(Position.from_fen(LOST), Limit(depth=4)).table_hits == 0


def test_tables_none_plays_without_the_installed_ones(installed: Path) -> None:
    engine = Engine(hash_mb=1, tables=None)
    assert engine.tables is None
    result = engine.search(Position.from_fen(LOST), Limit(depth=4))
    assert result.table_hits == 0 and not result.score.is_table_result


def test_a_folder_names_other_tables(installed: Path, other_tables: Path) -> None:
    engine = Engine(hash_mb=1, tables=other_tables)
    assert engine.tables is not None and engine.tables.slice_directory == other_tables
    assert str(engine.search(Position.from_fen(LOST), Limit(depth=4)).score) == "table loss"


def test_a_folder_without_tables_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(TableError, match=f"no endgame tables in {tmp_path}"):
        Engine(hash_mb=1, tables=tmp_path)


def test_the_engines_of_a_process_share_one_table_set(installed: Path) -> None:
    first, second = Engine(hash_mb=1), Engine(hash_mb=1, tables=installed)
    assert first.tables is not None and first.tables is second.tables
    assert resolve_tables(INSTALLED_TABLES) is first.tables


def test_slices_are_read_only_when_a_search_comes_within_four_captures(
        installed: Path) -> None:
    engine = Engine(hash_mb=1)
    tables = engine.tables
    assert tables is not None and tables.max_pieces == 4

    def loaded() -> set[Material]:
        return {material for material in materials(4) if tables.has(material)}

    engine.search(Position.start(), Limit(depth=2))
    assert loaded() == set()  # 24 pieces: nothing is read
    engine.search(Position.from_fen(SEVEN_KINGS), Limit(depth=2))
    # Kings only: the 3- and 4-piece endings of kings that captures can leave.
    assert Material(0, 2, 0, 2) in loaded() and Material(0, 1, 0, 2) in loaded()
    assert Material(0, 1, 0, 1) not in loaded()  # five captures away
    assert Material(1, 0, 0, 2) not in loaded()  # no man can come back


def test_tables_given_as_an_object_are_used_as_they_are(egtb4: Tables) -> None:
    assert Engine(hash_mb=1, tables=egtb4).tables is egtb4


# -- the command line -------------------------------------------------------------------


@pytest.mark.parametrize("command", ["analyse", "bestmove"])
def test_analyse_and_bestmove_use_the_installed_tables_without_a_flag(
        installed: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    assert main([command, LOST, "--depth", "3", "--hash", "1"]) == 0
    if command == "analyse":
        assert "score table loss" in capsys.readouterr().out
    else:  # the tables' move: one of those that hold out longest
        tables = Engine(hash_mb=1).tables
        assert tables is not None
        moves = tables.probe(Position.from_fen(LOST)).best_moves
        assert capsys.readouterr().out.strip() in {str(move) for move in moves}


def test_no_egtb_turns_them_off(installed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", LOST, "--depth", "3", "--hash", "1", "--no-egtb"]) == 0
    assert "table" not in capsys.readouterr().out


def test_egtb_dir_names_other_tables(other_tables: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", LOST, "--depth", "3", "--hash", "1", "--egtb",
                 str(other_tables)]) == 0
    assert "score table loss" in capsys.readouterr().out


def test_egtb_and_no_egtb_together_are_a_usage_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bestmove", LOST, "--egtb", "--no-egtb"]) == 2
    err = capsys.readouterr().err
    assert "not allowed with argument" in err and "Traceback" not in err


@pytest.mark.parametrize("flag, from_tables", [([], True), (["--no-egtb"], False)])
def test_play_uses_the_installed_tables_unless_told_not_to(
        installed: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], flag: list[str], from_tables: bool) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("hint\nquit\n"))
    assert main(["play", "--fen", LOST, "--color", "white", "--level", "3",
                 "--hash", "1", *flag]) == 0
    hint = next(line for line in capsys.readouterr().out.splitlines() if "hint:" in line)
    assert ("score table loss" in hint) == from_tables, hint


def test_play_takes_a_folder_of_tables(other_tables: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Engine] = []
    real = play_command.new_engine

    def spy(hash_mb: int, **options: object) -> Engine:
        made.append(real(hash_mb, **options))
        return made[-1]

    monkeypatch.setattr(play_command, "new_engine", spy)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "--egtb", str(other_tables), "--hash", "1"]) == 0
    assert made[0].tables is not None and made[0].tables.slice_directory == other_tables


# -- match players ----------------------------------------------------------------------


def _engine_player(spec: str) -> EnginePlayer:
    player = parse_player(spec, default_limit=Limit(depth=2), movetime=0.1)
    assert isinstance(player, EnginePlayer)
    return player


def test_an_engine_player_uses_the_installed_tables_and_both_share_them(
        installed: Path) -> None:
    first, second = _engine_player("engine"), _engine_player("engine:depth=4")
    assert first.engine.tables is not None and first.engine.tables is second.engine.tables


def test_egtb_off_and_egtb_dir_in_a_player_spec(installed: Path, other_tables: Path) -> None:
    off = _engine_player("engine:egtb=off")
    elsewhere = _engine_player(f"engine:egtb={other_tables}")
    assert off.engine.tables is None
    assert elsewhere.engine.tables is not None
    assert elsewhere.engine.tables.slice_directory == other_tables
    # A match between them must tell them apart.
    assert len({off.name, elsewhere.name, _engine_player("engine").name}) == 3


def test_a_player_spec_naming_a_folder_without_tables_is_an_error(tmp_path: Path) -> None:
    spec = f"engine:egtb={tmp_path}"
    with pytest.raises(EngineError, match=f"player '{spec}': no endgame tables in"):
        parse_player(spec, default_limit=Limit(depth=2), movetime=0.1)


# -- the engine protocol --------------------------------------------------------------


def _server() -> tuple[EngineServer, io.StringIO]:
    out = io.StringIO()
    return EngineServer(out), out


def test_the_protocol_engine_uses_the_installed_tables_and_declares_egtbpath(
        installed: Path) -> None:
    server, out = _server()
    assert server.handle("dcp")
    assert "option name EGTBPath type string default <installed>" in out.getvalue()
    assert server._engine.tables is not None
    assert server._engine.tables.slice_directory == installed


def test_egtbpath_none_turns_them_off_and_a_folder_names_others(
        installed: Path, other_tables: Path) -> None:
    server, out = _server()
    server.handle("setoption name EGTBPath value <none>")
    assert server._engine.tables is None
    server.handle(f"setoption name EGTBPath value {other_tables}")
    assert server._engine.tables is not None
    assert server._engine.tables.slice_directory == other_tables
    server.handle("setoption name EGTBPath value <installed>")
    assert server._engine.tables is not None
    assert server._engine.tables.slice_directory == installed
    assert "error" not in out.getvalue()


def test_egtbpath_without_tables_is_an_error_and_changes_nothing(
        installed: Path, tmp_path: Path) -> None:
    server, out = _server()
    engine = server._engine
    server.handle(f"setoption name EGTBPath value {tmp_path}")
    assert out.getvalue().startswith(f"error no endgame tables in {tmp_path}")
    assert server._engine is engine


# -- serve ------------------------------------------------------------------------------


def test_serve_plays_with_the_installed_tables(installed: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    uvicorn = pytest.importorskip("uvicorn")
    from doublecorner.web import app as app_module

    given: list[Tables | None] = []
    real = app_module.create_app

    def spy(*arguments: object, tables: Tables | None = None, **options: object) -> object:
        given.append(tables)
        return real(*arguments, tables=tables, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(app_module, "create_app", spy)
    monkeypatch.setattr(uvicorn.Server, "run", lambda server, sockets=None: None)
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "games.sqlite3"),
                 "--hash", "1"]) == 0
    assert given[0] is not None and given[0].slice_directory == installed
    assert f"plays with the endgame tables in {installed} (up to 4 pieces)" in (
        capsys.readouterr().out)
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "games.sqlite3"),
                 "--hash", "1", "--no-egtb"]) == 0
    assert given[1] is None
    assert "plays without endgame tables" in capsys.readouterr().out
