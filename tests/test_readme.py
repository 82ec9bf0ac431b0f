"""The README's promises that a doctest cannot keep: its commands and its example output."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from doublecorner.cli import main

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def shell_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL)]


def test_ci_runs_the_two_commands_exactly_as_the_readme_gives_them() -> None:
    section = README.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    commands = shell_blocks(section)
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    for command in commands:
        assert command in ci, f"CI does not run {command!r} verbatim"
        # Debian's python3 refuses a plain pip install (PEP 668): everything in a venv.
        assert command.startswith("python3 -m venv .venv && ")
        assert " pip " not in f" {command} ".replace(".venv/bin/python -m pip", "")


def test_extras_are_installed_from_the_folder_not_from_an_index() -> None:
    """The package is not on PyPI: 'doublecorner[envs]' cannot be installed by name."""
    for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        assert "doublecorner[" not in path.read_text(encoding="utf-8"), path.name


def test_the_analyse_example_shows_what_the_engine_prints_now(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Fixed depth is deterministic: all but the speed and time figures must match."""
    shown = README.split("$ doublecorner analyse --depth 8\n", 1)[1].split("```", 1)[0]
    assert main(["analyse", "--depth", "8"]) == 0
    printed = capsys.readouterr().out

    def steady(text: str) -> list[str]:
        return [re.sub(r" nps \d+ time [\d.]+", "", line) for line in text.splitlines()]

    assert steady(shown) == steady(printed)
