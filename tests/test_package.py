"""The package surface: exports and layering."""

from __future__ import annotations

import ast
from pathlib import Path

import doublecorner

PACKAGE = Path(doublecorner.__file__).parent


def test_all_lists_exactly_the_public_reexports() -> None:
    public = {name for name in vars(doublecorner)
              if not name.startswith("_") and not isinstance(getattr(doublecorner, name),
                                                             type(doublecorner))}
    public.discard("annotations")
    assert set(doublecorner.__all__) == public
    for name in doublecorner.__all__:
        assert getattr(doublecorner, name) is not None


def test_kernel_imports_nothing_from_the_layers_above() -> None:
    for path in (PACKAGE / "kernel").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(
                    "doublecorner"):
                assert node.module.startswith(("doublecorner.kernel", "doublecorner._jit")), (
                    path.name, node.module)


def test_core_never_imports_the_cli() -> None:
    for path in PACKAGE.glob("*.py"):
        if path.name in {"cli.py", "__main__.py"}:
            continue
        source = path.read_text()
        assert "doublecorner.cli" not in source, path.name


def _imports_svg(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name == "doublecorner.svg" for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return node.module == "doublecorner.svg" or (
            node.module == "doublecorner" and any(alias.name == "svg" for alias in node.names))
    return False


def test_core_imports_svg_only_inside_the_functions_that_draw() -> None:
    for path in PACKAGE.glob("*.py"):
        if path.name == "svg.py":
            continue
        tree = ast.parse(path.read_text())
        assert not any(_imports_svg(node) for node in tree.body), path.name
    board_source = ast.parse((PACKAGE / "board.py").read_text())
    lazy = [function.name for function in ast.walk(board_source)
            if isinstance(function, ast.FunctionDef)
            and any(_imports_svg(node) for node in ast.walk(function))]
    assert lazy == ["_repr_svg_"]
