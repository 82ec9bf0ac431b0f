"""Ctrl-C, for real: SIGINT sent to ``analyse``, ``bestmove``, ``play`` and ``perft`` processes.

Each process is caught in the middle of its work: ``analyse`` once it has
printed a depth, ``perft`` once it says it is counting or has counted a root
move, ``bestmove`` and ``play`` once their search threads run (read from
``/proc``, so these tests need Linux). They must end within seconds, keep
what they had, and print no traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from doublecorner import Board

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(),
                                reason="finds the worker threads in /proc (Linux)")

PROMPT_SECONDS = 30.0  # generous for a loaded machine; a missed SIGINT runs for minutes
# One thread per library, so that the only extra threads are the command's own.
QUIET_THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                 "NUMBA_NUM_THREADS": "1"}


Start = Callable[..., subprocess.Popen[str]]


@pytest.fixture
def start() -> Iterator[Start]:
    """``start(*argv)`` runs ``python -m doublecorner ARGV``; what still runs at the end is killed.

    Keyword options: ``stdin``, ``quiet_threads=False`` for the environment as it
    is, and ``sigint``: the child's SIGINT disposition at its start, SIG_DFL by
    default, whatever this test run's is (a shell script's background job, such
    as ``pytest ... &``, starts with SIGINT ignored, and a child inherits that).
    """
    processes: list[subprocess.Popen[str]] = []

    def run(*argv: str, stdin: int | None = subprocess.DEVNULL,
            quiet_threads: bool = True, sigint: Any = signal.SIG_DFL) -> subprocess.Popen[str]:
        env = {**os.environ, **QUIET_THREADS} if quiet_threads else dict(os.environ)
        process = subprocess.Popen([sys.executable, "-m", "doublecorner", *argv], stdin=stdin,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=env, preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                             sigint))
        processes.append(process)
        return process

    yield run
    for process in processes:  # a failed test leaves its count running for years
        if process.poll() is None:
            process.kill()
            process.communicate()


def perft_progress(process: subprocess.Popen[str]) -> str:
    """The first progress line of a ``perft`` (past any compile notice)."""
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith("perft: "):
            return line
    pytest.fail(f"perft ended without progress: {process.communicate()}")


def wait_for_threads(process: subprocess.Popen[str], count: int) -> None:
    """Wait until ``process`` runs at least ``count`` threads (its worker has started)."""
    deadline = time.monotonic() + PROMPT_SECONDS * 4  # the first run may compile the kernel
    tasks = Path(f"/proc/{process.pid}/task")
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the process ended early: {process.communicate()}")
        try:
            if len(list(tasks.iterdir())) >= count:
                return
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    process.kill()
    pytest.fail("the worker thread never started")


def interrupt(process: subprocess.Popen[str], stdin_text: str | None = None) -> tuple[int, str,
                                                                                       str]:
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(stdin_text, timeout=PROMPT_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"still running {PROMPT_SECONDS:g} s after SIGINT: {err}")
    assert "Traceback" not in err, err
    return process.returncode, out, err


def test_ctrl_c_stops_analyse_and_keeps_the_best_move_so_far(start: Start) -> None:
    process = start("analyse", "--time", "600")
    assert process.stdout is not None
    first = process.stdout.readline()  # a finished depth: the search is on
    assert first.startswith("depth 1 "), first
    status, out, err = interrupt(process)
    assert status == 0
    last = out.splitlines()[-1]
    assert last.startswith("bestmove ")
    assert Board().parse_move(last.split()[1]) in Board().legal_moves
    assert "search stopped" in err


def test_ctrl_c_stops_bestmove_and_prints_the_move(start: Start) -> None:
    process = start("bestmove", "--time", "600")
    wait_for_threads(process, 3)  # the main thread, the search's and its clock's
    status, out, _ = interrupt(process)
    assert status == 0
    assert Board().parse_move(out.strip()) in Board().legal_moves


def test_ctrl_c_while_the_engine_thinks_in_play_keeps_the_game(start: Start) -> None:
    process = start("play", "--color", "white", "--time", "600", stdin=subprocess.PIPE)
    wait_for_threads(process, 3)
    status, out, err = interrupt(process, "fen\nquit\n")
    assert status == 0, err
    assert "engine plays" in out  # the move found so far is played, and the game goes on
    fens = [line.partition("> ")[2] for line in out.splitlines() if "> W:" in line]
    assert fens and Board(fens[-1]).turn.name == "WHITE"  # 'fen' after the engine's move


def test_ctrl_c_stops_perft_in_the_middle_of_a_count(start: Start) -> None:
    # The first root move, 21-25, leaves White without a move: its count ends at
    # once and says so; the second one's count would run for years.
    process = start("perft", "25", "--fen", "B:W29:B21,22,K31,K32")
    assert perft_progress(process) == "perft: 0/7 root moves counted\n"
    assert process.stderr is not None
    second = process.stderr.readline()
    assert second == "perft: 1/7 root moves counted\n", second
    status, out, err = interrupt(process)
    assert status == 1
    assert out == ""
    assert err.strip() == "doublecorner: interrupted"


def test_sigint_stops_a_command_started_with_sigint_ignored(start: Start) -> None:
    # A script's `doublecorner perft 16 & ... kill -INT $!`: the shell starts the
    # job with SIGINT ignored, yet the SIGINT sent to it means "stop".
    process = start("perft", "16", quiet_threads=False, sigint=signal.SIG_IGN)
    assert perft_progress(process) == "perft: 0/7 root moves counted\n"
    status, out, err = interrupt(process)
    assert (status, out) == (1, "")
    assert err.strip() == "doublecorner: interrupted"


def test_ctrl_c_stops_a_deep_perft_from_the_start_position(start: Start) -> None:
    # The plain case: the first root move alone takes minutes, numba's threads as set up.
    process = start("perft", "16", quiet_threads=False)
    assert perft_progress(process) == "perft: 0/7 root moves counted\n"  # counting now
    status, out, err = interrupt(process)
    assert (status, out) == (1, "")
    assert err.strip() == "doublecorner: interrupted"
