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


# Folders that test across areas rather than one package's code.
CROSS_CUTTING = {"architecture", "bench", "faults", "gpu", "newest", "packaging", "plugins", "support"}


def test_test_folders_are_named_after_their_package():
    """Each area's tests sit in a folder named after the package they test (``ui/window/`` -> ``tests/window/``,
    the lenses' ``workbench/lens/`` and ``engine/lens/`` -> ``tests/lens/``), so a newcomer finds them by name."""
    root = TESTS.parent
    packages = {p.name for folder in ("engine", "workbench", "ui", "plugins") for p in (root / folder).iterdir()
                if p.is_dir() and (p / "__init__.py").is_file()}
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert "window" in folders and "lens" in folders
    strays = sorted(folders - packages - CROSS_CUTTING)
    assert strays == [], f"test folders named after no package of engine/, workbench/, ui/ or plugins/: {strays}"
