"""Imports flow one way: ui -> workbench -> engine; plugins see only engine.plugin_api."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]


def test_import_linter_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    assert f"Contracts: {len(contracts)} kept, 0 broken" in result.stdout


def test_plugins_import_only_the_plugin_api():
    graph = grimp.build_graph("plugins", "engine", cache_dir=None)
    offenders = []
    for module in graph.find_children("plugins") | {"plugins"}:
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.startswith("engine") and imported != "engine.plugin_api":
                offenders.append((module, imported))
    assert not offenders, offenders


def test_core_imports_no_qt_at_runtime():
    """Importing the CLI and engine pulls in no Qt module (not only statically)."""
    code = (
        "import sys, workbench.cli.main, workbench.cli.parser, workbench.models.jobs, engine.analysis;"
        "bad=[m for m in sys.modules if m.split('.')[0] in ('PySide6','pyqtgraph','superqt','ui')];"
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
        "from ui.window.main_window import MainWindow\n"
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
    window but ``ui.app`` (grimp counts imports under ``TYPE_CHECKING`` too)."""
    graph = grimp.build_graph("ui", cache_dir=None)
    importers = graph.find_modules_that_directly_import("ui.window.main_window")
    assert importers == {"ui.app"}, sorted(importers)
