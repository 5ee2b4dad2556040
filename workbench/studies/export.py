"""A whole study as one folder, for a lecture: ``table.json``, ``table.csv``, ``table.txt``, ``figure.png``,
``figure.svg``, ``study.json`` (the study as expanded) and ``cells/<id>.json`` (each cell's settings, its run's
id, status and command line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lm_workbench.studies.figure import draw_figure, write_csv
from lm_workbench.studies.table import format_table


def export_study(study: Any, table: dict[str, Any], state: dict[str, Any], store: Any, folder: str | Path) -> Path:
    """Write the folder (made if needed); returns it."""
    from lm_workbench.runs.kinds import run_kind

    folder = Path(folder)
    (folder / "cells").mkdir(parents=True, exist_ok=True)
    (folder / "table.json").write_text(json.dumps(table, indent=1, default=str), encoding="utf-8")
    (folder / "table.txt").write_text(format_table(table) + "\n", encoding="utf-8")
    write_csv(table, folder / "table.csv")
    if study.figure.get("type") != "none":
        draw_figure(table, study.figure, folder / "figure.png")
        draw_figure(table, study.figure, folder / "figure.svg")
    (folder / "study.json").write_text(json.dumps(study.to_json(), indent=1, default=str), encoding="utf-8")
    for cell in study.cells:
        entry = state.get(cell.id) or {}
        kind = run_kind(cell.kind)
        record = {**cell.to_json(), "run_id": entry.get("run_id"), "status": entry.get("status", "pending"),
                  "error": entry.get("error"), "cli_command": kind.cli_command(cell.settings) if kind else None}
        (folder / "cells" / f"{cell.id.replace('#', '-')}.json").write_text(json.dumps(record, indent=1, default=str),
                                                                            encoding="utf-8")
    return folder
