"""Imports flow one way: ui -> workbench -> engine; plugins see only lm_workbench.engine.plugin_api.

The installed package maps four folders into one import name (setup.py), which grimp and import-linter cannot
follow from the source tree: both read a staged copy laid out as installed (tests/support/source_tree.py). The
layer rule and "the core imports no Qt" are checked here on that graph (a layer is a folder, which import-linter
cannot name inside one package); the other contracts are import-linter's, in pyproject.toml.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.support.source_tree import FOLDERS, import_graph, layer_of, staged_root

ROOT = Path(__file__).resolve().parents[2]
RANK = {"engine": 0, "workbench": 1, "ui": 2}
QT = ("PySide6", "pyqtgraph", "superqt", "qtpy", "shiboken6")


def test_import_linter_contracts_hold():
    lint = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
            "sys.exit(lint_imports_command())"]  # the console script's body (any venv, scripts or not)
    env = {**os.environ, "PYTHONPATH": str(staged_root())}
    result = subprocess.run([*lint, "--no-cache", "--config", str(ROOT / "pyproject.toml")], cwd=staged_root(),
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert f"Contracts: {len(contracts)} kept, 0 broken" in result.stdout


def layer_violations(edges) -> list[str]:
    """Each import that climbs a layer (engine -> workbench or ui, workbench -> ui) or reaches into plugins."""
    bad = []
    for importer, imported in edges:
        a, b = layer_of(importer), layer_of(imported)
        if b == "plugins" and a != "plugins":
            bad.append(f"{importer} -> {imported} (plugins register through entry points; nothing imports them)")
        elif a in RANK and b in RANK and RANK[b] > RANK[a]:
            bad.append(f"{importer} -> {imported} ({a} may not import {b})")
    return sorted(bad)


def _edges(graph, prefix="lm_workbench"):
    return [(m, i) for m in graph.modules if m.startswith(prefix)
            for i in graph.find_modules_directly_imported_by(m) if i.startswith(prefix)]


def test_layers_flow_one_way():
    """A direct import that climbs is the only way a chain can climb, so direct edges suffice."""
    assert layer_violations(_edges(import_graph())) == []


def test_the_layer_check_catches_a_climb():
    edges = [("lm_workbench.engine.x", "lm_workbench.runs.y"), ("lm_workbench.cli.m", "lm_workbench.ui.app"),
             ("lm_workbench.ui.a", "lm_workbench.engine.b"), ("lm_workbench.runs", "lm_workbench.plugins.o.p")]
    assert len(layer_violations(edges)) == 3


def test_engine_and_the_core_import_no_qt():
    graph = import_graph(include_external_packages=True)
    offenders = sorted(f"{m} -> {i}" for m in graph.modules if layer_of(m) in ("engine", "workbench")
                       and m.startswith("lm_workbench")
                       for i in graph.find_modules_directly_imported_by(m) if i.split(".")[0] in QT)
    assert offenders == []


def test_plugins_import_only_the_plugin_api():
    graph = import_graph()
    offenders = [(m, i) for m, i in _edges(graph, FOLDERS["plugins"])
                 if layer_of(i) == "engine" and i != "lm_workbench.engine.plugin_api"]
    offenders += [(m, i) for m, i in _edges(graph, FOLDERS["plugins"]) if layer_of(i) in ("workbench", "ui")]
    assert not offenders, offenders


def test_core_imports_no_qt_at_runtime():
    """Importing the CLI and engine pulls in no Qt module (not only statically)."""
    code = (
        "import sys, lm_workbench.cli.main, lm_workbench.cli.parser, lm_workbench.models.view_tasks, "
        "lm_workbench.engine.analysis;"
        "bad=[m for m in sys.modules if m.split('.')[0] in ('PySide6','pyqtgraph','superqt')"
        " or m.startswith('lm_workbench.ui')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_window_opens_without_importing_torch(fresh_home):
    """The window appears before torch is imported: models load on the worker thread, the forms stay light."""
    code = (
        "import sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from lm_workbench.ui.window.main_window import MainWindow\n"
        "w = MainWindow(persist=False); w.show(); app.processEvents()\n"
        "heavy = [m for m in ('torch', 'transformers') if m in sys.modules]\n"
        "w.close(); app.processEvents()\n"
        "print(heavy); sys.exit(1 if heavy else 0)\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "LM_WORKBENCH_HOME": str(fresh_home)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                            env=env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_only_the_application_entry_imports_the_main_window():
    """The window's parts get services objects and views a ViewContext: no module of ``ui`` imports the main
    window but ``lm_workbench.ui.app`` (grimp counts imports under ``TYPE_CHECKING`` too)."""
    importers = import_graph().find_modules_that_directly_import("lm_workbench.ui.window.main_window")
    assert importers == {"lm_workbench.ui.app"}, sorted(importers)


def test_the_view_contracts_list_every_registered_view():
    """The contracts that list view packages are checked against the view registry (a new view that a list
    misses would be unchecked)."""
    from lm_workbench.ui.window.view_registry import builtin_views

    views = {".".join(entry.view_class().__module__.split(".")[:3]) for entry in builtin_views()}
    assert "lm_workbench.ui.heads" in views and len(views) >= 15
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    for contract in contracts:
        for key in ("modules", "source_modules", "forbidden_modules"):
            listed = {m for m in contract.get(key, []) if m.startswith("lm_workbench.ui.")}
            if listed & views and "lm_workbench.ui.tokens" in listed:  # a list of the views
                assert views <= listed, (contract["name"], key, sorted(views - listed))
