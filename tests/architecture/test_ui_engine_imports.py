"""ui/ imports from the engine only its names, errors, progress and result types.

Everything else a view needs from the engine (a type, a constant, a small pure function) comes through its
feature's ``lm_workbench.<feature>.for_views`` (lazy re-exports, ``lm_workbench.lazy_exports``) or a workbench
job. Every ``import`` in ui/ counts, those under ``TYPE_CHECKING`` and inside functions included.

``NOT_YET_ROUTED`` lists what ui/ still imports beyond the rule (views another change was editing while this
rule landed): it may only shrink (an entry no longer imported fails the test, so the list stays exact).
Before this rule ui/ imported 34 engine modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = "lm_workbench.engine"
# The allowed engine modules, by role: names (any ``*.names`` module), errors, progress, result types.
ALLOWED = {
    f"{ENGINE}.errors",  # WorkbenchError and its kinds
    f"{ENGINE}.progress",  # Progress, Partial, CancelToken
    f"{ENGINE}.tokens",  # TokenizedText: the tokenizer's result, which every view shows
}
NOT_YET_ROUTED = {
    f"{ENGINE}.finetune.demo": {"ui/finetune/finetune_form.py"},
    f"{ENGINE}.finetune.footprint": {"ui/finetune/bench_table.py"},
}


def _allowed(module: str) -> bool:
    return module in ALLOWED or module.endswith(".names")


def _engine_imports() -> dict[str, set[str]]:
    """engine module -> the ui files importing it."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "ui").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = [node.module]
                if node.module == ENGINE:  # from lm_workbench.engine import attention
                    mods = [f"{ENGINE}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            else:
                continue
            for mod in mods:
                if mod == ENGINE or mod.startswith(ENGINE + "."):
                    found.setdefault(mod, set()).add(rel)
    return found


def test_ui_imports_only_names_errors_progress_and_result_types_from_the_engine():
    offenders = {mod: sorted(files) for mod, files in _engine_imports().items()
                 if not _allowed(mod) and not files <= NOT_YET_ROUTED.get(mod, set())}
    assert not offenders, ("ui/ imports engine modules beyond names, errors, progress and result types (route them "
                           f"through the feature's lm_workbench.<feature>.for_views): {offenders}")


def test_the_not_yet_routed_list_is_exact():
    found = _engine_imports()
    stale = {mod: sorted(files - found.get(mod, set())) for mod, files in NOT_YET_ROUTED.items()
             if files - found.get(mod, set())}
    assert not stale, f"no longer imported by these ui files; remove them from NOT_YET_ROUTED: {stale}"


def test_every_for_views_name_resolves_to_its_engine_module():
    import importlib

    for path in sorted((ROOT / "workbench").rglob("for_views.py")):
        module = importlib.import_module("lm_workbench." + ".".join(path.relative_to(ROOT / "workbench")
                                                                     .with_suffix("").parts))
        for name, source in module.FOR_VIEWS.items():
            assert getattr(module, name) is getattr(importlib.import_module(source), name), (path, name)


def test_engine_module_count_ui_imports():
    """The measure: engine modules imported by ui/ (34 before this rule, 12 after)."""
    assert len(_engine_imports()) <= 12, sorted(_engine_imports())
