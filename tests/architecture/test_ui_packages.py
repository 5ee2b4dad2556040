"""The view toolkit apart from the window: no two subpackages of ``ui`` import each other.

``ui.view_kit`` (what every view imports) imports no view; ``ui.window`` imports the views and the toolkit;
no view imports the window (pyproject.toml's contracts say which may import which). Counted from each
module's imports, function-level ones included; only imports under ``if TYPE_CHECKING:`` are left out.
"""

from __future__ import annotations

import grimp

VIEW_KIT_PARTS = {"ui.view_kit.view_base", "ui.view_kit.view_context", "ui.view_kit.view_entry",
                  "ui.view_kit.view_abilities", "ui.view_kit.job_bridge", "ui.view_kit.view_jobs",
                  "ui.view_kit.window_parts"}


def subpackage(module: str) -> str:
    return ".".join(module.split(".")[:2])


def package_pairs(graph: grimp.ImportGraph) -> set[tuple[str, str]]:
    """(importer's subpackage, imported's subpackage) for every import between two subpackages of ``ui``."""
    pairs = set()
    for module in graph.modules:
        if not module.startswith("ui."):
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = subpackage(module), subpackage(imported)
            if imported.startswith("ui.") and a != b:
                pairs.add((a, b))
    return pairs


def test_no_two_ui_subpackages_import_each_other():
    graph = grimp.build_graph("ui", cache_dir=None, exclude_type_checking_imports=True)
    pairs = package_pairs(graph)
    both_ways = sorted({tuple(sorted(p)) for p in pairs if (p[1], p[0]) in pairs})
    assert not both_ways, "subpackages of ui that import each other: " + ", ".join(f"{a} <-> {b}"
                                                                                    for a, b in both_ways)


def test_the_view_toolkit_holds_what_views_need():
    graph = grimp.build_graph("ui", cache_dir=None)
    assert VIEW_KIT_PARTS <= graph.modules
    imported = {subpackage(m) for m in graph.find_upstream_modules("ui.view_kit", as_package=True)
                if m.startswith("ui.")}
    assert imported <= {"ui.view_kit", "ui.theme", "ui.theme_tokens", "ui.qt_refcount_fix", "ui.widgets"}, imported


def test_the_pair_check_sees_a_cycle_of_a_hand_made_graph():
    graph = grimp.ImportGraph()
    for importer, imported in [("ui.a.x", "ui.b.y"), ("ui.b.z", "ui.a.w"), ("ui.c.x", "ui.a.x")]:
        graph.add_import(importer=importer, imported=imported)
    pairs = package_pairs(graph)
    assert ("ui.a", "ui.b") in pairs and ("ui.b", "ui.a") in pairs and ("ui.a", "ui.c") not in pairs
