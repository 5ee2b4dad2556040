"""Worker jobs live in ``workbench/<feature>/``, not in the widgets.

A worker job is a function the job bridge calls with the cancel token: its signature has a ``cancel``
parameter. ``ui/`` defines none at module level (nested functions included): a view passes a workbench
function to its job bridge (``lambda cancel: workbench_job(..., cancel)``). The exceptions are named below:
``paired`` (the view toolkit's combinator that runs B's job after A's) and the window's lazy adapters to
``lm_workbench.models.view_tasks`` and ``lm_workbench.extensions.discovery`` (they import torch only on the worker thread).
Whatever the function, nothing under ``ui/`` that takes a cancel token imports the engine's compute code.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The engine modules a ui function may import: errors, progress and cancel tokens, constants (names).
ENGINE_TYPES = ("lm_workbench.engine.errors", "lm_workbench.engine.progress")
# (module file, function): by file name, so they stay named when the window's package moves.
WINDOW_ADAPTERS = {
    ("view_base.py", "paired"),
    ("main_window.py", "_load"),
    ("main_window.py", "_tokenize"),
    ("plugins_dialog.py", "_discover"),
}


def _functions() -> list[tuple[str, ast.FunctionDef, list[ast.FunctionDef]]]:
    """(module path, module-level function, it and every function nested in it) for each ui module."""
    found = []
    for path in sorted((ROOT / "ui").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                nested = [n for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                found.append((path.relative_to(ROOT).as_posix(), node, nested))
    return found


def _takes_cancel(fn: ast.FunctionDef) -> bool:
    return "cancel" in [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]


def _engine_imports(fn: ast.FunctionDef) -> list[str]:
    mods = []
    for node in ast.walk(fn):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        mods += [m for m in names if m.startswith("lm_workbench.engine") and not m.startswith(ENGINE_TYPES)
                 and not m.endswith(".names")]
    return mods


def test_no_module_level_function_in_ui_is_a_worker_job():
    jobs = [f"{path}: {top.name}" for path, top, nested in _functions()
            if any(_takes_cancel(fn) for fn in nested) and (Path(path).name, top.name) not in WINDOW_ADAPTERS]
    assert not jobs, "worker jobs in ui/ (move them to workbench/<feature>/): " + ", ".join(jobs)


def test_no_function_in_ui_that_takes_a_cancel_token_imports_the_engine():
    offenders = [f"{path}: {top.name} imports {', '.join(_engine_imports(top))}" for path, top, nested in _functions()
                 if any(_takes_cancel(fn) for fn in nested) and _engine_imports(top)]
    assert not offenders, offenders


def test_the_window_adapters_named_here_still_exist():
    present = {(Path(path).name, top.name) for path, top, _ in _functions()}
    assert WINDOW_ADAPTERS <= present, WINDOW_ADAPTERS - present
