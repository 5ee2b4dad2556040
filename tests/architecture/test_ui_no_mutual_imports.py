"""No two ui modules import each other, not even under ``TYPE_CHECKING`` or inside a function.

The cycle tests leave type-checking-only imports out (they are no dependency at run time), but a pair that
names each other is one coupling all the same: the shared piece (a Protocol of what one side reads of the
other) moves down into a module both import (``view_kit/view_identity.py``, ``lectures/recorder_actions.py``,
``embeddings/explorer_parts.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _ui_imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / "ui").rglob("*.py")):
        name = "lm_workbench." + ".".join(path.relative_to(ROOT).with_suffix("").parts)
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                deps.add(node.module)
                deps.update(f"{node.module}.{a.name}" for a in node.names)  # from package import module
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        graph[name] = deps - {name}
    return graph


def test_no_two_ui_modules_import_each_other():
    graph = _ui_imports()
    pairs = sorted(f"{a} <-> {b}" for a in graph for b in graph[a] if a < b and a in graph.get(b, set()))
    assert not pairs, f"ui modules importing each other (move the shared piece down): {pairs}"
