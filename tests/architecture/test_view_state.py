"""Every view keeps its state in a Qt-free object in workbench/ (``lm_workbench.<feature>.*state``), which its
widgets draw; tests drive that object without Qt.

The rule, checked here by imports: each view package under ui/ (one per registry entry) imports a state class
from a workbench module whose name ends in ``state``. ``STATE_IN_WIDGETS`` lists the views that still keep
theirs in widgets; it may only shrink (a view listed that has a state now fails the test). The measure:
7 views kept their state in widgets before this rule (attention, predictions, masking lab, tokens, compare,
pre-train, runs); none does now.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATE_IN_WIDGETS: set[str] = set()


def _view_packages() -> list[Path]:
    return sorted(p.parent for p in (ROOT / "ui").glob("*/entry.py"))


def _imports_a_state(package: Path) -> bool:
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lm_workbench.")
                    and not node.module.startswith("lm_workbench.ui.") and node.module.endswith("state")
                    and any(a.name.endswith("State") for a in node.names)):
                return True
    return False


def test_every_view_keeps_its_state_in_workbench():
    missing = sorted(p.name for p in _view_packages() if p.name not in STATE_IN_WIDGETS and not _imports_a_state(p))
    assert not missing, f"views keeping their state in widgets (give each a Qt-free state in workbench/): {missing}"


def test_the_list_of_views_with_state_in_widgets_is_exact():
    moved = sorted(p.name for p in _view_packages() if p.name in STATE_IN_WIDGETS and _imports_a_state(p))
    assert not moved, f"these views have a workbench state now: remove them from STATE_IN_WIDGETS: {moved}"
    assert STATE_IN_WIDGETS <= {p.name for p in _view_packages()}


def test_state_modules_in_workbench_do_not_import_qt():
    for path in (ROOT / "workbench").rglob("*state.py"):
        text = path.read_text(encoding="utf-8")
        assert "PySide6" not in text and "lm_workbench.ui" not in text, path
