"""He et al.'s unified view as one table: every fine-tuning method's row side by side (the Fine-tune tab's
table, its CSV export, and what the bench reads to describe a method).

``unified_rows(methods)`` gives one dict per method (``lm_workbench.engine.finetune.unified.COLUMNS``) in the order the
methods come, with each method's row for its default settings (or the settings given), and a line saying so
for a method that declares none (a third party's written before plugin API 2.3).
"""

from __future__ import annotations

from typing import Any, Mapping

from lm_workbench.engine.finetune.unified import COLUMNS, HEADERS

UNDECLARED = "this method declares no row (plugin API < 2.3)"


def unified_row(name: str, method: Any, config: Any = None) -> dict[str, str]:
    """The table row of ``method`` (its ``unified_for(config)``; the default config when None)."""
    row = method.unified_for(method.default_config() if config is None else config)
    base = {"method": name, "title": getattr(method, "title", "") or name}
    if row is None:
        return {**base, **{c: "" for c in COLUMNS[2:]}, "note": UNDECLARED}
    return {**base, **{c: getattr(row, c) for c in COLUMNS[2:]}}


def unified_rows(methods: Mapping[str, Any], configs: Mapping[str, Any] | None = None) -> list[dict[str, str]]:
    """One row per method, in ``methods``' order."""
    configs = configs or {}
    return [unified_row(name, method, configs.get(name)) for name, method in methods.items()]


def unified_table(methods: Mapping[str, Any], configs: Mapping[str, Any] | None = None
                  ) -> tuple[list[str], list[list[str]]]:
    """(header, rows) for ``lm_workbench.export.export_csv``: the columns' titles, then each method's cells."""
    return list(HEADERS), [[row[c] for c in COLUMNS] for row in unified_rows(methods, configs)]
