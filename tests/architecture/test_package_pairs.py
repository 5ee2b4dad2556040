"""No loop among the parts of one layer, of any length: the packages and modules one level under ``engine``,
``workbench`` and ``ui`` (``lm_workbench.engine.data``, ``lm_workbench.runs``, ``lm_workbench.ui.view_kit``...)
form no strongly connected group (two parts importing each other, or runs -> models -> pretrain -> runs).

Computed from the source with ``ast``: every module's imports count for its part, an import inside a function
included (it runs when the function does); only imports under ``if TYPE_CHECKING:`` are left out, since they
never run. Importing a part's own ``__init__`` or one of its modules counts alike. Modules are named as installed
(``engine/data/table.py`` is ``lm_workbench.engine.data.table``), as their imports name them.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from tests.support.cycles import import_cycles
from tests.support.source_tree import FOLDERS, installed_name

ROOT = Path(__file__).resolve().parents[2]


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
    return name == "TYPE_CHECKING"


def imported_names(path: Path, module: str) -> set[str]:
    """Every dotted name ``module`` imports (``from a.b import c`` gives ``a.b`` and ``a.b.c``), relative imports
    resolved; imports under ``if TYPE_CHECKING:`` left out, imports in functions kept."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {id(node) for branch in ast.walk(tree) if isinstance(branch, ast.If) and _is_type_checking(branch.test)
               for statement in branch.body for node in ast.walk(statement)}
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[: len(package) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def part_of(module: str, layer: str) -> str:
    """The package or module one level under ``layer`` that ``module`` belongs to (the layer for its own
    ``__init__``, and for a module of another layer)."""
    if not module.startswith(layer + "."):
        return layer
    return ".".join(module.split(".")[: layer.count(".") + 2])


def part_edges(files: dict[str, Path], layer: str) -> set[tuple[str, str]]:
    """(importer's part, imported's part) for every import between two parts of ``layer``."""
    edges: set[tuple[str, str]] = set()
    for module, path in files.items():
        source = part_of(module, layer)
        for name in imported_names(path, module):
            while name and name not in files:
                name = name.rpartition(".")[0]
            if not name:
                continue
            target = part_of(name, layer)
            if layer not in (source, target) and source != target:
                edges.add((source, target))
    return edges


class _EdgeGraph:
    """The little of grimp's graph that ``import_cycles`` reads."""

    def __init__(self, edges: set[tuple[str, str]]) -> None:
        self.modules = {m for edge in edges for m in edge}
        self._out = {m: {b for a, b in edges if a == m} for m in self.modules}

    def find_modules_directly_imported_by(self, module: str) -> set[str]:
        return self._out[module]


def part_loops(files: dict[str, Path], layer: str) -> list[list[str]]:
    """Each strongly connected group of two or more parts of ``layer`` (a pair or a longer loop), sorted."""
    return import_cycles(_EdgeGraph(part_edges(files, layer)))


def installed_files(folder: str) -> dict[str, Path]:
    """module name as installed -> file, for one of the repository's four folders (and the core's whole tree
    for ``workbench``, whose other folders are layers of their own)."""
    return {installed_name(p): p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts}


@pytest.mark.parametrize("folder", ["engine", "workbench", "ui"])
def test_no_loop_among_the_parts_of_one_layer(folder):
    assert part_loops(installed_files(folder), FOLDERS[folder]) == []


def test_the_loop_check_finds_longer_loops_and_counts_lazy_and_relative_imports_but_not_type_checking_ones(tmp_path):
    files = {
        "__init__.py": "from layer import top\n",
        "top.py": "",
        "a/__init__.py": "",
        "a/one.py": "from layer.b import two\n",
        "b/__init__.py": "",
        "b/two.py": "def later():\n    from ..a import one\n    return one\n",
        "c/__init__.py": "from typing import TYPE_CHECKING\nfrom layer import top\nif TYPE_CHECKING:\n    from layer.d import x\n",
        "d/__init__.py": "from layer.c import y\n",
        "d/x.py": "",
        "e.py": "import layer.f.g\n",
        "f/__init__.py": "",
        "f/g.py": "from layer import e\n",
        "top_user.py": "from layer.top import name\n",
        "h/__init__.py": "from layer.i import x\n",
        "i/__init__.py": "from layer.j import y\n",
        "j/__init__.py": "def later():\n    from layer.h import z\n",
    }
    for name, text in files.items():
        path = tmp_path / "layer" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    files = {module_name(tmp_path, p): p for p in (tmp_path / "layer").rglob("*.py")}
    assert part_loops(files, "layer") == [["layer.a", "layer.b"], ["layer.e", "layer.f"],
                                          ["layer.h", "layer.i", "layer.j"]]
