"""One tuning lifecycle: of the tuning areas (fine-tuning, sentence encoders, instructions, preferences) only
``engine/finetune/lifecycle.py`` drives the training loop, and it never branches on the task: what differs lives
in the ``TuningTask`` each area fills in."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AREAS = ("engine/finetune", "engine/sentence", "engine/instruct", "engine/preference")
LIFECYCLE = "engine/finetune/lifecycle.py"
TASK_NAMES = {"seq-cls", "token-cls", "qa", "seq2seq", "sentence-embedding", "instruct", "preference"}


def loop_drivers() -> list[str]:
    """Modules of the tuning areas that import the training loop (``lm_workbench.engine.training.loop``)."""
    found = []
    for area in AREAS:
        for path in sorted((ROOT / area).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                         else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
                if any(n == "lm_workbench.engine.training.loop" for n in names):
                    found.append(path.relative_to(ROOT).as_posix())
                    break
    return found


def task_branches(path: Path) -> list[int]:
    """Lines comparing something with a task's name, or with a ``task``/``name`` attribute or variable."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Compare):
            continue
        for side in (node.left, *node.comparators):
            named = side.id if isinstance(side, ast.Name) else getattr(side, "attr", None)
            if (isinstance(side, ast.Constant) and side.value in TASK_NAMES) or named in ("task", "name"):
                lines.add(node.lineno)
    return sorted(lines)


def test_only_the_lifecycle_drives_the_training_loop():
    assert loop_drivers() == [LIFECYCLE]


def test_the_lifecycle_never_branches_on_the_task():
    assert task_branches(ROOT / LIFECYCLE) == []


def test_the_rule_finds_a_branch_on_the_task(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("def f(data, task):\n    if data.task == 'qa':\n        pass\n    return task == 'instruct'\n")
    assert task_branches(sample) == [2, 4]
