"""The suite's own layout (tests/README.md): tests by area in packages, shared helpers in tests/support."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_test_modules_live_in_area_packages():
    assert not list(TESTS.glob("test_*.py")), "a test module directly in tests/: put it in its area's folder"
    folders = {p.parent for p in TESTS.rglob("test_*.py") if "bench" not in p.relative_to(TESTS).parts}
    assert folders and all((folder / "__init__.py").is_file() for folder in folders)
    assert (TESTS / "support" / "__init__.py").is_file()


def test_no_test_module_imports_another():
    offenders = []
    for path in TESTS.rglob("test_*.py"):
        own = ".".join(("tests", *path.relative_to(TESTS).with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else (
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            offenders += [f"{own} imports {name}" for name in names
                          if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_") and name != own]
    assert not offenders, offenders
