"""Where runs are recorded and where SQL lives (issue 31's rules, checked so they stay true).

- A run row is created by ``lm_workbench.runs`` alone (``run_context.create_queued_run`` and ``execute.record``):
  every front end records through the one recorder, never by calling the store's ``create_run`` itself.
- SQL lives in ``lm_workbench.store`` alone: no other module opens an SQLite connection, imports sqlite-utils or
  writes a SQL statement; views read metrics through the store's queries (``lm_workbench.store.metrics_reader``).
- ``lm_workbench.runs`` imports no area (the kinds register through the ``lm_workbench.run_kinds`` entry points).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "workbench", "ui", "plugins")
SQL = re.compile(r"\b(SELECT\s+\S+.*\bFROM|INSERT\s+INTO|DELETE\s+FROM|CREATE\s+(TABLE|INDEX)|UPDATE\s+\w+\s+SET)\b",
                 re.IGNORECASE)


def _modules():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def test_only_workbench_runs_creates_run_rows():
    offenders = []
    for where, tree in _modules():
        if where.startswith(("workbench/runs/", "workbench/store/")):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "create_run":
                offenders.append(f"{where}:{node.lineno}")
    assert offenders == [], "record runs through lm_workbench.runs (the recorder), not store.create_run"


def test_sql_lives_in_the_store_alone():
    offenders = []
    for where, tree in _modules():
        if where.startswith("workbench/store/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                offenders += [f"{where}:{node.lineno} imports {n}" for n in names if n.startswith("sqlite_utils")]
            elif isinstance(node, ast.Attribute) and node.attr == "connect" and isinstance(node.value, ast.Name) \
                    and node.value.id == "sqlite3":
                offenders.append(f"{where}:{node.lineno} opens sqlite3")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value) \
                    and not isinstance(getattr(node, "parent", None), ast.Expr):
                offenders.append(f"{where}:{node.lineno} holds SQL")
    assert offenders == []


def test_the_runs_package_imports_no_area():
    areas = sorted(p.name for p in (ROOT / "workbench").iterdir()
                   if p.is_dir() and (p / "__init__.py").is_file() and p.name not in ("runs", "store"))
    offenders = []
    for where, tree in _modules():
        if not where.startswith("workbench/runs/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                parts = node.module.split(".")
                if parts[0] == "lm_workbench" and len(parts) > 1 and parts[1] in areas and parts[1] != "lanes":
                    offenders.append(f"{where}:{node.lineno} imports {node.module}")
    # the recorder loads a model through the one model-loading job of the workbench (lm_workbench.models)
    assert [o for o in offenders if "lm_workbench.models" not in o and "lm_workbench.faults" not in o] == []
