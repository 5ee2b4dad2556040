"""No two parts of one layer import each other: the packages and modules one level under ``engine``, ``workbench``
and ``ui`` (``engine.data``, ``engine.finetune``, ``workbench.runs``, ``ui.view_kit``...) depend one way at most.

Computed from the source with ``ast``: every module's imports count for its part, an import inside a function
included (it runs when the function does); only imports under ``if TYPE_CHECKING:`` are left out, since they
never run. Importing a part's own ``__init__`` or one of its modules counts alike. No layer has such a pair.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

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


def part_of(module: str) -> str:
    """The package or module one level under the layer that ``module`` belongs to (the layer for its own
    ``__init__``)."""
    return ".".join(module.split(".")[:2])


def mutual_pairs(root: Path, layer: str) -> set[tuple[str, str]]:
    """The pairs (sorted) of parts one level under ``layer`` that import each other."""
    files = {module_name(root, p): p for p in (root / layer).rglob("*.py")}
    edges: set[tuple[str, str]] = set()
    for module, path in files.items():
        source = part_of(module)
        for name in imported_names(path, module):
            while name and name not in files:
                name = name.rpartition(".")[0]
            if not name:
                continue
            target = part_of(name)
            if layer not in (source, target) and source != target:
                edges.add((source, target))
    return {(a, b) for a, b in edges if a < b and (b, a) in edges}


@pytest.mark.parametrize("layer", ["engine", "workbench", "ui"])
def test_no_two_parts_of_one_layer_import_each_other(layer):
    assert mutual_pairs(ROOT, layer) == set()


def test_the_pair_check_counts_lazy_and_relative_imports_but_not_type_checking_ones(tmp_path):
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
    }
    for name, text in files.items():
        path = tmp_path / "layer" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    assert mutual_pairs(tmp_path, "layer") == {("layer.a", "layer.b"), ("layer.e", "layer.f")}
