"""The view toolkit apart from the window: no two subpackages of ``ui`` import each other.

``lm_workbench.ui.view_kit`` (what every view imports) imports no view; ``lm_workbench.ui.window`` imports the views and the toolkit;
no view imports the window (pyproject.toml's contracts say which may import which). Counted from each
module's imports, function-level ones included; only imports under ``if TYPE_CHECKING:`` are left out.
"""

from __future__ import annotations

import grimp

from tests.support.source_tree import import_graph

VIEW_KIT_PARTS = {"lm_workbench.ui.view_kit.view_base", "lm_workbench.ui.view_kit.view_context", "lm_workbench.ui.view_kit.view_entry",
                  "lm_workbench.ui.view_kit.view_abilities", "lm_workbench.ui.view_kit.job_bridge", "lm_workbench.ui.view_kit.view_task_runner",
                  "lm_workbench.ui.view_kit.window_parts"}


def subpackage(module: str, depth: int = 3) -> str:
    """``lm_workbench.ui.view_kit.view_base`` -> ``lm_workbench.ui.view_kit``."""
    return ".".join(module.split(".")[:depth])


def package_pairs(graph: grimp.ImportGraph, ui: str = "lm_workbench.ui") -> set[tuple[str, str]]:
    """(importer's subpackage, imported's subpackage) for every import between two subpackages of ``ui``."""
    pairs = set()
    depth = ui.count(".") + 2
    for module in graph.modules:
        if not module.startswith(ui + "."):
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = subpackage(module, depth), subpackage(imported, depth)
            if imported.startswith(ui + ".") and a != b:
                pairs.add((a, b))
    return pairs


def test_no_two_ui_subpackages_import_each_other():
    graph = import_graph(exclude_type_checking_imports=True)
    pairs = package_pairs(graph)
    both_ways = sorted({tuple(sorted(p)) for p in pairs if (p[1], p[0]) in pairs})
    assert not both_ways, "subpackages of ui that import each other: " + ", ".join(f"{a} <-> {b}"
                                                                                    for a, b in both_ways)


def test_the_view_toolkit_holds_what_views_need():
    graph = import_graph()
    assert VIEW_KIT_PARTS <= graph.modules
    imported = {subpackage(m) for m in graph.find_upstream_modules("lm_workbench.ui.view_kit", as_package=True)
                if m.startswith("lm_workbench.ui.")}
    assert imported <= {"lm_workbench.ui.view_kit", "lm_workbench.ui.theme", "lm_workbench.ui.theme_tokens", "lm_workbench.ui.qt_refcount_fix", "lm_workbench.ui.widgets"}, imported


def test_the_pair_check_sees_a_cycle_of_a_hand_made_graph():
    graph = grimp.ImportGraph()
    for importer, imported in [("ui.a.x", "ui.b.y"), ("ui.b.z", "ui.a.w"), ("ui.c.x", "ui.a.x")]:
        graph.add_import(importer=importer, imported=imported)
    pairs = package_pairs(graph, "ui")
    assert ("ui.a", "ui.b") in pairs and ("ui.b", "ui.a") in pairs and ("ui.a", "ui.c") not in pairs
