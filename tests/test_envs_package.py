"""The envs package stays out of the core: imports, the missing-extra message, the exports."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import gymnasium

import doublecorner
import doublecorner.envs

PACKAGE = Path(doublecorner.__file__).parent


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)


def test_importing_the_core_imports_no_environment_library() -> None:
    completed = _run("import sys, doublecorner\n"
                     "board = doublecorner.Board()\n"
                     "print(sorted(name for name in sys.modules if name.split('.')[0] in "
                     "{'gymnasium', 'pettingzoo'} or name.startswith('doublecorner.envs')))")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


def test_no_core_module_imports_the_envs_package() -> None:
    for path in PACKAGE.rglob("*.py"):
        if "envs" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert not name.startswith(("doublecorner.envs", "gymnasium", "pettingzoo")), (
                    path, name)


def test_a_missing_extra_names_it() -> None:
    for missing in ("pettingzoo", "gymnasium"):
        completed = _run(f"import sys\nsys.modules[{missing!r}] = None\n"
                         "import doublecorner.envs")
        assert completed.returncode != 0
        last = completed.stderr.strip().splitlines()[-1]
        assert last.startswith("ImportError: doublecorner.envs needs"), last
        assert missing in last and "pip install '.[envs]'" in last


def test_all_lists_the_public_names() -> None:
    public = {name for name in vars(doublecorner.envs) if not name.startswith("_")
              and not isinstance(getattr(doublecorner.envs, name), type(doublecorner))}
    public -= {"annotations"}
    assert set(doublecorner.envs.__all__) == public


def test_the_gymnasium_id_makes_the_environment() -> None:
    env = gymnasium.make(doublecorner.envs.GYMNASIUM_ID, play_as="white", max_steps=10)
    assert isinstance(env.unwrapped, doublecorner.envs.DoubleCornerEnv)
    assert env.unwrapped.max_steps == 10
    env.close()
