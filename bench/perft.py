"""Perft speed of doublecorner beside its PyPI peers, as ratios.

Usage::

    python bench/perft.py              # full run, about a minute (the first also installs peers)
    python bench/perft.py --quick      # smaller depths: a smoke run
    python bench/perft.py --no-peers   # doublecorner only
    python bench/perft.py --json       # one JSON document on stdout instead of the table

Everything starts from the start position, ``B:W21-32:B1-12``, Black to move.

* doublecorner runs in this interpreter: the kernel's bulk-counting perft
  (``doublecorner.perft.perft``) and ``doublecorner.perft.board_perft``, a perft over the public
  ``Board`` API (``legal_moves``, ``push``, ``pop``). Each is called once at a
  small depth first, so compiling or loading the numba cache is not timed.
* Each peer runs in its own virtualenv, ``bench/.venvs/<name>`` (two of them
  install a package named ``draughts``), created and filled from PyPI on first
  use, through a worker script in ``bench/peers/`` that prints one JSON line.
  A peer that cannot be installed, fails or times out is reported and skipped.

Every count is checked against the published perft (``shared/refdata/perft.tsv``
beside the repository, else the copy embedded below). Progress goes to stderr.
Exit status: 0, or 1 when doublecorner cannot be imported or miscounts.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
VENV_DIR = BENCH_DIR / ".venvs"
WORKER_DIR = BENCH_DIR / "peers"
REFDATA = REPO_ROOT.parent / "shared" / "refdata" / "perft.tsv"

# The peers' workers start from their own libraries' initial position, the same one.
START_FEN = "B:W21-32:B1-12"

# Used only when the reference table is not beside the repository.
EMBEDDED_SOURCE = "embedded copy of OEIS A133046 (Aart Bik; duplicate capture routes kept)"
EMBEDDED_COUNTS = {
    1: 7,
    2: 49,
    3: 302,
    4: 1_469,
    5: 7_361,
    6: 36_768,
    7: 179_740,
    8: 845_931,
    9: 3_963_680,
    10: 18_391_564,
    11: 85_242_128,
    12: 388_623_673,
}

KERNEL_TARGET = 100e6  # leaves per second
WARMUP_DEPTH = 2
INSTALL_TIMEOUT = 900.0  # seconds, for creating one virtualenv and installing into it
PEER_TIMEOUT = 120.0  # seconds, for one worker run


class Core(Enum):
    """What a peer's move generator is written in; it sets the Board-API target."""

    COMPILED = "C++"
    PYTHON = "pure Python"


# How many times faster than a peer the Board-API perft is meant to be.
BOARD_TARGET_FACTOR = {Core.COMPILED: 2.0, Core.PYTHON: 10.0}


@dataclass(frozen=True)
class Peer:
    """A peer library: where it comes from and the worker that times it."""

    name: str
    requirement: str
    worker: str
    core: Core


# Pinned so that runs compare like with like; the py-draughts worker uses the
# library's own mandatory-capture mode, which is internal to it.
PEERS = (
    Peer("py-draughts", "py-draughts==1.10.1", "py_draughts_worker.py", Core.PYTHON),
    Peer("clatsop", "clatsop==0.1.0", "clatsop_worker.py", Core.PYTHON),
    Peer("open-spiel", "open-spiel==2.0.2", "open_spiel_worker.py", Core.COMPILED),
)


@dataclass(frozen=True)
class Plan:
    """The depth of each timed perft, and how many runs each (the fastest counts)."""

    kernel: int
    board: int
    peers: Mapping[str, int]
    repeat: int


# Full: each timed run takes about 1-5 s on a 2-core machine, best of three
# because these machines are noisy. Quick: well under 1 s, once.
FULL = Plan(kernel=11, board=9, peers={"py-draughts": 8, "clatsop": 8, "open-spiel": 8},
            repeat=3)
QUICK = Plan(kernel=9, board=6, peers={"py-draughts": 6, "clatsop": 6, "open-spiel": 6},
             repeat=1)


@dataclass(frozen=True)
class Result:
    """One timed perft."""

    name: str
    method: str
    depth: int
    leaves: int
    seconds: float
    published: int | None
    note: str = ""

    @property
    def leaves_per_second(self) -> float:
        return self.leaves / self.seconds if self.seconds > 0 else float("inf")

    @property
    def matches(self) -> bool | None:
        """Whether the count equals the published one (None: nothing published)."""
        return None if self.published is None else self.leaves == self.published


@dataclass(frozen=True)
class Failure:
    """An implementation that could not be measured, and why."""

    name: str
    reason: str


@dataclass(frozen=True)
class Target:
    """A speed goal and what was measured against it (None: a side was not measured)."""

    goal: str
    required: float
    measured: float | None
    unit: str

    @property
    def is_met(self) -> bool | None:
        return None if self.measured is None else self.measured >= self.required


@dataclass
class Report:
    """Everything one run measured."""

    fen: str
    published_source: str
    kernel: Result | None = None
    board: Result | None = None
    peers: list[Result] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    @property
    def results(self) -> list[Result]:
        ours = [result for result in (self.kernel, self.board) if result is not None]
        return ours + self.peers


class PeerError(RuntimeError):
    """A peer could not be installed or run."""


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- published counts ---------------------------------------------------------


def expand_ranges(fen: str) -> str:
    """Spell out square ranges as the reference table writes them (``W21-23`` -> ``W21,22,23``)."""

    def spell(match: re.Match[str]) -> str:
        return ",".join(str(square) for square in range(int(match[1]), int(match[2]) + 1))

    return re.sub(r"(\d+)-(\d+)", spell, fen)


def load_published(fen: str) -> tuple[dict[int, int], str]:
    """Published perft counts of ``fen`` by depth, and where they come from."""
    if REFDATA.exists():
        wanted = expand_ranges(fen)
        with REFDATA.open(newline="", encoding="utf-8") as handle:
            rows = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            counts = {
                int(row["depth"]): int(row["nodes"])
                for row in rows
                if row["fen"] == wanted and row["duplicate_captures"] == "keep"
            }
        if counts:
            return counts, os.path.relpath(REFDATA, REPO_ROOT)
    return dict(EMBEDDED_COUNTS), EMBEDDED_SOURCE


# -- doublecorner, in this interpreter ------------------------------------------


def timed(count: Callable[[], int], repeat: int = 1) -> tuple[int, float]:
    """``count()`` and the seconds of its fastest run out of ``repeat``."""
    best = float("inf")
    leaves = 0
    for _ in range(repeat):
        start = time.perf_counter()
        leaves = count()
        best = min(best, time.perf_counter() - start)
    return leaves, best


def bench_doublecorner(report: Report, plan: Plan, published: Mapping[int, int]) -> None:
    """Time the kernel perft and the Board-API perft into ``report``."""
    try:
        import doublecorner
        from doublecorner.perft import board_perft, perft
    except ImportError as error:
        report.failures.append(Failure("doublecorner", f"cannot be imported: {error}"))
        return
    position = doublecorner.Position.from_fen(START_FEN)
    progress(f"doublecorner kernel perft, depth {plan.kernel} ...")
    _, first_call = timed(lambda: perft(position, WARMUP_DEPTH))
    leaves, seconds = timed(lambda: perft(position, plan.kernel), plan.repeat)
    report.kernel = Result(
        name="doublecorner",
        method="kernel perft (numba, bulk)",
        depth=plan.kernel,
        leaves=leaves,
        seconds=seconds,
        published=published.get(plan.kernel),
        note=f"first call (compile or cache load): {first_call:.2f} s",
    )
    progress(f"doublecorner Board-API perft, depth {plan.board} ...")
    board = doublecorner.Board(START_FEN)
    board_perft(board, WARMUP_DEPTH)
    leaves, seconds = timed(lambda: board_perft(board, plan.board), plan.repeat)
    report.board = Result(
        name="doublecorner",
        method="Board API push/pop",
        depth=plan.board,
        leaves=leaves,
        seconds=seconds,
        published=published.get(plan.board),
    )


# -- peers, each in its own virtualenv --------------------------------------------


def venv_python(home: Path) -> Path:
    if os.name == "nt":
        return home / "Scripts" / "python.exe"
    return home / "bin" / "python"


def run_setup(command: Sequence[str], what: str) -> None:
    """Run one install step, raising ``PeerError`` with pip's last words if it fails."""
    try:
        completed = subprocess.run(
            command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired as error:
        raise PeerError(f"{what} timed out after {INSTALL_TIMEOUT:.0f} s") from error
    if completed.returncode != 0:
        lines = [
            line
            for line in completed.stderr.splitlines()
            if line.strip() and not line.startswith("WARNING:")
        ]
        raise PeerError(f"{what} failed: {' | '.join(lines[-2:]) or 'no message'}")


def ensure_venv(peer: Peer) -> Path:
    """The interpreter of the peer's virtualenv, creating and filling it on first use."""
    home = VENV_DIR / peer.name
    python = venv_python(home)
    stamp = home / "bench-requirement.txt"
    if python.exists() and stamp.exists() and stamp.read_text().strip() == peer.requirement:
        return python
    progress(f"installing {peer.requirement} into {home.relative_to(REPO_ROOT)} ...")
    run_setup([sys.executable, "-m", "venv", str(home)], "creating the virtualenv")
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet"]
    run_setup([*pip, peer.requirement], f"pip install {peer.requirement}")
    stamp.write_text(peer.requirement + "\n")
    return python


def parse_worker_output(stdout: str) -> dict[str, Any]:
    """The worker's JSON record: its last line of output."""
    lines = stdout.strip().splitlines()
    try:
        record: dict[str, Any] = json.loads(lines[-1])
        int(record["leaves"]), float(record["seconds"])
    except (IndexError, KeyError, TypeError, ValueError) as error:
        raise PeerError(f"unreadable worker output: {stdout[-200:]!r}") from error
    return record


def run_worker(peer: Peer, script: Path, *arguments: str,
               timeout: float = PEER_TIMEOUT) -> str:
    """Run a worker script with the peer's Python (installed if need be); its output.

    :raises PeerError: the virtualenv cannot be made, or the worker times out or fails.
    """
    python = ensure_venv(peer)
    # -E -s: no PYTHON* variables nor user site-packages may reach into the virtualenv.
    command = [str(python), "-E", "-s", str(script), *arguments]
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                   check=False)
    except subprocess.TimeoutExpired as error:
        raise PeerError(f"timed out after {timeout:.0f} s") from error
    if completed.returncode != 0:
        lines = [line for line in completed.stderr.splitlines() if line.strip()]
        raise PeerError(f"worker exited {completed.returncode}: {lines[-1] if lines else ''}")
    return completed.stdout


def run_peer(peer: Peer, depth: int, repeat: int, published: Mapping[int, int]) -> Result:
    """Install the peer if need be, run its worker, and read the timing it prints."""
    progress(f"{peer.name} perft, depth {depth} ...")
    try:
        stdout = run_worker(peer, WORKER_DIR / peer.worker, "--depth", str(depth),
                            "--repeat", str(repeat))
    except PeerError as error:
        raise PeerError(f"{error} at depth {depth}") from error
    record = parse_worker_output(stdout)
    return Result(
        name=peer.name,
        method=str(record.get("method", "")),
        depth=int(record["depth"]),
        leaves=int(record["leaves"]),
        seconds=float(record["seconds"]),
        published=published.get(int(record["depth"])),
        note=str(record.get("note", "")),
    )


def bench_peers(report: Report, plan: Plan, published: Mapping[int, int]) -> None:
    """Time every peer into ``report``; one that fails is recorded and the rest go on."""
    for peer in PEERS:
        try:
            report.peers.append(run_peer(peer, plan.peers[peer.name], plan.repeat, published))
        except (PeerError, OSError) as error:
            report.failures.append(Failure(peer.name, str(error)))
            progress(f"{peer.name}: skipped ({error})")


# -- targets and output -------------------------------------------------------------


def ratio(ours: Result | None, other: Result) -> float | None:
    """How many times faster ``ours`` counts leaves than ``other``."""
    if ours is None:
        return None
    return ours.leaves_per_second / other.leaves_per_second


def targets(report: Report) -> list[Target]:
    """The speed goals, each with its measured value."""
    kernel_speed = report.kernel.leaves_per_second / 1e6 if report.kernel else None
    goals = [Target(">= 100 M leaves/s (kernel)", KERNEL_TARGET / 1e6, kernel_speed, "M/s")]
    by_name = {result.name: result for result in report.peers}
    for peer in PEERS:
        factor = BOARD_TARGET_FACTOR[peer.core]
        other = by_name.get(peer.name)
        measured = ratio(report.board, other) if other else None
        goal = f">= {factor:g}x {peer.name} ({peer.core.value}), Board API"
        goals.append(Target(goal, factor, measured, "x"))
    return goals


def format_count(count: int | None) -> str:
    return "-" if count is None else f"{count:,}"


def format_speed(leaves_per_second: float) -> str:
    if leaves_per_second >= 1e6:
        return f"{leaves_per_second / 1e6:.2f} M"
    return f"{leaves_per_second / 1e3:.1f} k"


def format_ratio(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}x" if value >= 10 else f"{value:.2f}x"


def format_match(result: Result) -> str:
    if result.matches is None:
        return "not published"
    return "yes" if result.matches else f"MISMATCH (published {result.published:,})"


def format_table(rows: Sequence[Sequence[str]], numeric: set[int]) -> list[str]:
    """Rows as aligned text columns, those in ``numeric`` right-aligned."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]

    def line(row: Sequence[str]) -> str:
        cells = (
            cell.rjust(width) if column in numeric else cell.ljust(width)
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))
        )
        return "  ".join(cells).rstrip()

    return [line(rows[0]), "  ".join("-" * width for width in widths), *map(line, rows[1:])]


HEADER = (
    "implementation",
    "method",
    "depth",
    "leaves",
    "seconds",
    "leaves/s",
    "count matches",
    "kernel is",
    "Board API is",
)
NUMERIC_COLUMNS = {2, 3, 4, 5, 7, 8}


def result_row(report: Report, result: Result) -> list[str]:
    """One table row: the measurement and how many times faster doublecorner is."""
    return [
        result.name,
        result.method,
        str(result.depth),
        format_count(result.leaves),
        f"{result.seconds:.3f}",
        format_speed(result.leaves_per_second),
        format_match(result),
        format_ratio(ratio(report.kernel, result)),
        format_ratio(ratio(report.board, result)),
    ]


def target_line(target: Target) -> str:
    measured = "-" if target.measured is None else f"{target.measured:.2f} {target.unit}"
    verdict = {None: "not measured", True: "met", False: "MISSED"}[target.is_met]
    return f"  {target.goal:<45} {measured:>12}  {verdict}"


def format_text(report: Report) -> str:
    """The human-readable report: table, notes, failures and targets."""
    rows = [list(HEADER)] + [result_row(report, result) for result in report.results]
    lines = [f"perft from {report.fen}; published counts: {report.published_source}", ""]
    lines += format_table(rows, numeric=NUMERIC_COLUMNS)
    notes = [f"  {result.name}: {result.note}" for result in report.results if result.note]
    if notes:
        lines += ["", "notes:", *notes]
    if report.failures:
        lines += ["", "not measured:"]
        lines += [f"  {failure.name}: {failure.reason}" for failure in report.failures]
    lines += ["", "targets:", *map(target_line, targets(report))]
    return "\n".join(lines)


def result_record(report: Report, result: Result) -> dict[str, Any]:
    record = asdict(result)
    record.update(
        leaves_per_second=result.leaves_per_second,
        matches_published=result.matches,
        kernel_ratio=ratio(report.kernel, result),
        board_ratio=ratio(report.board, result),
    )
    return record


def format_json(report: Report) -> str:
    """The report as one JSON document."""
    document = {
        "fen": report.fen,
        "published_source": report.published_source,
        "results": [result_record(report, result) for result in report.results],
        "failures": [asdict(failure) for failure in report.failures],
        "targets": [dict(asdict(target), met=target.is_met) for target in targets(report)],
    }
    return json.dumps(document, indent=2)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Perft speed of doublecorner beside its PyPI peers, as ratios."
    )
    parser.add_argument("--quick", action="store_true", help="smaller depths: a smoke run")
    parser.add_argument("--no-peers", action="store_true", help="measure doublecorner only")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    plan = QUICK if args.quick else FULL
    published, source = load_published(START_FEN)
    report = Report(START_FEN, source)
    bench_doublecorner(report, plan, published)
    if not args.no_peers:
        bench_peers(report, plan, published)
    print(format_json(report) if args.json else format_text(report))
    ours = [result for result in (report.kernel, report.board) if result is not None]
    return 0 if len(ours) == 2 and all(result.matches is not False for result in ours) else 1


if __name__ == "__main__":
    sys.exit(main())
