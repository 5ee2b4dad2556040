"""Names by role (issue 43.5): one fixed file name per role, in every area (docs/adding-a-view.md, "Names by role").

- ``runs.py`` (or ``<what>_runs.py`` where an area records more than one kind of run): a recorded run, i.e. the
  ``RunKind`` registered in the ``lm_workbench.run_kinds`` entry points and the long-run lane target it names.
- ``view_tasks.py``: a tab's short tasks (what its view runs on the interactive lane through its job bridge).
- ``train.py``: one training run in this process (what the CLI, torchrun and the lane target all call).
- Engine computations (generators yielding progress and partials, returning a result) keep their functions'
  ``*_job`` names but live in modules named by what they compute: no product module is named ``job.py`` or
  ``jobs.py`` (nor ``*_job.py``, ``*_jobs.py``, ``run.py``, ``lane.py``, ``run_kind.py``).
"""

from __future__ import annotations

import ast
import functools
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"workbench": "lm_workbench", "engine": "lm_workbench.engine", "ui": "lm_workbench.ui",
           "plugins": "lm_workbench.plugins"}
RUNS = re.compile(r"^(runs|[a-z0-9_]+_runs)$")
RETIRED = re.compile(r"^(jobs?|[a-z0-9_]+_jobs?|run|lanes?|run_kinds?|tasks_view)$")
TARGET = re.compile(r"^lm_workbench(\.\w+)+:\w+$")


def _files() -> list[tuple[Path, str]]:
    """(path, dotted module name) of every product module."""
    found = []
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            found.append((path, ".".join((package, *parts))))
    return found


@functools.cache
def _tree(path: Path) -> ast.AST:
    return ast.parse(path.read_text(encoding="utf-8"))


def _entry_points() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["entry-points"]["lm_workbench.run_kinds"]


def _run_kind_calls(tree: ast.AST) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) == "RunKind"]


def test_registered_run_kinds_live_in_runs_modules():
    assert len(_entry_points()) >= 10
    offenders = [f"{name} = {value}" for name, value in _entry_points().items()
                 if not RUNS.match(value.partition(":")[0].rsplit(".", 1)[-1])]
    assert offenders == [], f"a registered run kind lives in runs.py (or <what>_runs.py): {offenders}"


def test_every_run_kind_and_lane_target_is_in_a_runs_module():
    offenders = []
    for path, module in _files():
        tree = _tree(path)
        name = module.rsplit(".", 1)[-1]
        if _run_kind_calls(tree) and not RUNS.match(name):
            offenders.append(f"{module} builds a RunKind")
        for node in ast.walk(tree):
            # a lane target by name: ``*_lane_job`` (a function or a LongRun's lane_job bound to a name)
            defined = ([node.name] if isinstance(node, ast.FunctionDef) and node.col_offset == 0 else
                       [t.id for t in node.targets if isinstance(t, ast.Name)] if isinstance(node, ast.Assign)
                       and node.col_offset == 0 else [])
            offenders += [f"{module} defines {d}" for d in defined if d.endswith("_lane_job") and not RUNS.match(name)]
            # a lane target by string: every "lm_workbench.x.y:fn" handed to RunKind(target=...) or a lane
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "submit" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str) and TARGET.match(first.value):
                    target_module = first.value.partition(":")[0].rsplit(".", 1)[-1]
                    if not RUNS.match(target_module):
                        offenders.append(f"{module} submits {first.value}")
        for call in _run_kind_calls(tree):
            for keyword in call.keywords:
                if keyword.arg == "target" and isinstance(keyword.value, ast.Constant):
                    target_module = str(keyword.value.value).partition(":")[0].rsplit(".", 1)[-1]
                    if not RUNS.match(target_module):
                        offenders.append(f"{module}: RunKind target {keyword.value.value}")
    assert offenders == [], offenders


def test_runs_and_view_tasks_modules_hold_their_role():
    """A ``runs`` module builds a RunKind or defines a lane target; a ``view_tasks`` module serves a view (ui
    imports it); neither name appears outside workbench's areas."""
    ui_imports: set[str] = set()
    for path, module in _files():
        if module.startswith("lm_workbench.ui."):
            for node in ast.walk(_tree(path)):
                if isinstance(node, ast.ImportFrom) and node.module:
                    ui_imports.add(node.module)
                    ui_imports.update(f"{node.module}.{alias.name}" for alias in node.names)
    offenders = []
    for path, module in _files():
        name = module.rsplit(".", 1)[-1]
        text = path.read_text(encoding="utf-8")
        in_area = path.parent.parent == ROOT / "workbench"
        if RUNS.match(name):
            if not in_area:
                offenders.append(f"{module}: a runs module outside workbench/<area>/")
            elif "RunKind(" not in text and "_lane_job" not in text:
                offenders.append(f"{module}: named runs but builds no RunKind and defines no lane target")
        if name == "view_tasks":
            if not in_area:
                offenders.append(f"{module}: view tasks outside workbench/<area>/")
            elif module not in ui_imports:
                offenders.append(f"{module}: no view imports it")
        if name == "train" and module.startswith("lm_workbench.ui."):
            offenders.append(f"{module}: a training run in the ui")
    assert offenders == [], offenders


def test_retired_role_names_name_no_module():
    offenders = [module for path, module in _files() if RETIRED.match(path.stem)]
    assert offenders == [], f"'job' named four roles; use runs / view_tasks / train / a name for what it computes: {offenders}"


def test_ui_takes_short_tasks_from_view_tasks_only():
    """A view imports an area's worker functions from its ``view_tasks`` (or state, specs, names), never from a
    ``runs`` module's lane target or ``train``'s in-process run."""
    offenders = []
    for path, module in _files():
        if not module.startswith("lm_workbench.ui."):
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lm_workbench."):
                imported = {alias.name for alias in node.names}
                offenders += [f"{module} imports {node.module}:{n}" for n in imported if n.endswith("_lane_job")]
    assert offenders == [], offenders
