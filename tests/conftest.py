"""Shared fixtures and hypothesis strategies."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import strategies as st

from doublecorner import Color, Position
from doublecorner.egtb import Tables, ensure_tables, load_tables

DATA = Path(__file__).with_name("data")
BLACK_CROWN_ROW = 0xF0000000
WHITE_CROWN_ROW = 0x0000000F


def read_tsv(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(newline="", encoding="utf-8") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


@st.composite
def positions(draw: st.DrawFn, max_pieces: int = 24) -> Position:
    """Any legal arrangement: disjoint sides of at most 12 pieces, kings anywhere, men off
    their crowning rows."""
    squares = draw(st.lists(st.integers(0, 31), unique=True, max_size=max_pieces))
    black = white = kings = 0
    for index in squares:
        bit = 1 << index
        is_black = draw(st.booleans())
        if (black if is_black else white).bit_count() == 12:  # no side has more
            is_black = not is_black
        is_king = draw(st.integers(0, 3)) == 0
        if (is_black and bit & BLACK_CROWN_ROW) or (not is_black and bit & WHITE_CROWN_ROW):
            is_king = True
        if is_black:
            black |= bit
        else:
            white |= bit
        if is_king:
            kings |= bit
    return Position(black, white, kings, draw(st.sampled_from(Color)))


@pytest.fixture(scope="session", autouse=True)
def no_installed_tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The user's data folder is an empty one of the run's (XDG_DATA_HOME, Linux's).

    Every engine plays with the tables installed there by default: a test must
    not find the machine's, nor its games or books. Tests that want installed
    tables put them in ``data_home / "doublecorner" / "egtb"``; subprocesses
    inherit the variable.
    """
    data_home = tmp_path_factory.mktemp("data-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(data_home))
        yield data_home


@pytest.fixture(scope="session")
def egtb4_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Endgame tables of up to 4 pieces, built once for the whole run (seconds)."""
    directory = tmp_path_factory.mktemp("egtb4")
    ensure_tables(directory, max_pieces=4)
    return directory


@pytest.fixture(scope="session")
def egtb4(egtb4_dir: Path) -> Tables:
    return load_tables(egtb4_dir, max_pieces=4)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A Ray of two CPUs on this machine for one test module (skipped without Ray)."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True,
             log_to_driver=False)
    yield
    ray.shutdown()


BROWSER_TESTS = Path(__file__).with_name("test_web_e2e.py")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say loudly, at the very end, that the browser tests did not run.

    Without chromium the whole module is skipped, which the summary counts as
    "2 skipped" among others: easy to read as a pass. The notice comes just
    before that last line.
    """
    for report in terminalreporter.stats.get("skipped", []):
        if getattr(report, "nodeid", None) != f"tests/{BROWSER_TESTS.name}":
            continue
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        count = len(re.findall(r"^def test_", BROWSER_TESTS.read_text(encoding="utf-8"),
                               re.MULTILINE))
        terminalreporter.write_sep("!", f"THE {count} BROWSER TESTS DID NOT RUN", red=True,
                                   bold=True)
        terminalreporter.write_line(f"tests/{BROWSER_TESTS.name}: "
                                    f"{reason.removeprefix('Skipped: ')}", red=True, bold=True)
        terminalreporter.write_line("The web page is untested in this run; install chromium "
                                    "(apt-get install chromium) to run them.", red=True,
                                    bold=True)
        return  # the module is skipped twice: as tests and as doctests
