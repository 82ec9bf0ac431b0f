"""No two modules import each other: the package's imports, those inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parent.parent / "src" / "doublecorner"
# Jupyter display hooks draw with svg lazily; the one accepted way back up.
DISPLAY_HOOKS = {"_repr_svg_", "_repr_html_", "_repr_png_"}
# Circles excused for now: none (issue 15 broke every one it named).
KNOWN_CIRCLES: set[frozenset[str]] = set()


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that ``path`` imports anywhere, display hooks left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hooks = [node for node in ast.walk(tree)
             if isinstance(node, ast.FunctionDef) and node.name in DISPLAY_HOOKS]
    in_hooks = {id(inner) for hook in hooks for inner in ast.walk(hook)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in in_hooks:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {name for name in names if name in modules}
    return found


def circles() -> set[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    modules = set(paths)
    graph = {name: imported_modules(path, modules) - {name} for name, path in paths.items()}
    # A package's __init__ re-exporting its modules is not a circle with them.
    for name in graph:
        graph[name] = {target for target in graph[name] if not name.startswith(f"{target}.")}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                found.add(frozenset(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return found


def test_no_new_import_circle() -> None:
    new = circles() - KNOWN_CIRCLES
    assert not new, "modules that import each other: " + "; ".join(
        " <-> ".join(sorted(group)) for group in new)


def test_the_known_circles_are_still_there() -> None:
    """A circle broken must leave the list, or the list would excuse its return."""
    assert circles() >= KNOWN_CIRCLES


def test_the_cli_s_engine_and_game_analysis_no_longer_import_each_other() -> None:
    assert not any({"doublecorner.cli.engine", "doublecorner.cli.game_analysis"} <= group
                   for group in circles())


def test_whole_game_analysis_is_a_package_of_its_own() -> None:
    """Not modules loose at the package root (issue 15): game, plot and Ray in analysis/."""
    assert not [path.name for path in PACKAGE.glob("analysis*.py")]
    assert {path.stem for path in (PACKAGE / "analysis").glob("*.py")} >= {
        "__init__", "game", "plot", "distributed"}
