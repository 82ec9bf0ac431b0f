"""Loading the kernel: one process compiles at a time, and only a real compile is announced."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from doublecorner.warmup import ensure_compiled, load_announced

numba = pytest.importorskip("numba")
NOTICE = "doublecorner: compiling the move generator with numba"


def test_two_processes_on_an_empty_cache_compile_once(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    env.pop("NUMBA_DISABLE_JIT", None)
    # Both start before either has stored anything: each finds the cache empty.
    processes = [subprocess.Popen([sys.executable, "-m", "doublecorner", "perft", "4"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env) for _ in range(2)]
    results = [process.communicate(timeout=900) for process in processes]
    assert [process.returncode for process in processes] == [0, 0], results
    assert [out for out, _ in results] == ["1469\n", "1469\n"]
    assert sorted(err.count(NOTICE) for _, err in results) == [0, 1], results


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="numba compiles nothing")
def test_a_real_compile_is_announced_at_once(caplog: pytest.LogCaptureFixture) -> None:
    @numba.njit(cache=False)
    def fresh(value: int) -> int:  # compiled here for the first time
        return value + 1

    def load() -> None:
        fresh(1)

    with caplog.at_level(logging.WARNING, logger="doublecorner"):
        load_announced("a fresh function", load)
    # Another process compiling into the same cache meanwhile makes it wait first.
    messages = [record.getMessage() for record in caplog.records
                if not record.getMessage().startswith("doublecorner: waiting for another")]
    assert messages[0].startswith("doublecorner: compiling a fresh function with numba")
    assert messages[1].startswith("doublecorner: compiled in ")
    assert fresh(2) == 3


def test_a_load_without_compiling_says_nothing(caplog: pytest.LogCaptureFixture) -> None:
    ensure_compiled()
    with caplog.at_level(logging.WARNING, logger="doublecorner"):
        load_announced("the move generator, again", ensure_compiled.__wrapped__)
    assert caplog.records == []
