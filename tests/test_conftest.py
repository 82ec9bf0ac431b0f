"""The test run itself: what it says at its end."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_a_run_without_chromium_ends_with_a_loud_notice() -> None:
    """Skipped browser tests are said at the end of the run, not only counted as skipped."""
    environment = {**os.environ, "DOUBLECORNER_CHROMIUM": "/nonexistent/chromium"}
    environment.pop("DOUBLECORNER_REQUIRE_BROWSER", None)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "tests/test_web_e2e.py"], cwd=ROOT, env=environment,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 5, run.stdout + run.stderr  # pytest's "no tests ran"
    lines = run.stdout.strip().splitlines()
    source = (ROOT / "tests" / "test_web_e2e.py").read_text(encoding="utf-8")
    count = len(re.findall(r"^def test_", source, re.MULTILINE))
    assert count > 0
    assert f"THE {count} BROWSER TESTS DID NOT RUN" in lines[-4] and "skipped" in lines[-1]
    assert "no chromium at /nonexistent/chromium" in lines[-3]
    assert run.stdout.count("DID NOT RUN") == 1
