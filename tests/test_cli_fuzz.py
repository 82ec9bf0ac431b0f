"""Every subcommand against hostile command lines and stdin streams: never a traceback.

The vectors are made from the parser itself, so a new option is fuzzed as
soon as it exists: each option of each subcommand gets values that no
option should accept as they are (numbers too large for any range,
other scripts' digits, ``1_0``, ``nan``, ``inf``, empty text, a megabyte
of text) and paths that cannot be used (a folder, a missing folder, a
file that is not what is expected); each positional gets hostile FENs,
moves and paths; the commands that read stdin get hostile streams (nothing,
blank lines, bytes that are not UTF-8, one endless line, NULs, a UTF-16
text, random bytes). The rule checked is the README's: results on stdout,
diagnostics on stderr, never a traceback; exit 0, 1 or 2, and a 2 is said
in one line. A number that the option's type must refuse (its type is not
text) exits 2. Each command starts from a cheap base (a two-piece position
at depth 1, one opening between random players, 2-piece tables), so that
an accepted value costs little; ``--ray`` (it would start a cluster) and
``--engine`` programs that hang are left to their own tests.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from doublecorner.cli import build_parser, main

HUGE = "9" * 30
NOT_NUMBERS = [HUGE, "-" + HUGE, "\u00b2", "\u0661\u0662", "\uff11", "1_0", "nan", "inf",
               "-inf", "1e999", "0x10", "", " ", "5 5", "x" * 5000]
TEXTS = ["", " ", "-", "x" * 100_000, "\u202e\u0661\u0662", "..", "{missing}", "{folder}",
         "{garbage}", "/dev/null"]
FENS = ["", "B", "W:", "B:W:B", "B:W33:B1", "B:W0:B1", "B:W1:B1", "B:W21:B1:B2",
        "B:W\uff12\uff11:B1", "B:W21-:B1", "B:WK" + ",K".join(map(str, range(1, 14))) + ":B32",
        "B:W21," * 20_000 + ":B1", "X:W21:B1", "B:W21:B1 extra"]
MOVES = ["", "11-15 11-15", "\u0661\u0661-\u0661\u0665", "99-100", "11x", "1x10x3x12x19x28",
         "11-15 " * 5000]
PDN_GAME = '[Black "a"]\n[White "b"]\n[Result "*"]\n1. 11-15 23-19 2. 8-11 22-17 *\n'
STREAMS = [b"", b"\n", b"\n\n\n", b"\xff\xfe\xfd\n", b"\x00" * (2 << 20),
           b"B:W18:B14\r\n\r\n", "\ufeffB:W18:B14\n".encode("utf-16"),
           b"x" * (3 << 20), b"11-15\n" * 50, b"quit\n", b"undo\nundo\nflip\nhint\n",
           b"save /nonexistent/dir/game.pdn\n", b"go depth \xc2\xb2\nposition startpos\n",
           *(random.Random(seed).randbytes(4096) for seed in range(4))]
NOTICES = ("doublecorner: compiling", "doublecorner: compiled in")
# Where an accepted value would otherwise start expensive work.
BASES: dict[str, list[str]] = {
    "show": [],
    "moves": [],
    "perft": ["2"],
    "analyse": ["B:W18:B14", "--depth", "1"],
    "bestmove": ["B:W18:B14", "--depth", "1"],
    "engine": [],
    "match": ["random", "random:seed=1", "--openings", "1", "--quiet"],
    "play": ["--level", "1"],
    "pdn check": ["{pdn}"],
    "pdn stats": ["{pdn}"],
    "pdn convert": ["{pdn}", "{out}"],
    "serve": ["--port", "0", "--db", "{tmp}/web.sqlite3"],
    "egtb build": ["--pieces", "2", "--dir", "{tmp}/egtb"],
    "egtb verify": ["--pieces", "2", "--dir", "{tmp}/egtb"],
    "egtb probe": ["B:WK32:BK1", "--dir", "{tmp}/egtb"],
    # Self-play and fitting take seconds even at their smallest: their bases fail
    # (a file where a folder goes), and --out and the data are fuzzed only with
    # what must fail.
    "train selfplay": ["--out", "{garbage}", "--games", "1", "--nodes", "20"],
    "train fit": ["{missing}", "--out", "{tmp}/net.dcnn"],
    "train info": ["{missing}"],
    "train export": ["{folder}", "--pdn", "{tmp}/x.pdn"],
    "train starts": ["{missing}", "--out", "{tmp}/starts.txt"],
    "train deepen": ["{missing}", "--out", "{tmp}/deep", "--nodes", "20"],
    "db import": ["{pdn}", "--db", "{tmp}/games.sqlite3"],
    "db explore": ["--db", "{tmp}/games.sqlite3"],
    "db search": ["--db", "{tmp}/games.sqlite3"],
    "db show": ["1", "--db", "{tmp}/games.sqlite3"],
    "book build": ["--db", "{missing}", "--out", "{tmp}/b.book"],
    "book show": ["{missing}"],
    "book deepen": ["--out", "{folder}", "--book", "{missing}", "--positions", "1"],
}
LEFT_OUT = {"--ray", "--engine", "-h", "--help"}
# Values that make a working folder or file of these, where the work takes seconds.
MAKES_WORK = {("train selfplay", "--out"), ("train fit", "data"), ("train fit", "--out"),
              ("train deepen", "data"), ("book deepen", "--out")}
FAILING_TEXTS = ["x" * 100_000, "{missing}", "{garbage}", "/dev/null"]
STDIN_COMMANDS = [["moves", "-"], ["engine"], ["play", "--level", "1"], ["pdn", "check", "-"],
                  ["pdn", "stats", "-"], ["db", "import", "-", "--db", "{tmp}/games.sqlite3"]]
EXTRA = [[], ["--bogus"], ["nosuchcommand"], ["pdn"], ["egtb"], ["db"], ["train"], ["book"],
         ["--version", "x"], ["analyse", "--depth"], ["analyse", "--", "-x"],
         ["perft"], ["perft", "28"], ["perft", "-1"], ["perft", "2", "--fen", "B:W:B"],
         ["match", "engine:depth=x", "random"], ["match", "engine:hash=0", "random"],
         ["match", "engine:eval=none", "random"],
         ["match", "random", "random", "--openings", "5-3"],
         ["match", "random", "random", "--openings", "1-999"],
         ["match", "random", "random", "--sprt", "elo0=10,elo1=0"],
         ["match", "random", "random", "--sprt", "alpha=2"],
         ["match", "random", "random", "--resume"],
         ["match", "x", "random", "--engine", "name=x,cmd=cat", "--openings", "1"],
         ["match", "x", "random", "--engine", "name=x,cmd=/no/such/program", "--openings", "1"],
         ["match", "x", "random", "--engine", "cmd=cat"],
         ["match", "random", "random", "--openings", "1", "--results", "{folder}"],
         ["match", "random", "random", "--openings", "1", "--pdn", "{missing}/x.pdn"],
         ["show", "--svg", "{missing}/a.svg"], ["show", "--svg", "{folder}"],
         ["analyse", "{pdn}", "-o", "{folder}", "--depth", "1"],
         ["analyse", "{pdn}", "--plot", "{tmp}/plot.gif", "--depth", "1"],
         ["analyse", "{garbage}", "--depth", "1"], ["pdn", "check", "{garbage}", "{folder}"],
         ["pdn", "convert", "{pdn}", "{pdn}"], ["egtb", "probe", "B:W1,2,3,4,5,6,7:B32"],
         ["egtb", "probe", "B:WK32:BK1", "--dir", "{garbage}"],
         ["serve", "--port", "0", "--db", "{garbage}"], ["serve", "--host", "no.such.host."],
         ["db", "show", "999999", "--db", "{tmp}/games.sqlite3"],
         ["db", "explore", "--moves", "11-15", "99-1", "--db", "{tmp}/games.sqlite3"]]


def commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
             ) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every leaf subcommand: its words and its parser."""
    subparsers = [action for action in parser._actions
                  if isinstance(action, argparse._SubParsersAction)]
    if not subparsers:
        yield prefix, parser
        return
    seen: set[int] = set()
    for name, child in subparsers[0].choices.items():
        if id(child) not in seen:  # an alias ('analyze') is the same parser
            seen.add(id(child))
            yield from commands(child, (*prefix, name))


def is_number_option(action: argparse.Action) -> bool:
    """An option whose type must refuse every one of :data:`NOT_NUMBERS`."""
    return action.type not in (None, str, Path) and not action.choices


def vectors() -> Iterator[tuple[list[str], bool]]:
    """``(argv, must_exit_2)`` for every hostile command line."""
    for words, parser in commands(build_parser()):
        base = BASES[" ".join(words)]
        positionals = [action for action in parser._actions if not action.option_strings]
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction) or set(action.option_strings) & LEFT_OUT:
                continue
            if action.nargs == 0:  # a flag: only its presence varies
                yield [*words, *base, action.option_strings[0]], False
                continue
            if action.option_strings:
                # The option replaces the base's own value of it (and, for one
                # of a group of limits, the base's limit).
                rest = _without(base, action, parser)
                for value in _values(action, " ".join(words)):
                    # Empty text may stand for the option's default (--sprt '').
                    yield ([*words, *rest, action.option_strings[0], value],
                           is_number_option(action) and bool(value.strip()))
                continue
            # A positional replaces the base's word in its place, or goes there.
            index = positionals.index(action)
            leading = next((at for at, word in enumerate(base) if word.startswith("-")),
                           len(base))
            for value in _values(action, " ".join(words)):
                argv = list(base)
                if index < leading:
                    argv[index] = value
                else:
                    argv.insert(leading, value)
                yield [*words, *argv], is_number_option(action)
    for argv in EXTRA:
        yield argv, False


def _values(action: argparse.Action, command: str) -> list[str]:
    name = action.option_strings[0] if action.option_strings else action.dest
    if (command, name) in MAKES_WORK:
        return FAILING_TEXTS
    if is_number_option(action):
        return NOT_NUMBERS
    if action.dest == "fen":
        return FENS
    if action.dest == "moves":
        return MOVES + TEXTS[:2]
    return TEXTS + NOT_NUMBERS[:3]


def _without(base: list[str], action: argparse.Action, parser: argparse.ArgumentParser
             ) -> list[str]:
    excluded = set(action.option_strings)
    for group in parser._mutually_exclusive_groups:
        if action in group._group_actions:
            excluded |= {name for other in group._group_actions for name in other.option_strings}
    rest: list[str] = []
    skip = False
    for word in base:
        if skip:
            skip = False
            continue
        if word in excluded:
            skip = True
            continue
        rest.append(word)
    return rest


VECTORS = list(vectors())


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The files the vectors name: a PDN file, a folder, garbage, a missing path."""
    tmp = tmp_path_factory.mktemp("fuzz")
    (tmp / "games.pdn").write_text(PDN_GAME, encoding="utf-8")
    (tmp / "folder").mkdir()
    (tmp / "garbage.bin").write_bytes(random.Random(15).randbytes(10_000))
    return {"tmp": str(tmp), "pdn": str(tmp / "games.pdn"), "out": str(tmp / "out.pdn"),
            "folder": str(tmp / "folder"), "garbage": str(tmp / "garbage.bin"),
            "missing": str(tmp / "no" / "such")}


@pytest.fixture
def quiet_world(sandbox: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The working and data folders inside the sandbox; no server really starts."""
    monkeypatch.chdir(sandbox["tmp"])
    monkeypatch.setenv("XDG_DATA_HOME", str(Path(sandbox["tmp"]) / "data"))
    uvicorn = pytest.importorskip("uvicorn")
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    return sandbox


def run(argv: list[str], stdin: bytes, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def problem(argv: list[str], stdin: bytes, capsys: pytest.CaptureFixture[str],
            monkeypatch: pytest.MonkeyPatch, *, must_exit_2: bool) -> str | None:
    """What is wrong with the command's answer, shortly; None if nothing."""
    shown = " ".join(word[:30] for word in argv)[:200]
    try:
        status, _, err = run(argv, stdin, capsys, monkeypatch)
    except BaseException as error:  # what would be a traceback
        capsys.readouterr()
        return f"{shown}: raised {type(error).__name__}: {str(error)[:200]}"
    if "Traceback" in err:
        return f"{shown}: traceback {err[-300:]}"
    if status not in (0, 1, 2):
        return f"{shown}: exit {status}"
    if must_exit_2 and status != 2:
        return f"{shown}: exit {status}, expected 2"
    if status == 2:
        lines = [line for line in err.splitlines() if line and not line.startswith(NOTICES)]
        if len(lines) != 1 or "error" not in lines[0]:
            return f"{shown}: {len(lines)} lines on stderr: {err[:300]}"
        if len(lines[0]) > 1000:
            return f"{shown}: a line of {len(lines[0])} characters: {lines[0][:200]}"
    return None


@pytest.mark.parametrize("chunk", range(8))
def test_hostile_command_lines(chunk: int, quiet_world: dict[str, str],
                               capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    problems = []
    for template, must_exit_2 in VECTORS[chunk::8]:
        argv = [word.format(**quiet_world) if "{" in word and len(word) < 100 else word
                for word in template]
        problems.append(problem(argv, b"", capsys, monkeypatch, must_exit_2=must_exit_2))
    found = [text for text in problems if text is not None]
    assert not found, f"{len(found)} of {len(problems)}:\n" + "\n".join(found[:40])


@pytest.mark.parametrize("template", STDIN_COMMANDS, ids=" ".join)
def test_hostile_streams_on_stdin(template: list[str], quiet_world: dict[str, str],
                                  capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    argv = [word.format(**quiet_world) for word in template]
    problems = [problem([*argv, f"<{stream[:20]!r}"][:-1], stream, capsys, monkeypatch,
                        must_exit_2=False) for stream in STREAMS]
    found = [f"{text} <{stream[:20]!r}" for text, stream in zip(problems, STREAMS, strict=True)
             if text is not None]
    assert not found, "\n".join(found)


def test_the_fuzzing_is_wide() -> None:
    """A few hundred command lines, every subcommand among them."""
    assert len(VECTORS) >= 300
    fuzzed = {" ".join(words) for words, _ in commands(build_parser())}
    # A new subcommand needs a cheap base in BASES to be fuzzed from.
    assert fuzzed == set(BASES), f"give BASES an entry for: {sorted(fuzzed - set(BASES))}"
