"""A study's table: one row per table row, one value per column (the mean over the cell's seeds, with the
spread), each cell's status, and the published values beside.

A column takes ``metric`` from the row's cells (those of ``cell``, a cell id, when named; else of ``kind``; else
every cell of the row that logged it), reduced over the run's steps (``reduce``: ``last``, ``max``, ``min``,
``first``, ``mean``; ``step``: the value at one step, a layer of a per-layer run); ``scale`` multiplies (a unit: Spearman x 100 as the papers print it). ``wall_s`` falls back
to the run's own start and end. A value that cannot be computed is ``null`` with a note; a cell whose run was
deleted is ``missing``. Local values are never adjusted toward the published ones.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from lm_workbench.studies.file import Cell, Study


def reduce_values(values: list[float], reduction: str) -> float | None:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return None
    if reduction == "max":
        return max(finite)
    if reduction == "min":
        return min(finite)
    if reduction == "first":
        return finite[0]
    if reduction == "mean":
        return sum(finite) / len(finite)
    return finite[-1]


def run_value(store: Any, run_id: int, column: dict[str, Any]) -> float | None:
    """The column's value for one run (None when the run did not log it)."""
    rows = sorted(store.metrics(run_id, column["metric"]), key=lambda r: r["step"])
    if column.get("step") is not None:  # one step: a layer of a per-layer run
        rows = [r for r in rows if r["step"] == column["step"]]
    value = reduce_values([r["value"] for r in rows], column.get("reduce", "last"))
    if value is None and column["metric"] == "wall_s":
        run = store.get_run(run_id)
        if run.get("started_at") and run.get("finished_at"):
            value = float(run["finished_at"]) - float(run["started_at"])
    if value is not None and column.get("scale") is not None:
        value *= float(column["scale"])
    return value


def _cells_for(study: Study, row: str, column: dict[str, Any]) -> list[Cell]:
    cells = [c for c in study.cells if c.row == row]
    if column.get("cell"):  # one cell's id, or a list (one per row: each arm's own cell)
        wanted = column["cell"]
        return [c for c in cells if c.group in ([wanted] if isinstance(wanted, str) else wanted)]
    if column.get("kind"):
        return [c for c in cells if c.kind == column["kind"]]
    return cells


def build_table(study: Study, state: dict[str, Any], store: Any) -> dict[str, Any]:
    """The table as JSON: ``{name, title, scale, columns, rows: [{row, local, spread, n, status, published,
    runs}], published, notes, scale_note, caption}`` (``state``: the state file's ``cells``)."""
    rows_out = []
    notes: list[str] = list(study.notes)
    published = study.published or {}
    pub_values = published.get("values") or {}
    for row in study.rows:
        local: dict[str, float | None] = {}
        spread: dict[str, float | None] = {}
        counts: dict[str, int] = {}
        runs: list[dict[str, Any]] = []
        for cell in [c for c in study.cells if c.row == row]:
            entry = state.get(cell.id) or {}
            status = entry.get("status", "pending")
            run_id = entry.get("run_id")
            if run_id is not None and status in ("finished", "reused", "resumed"):
                try:
                    store.get_run(int(run_id))
                except KeyError:
                    status = "missing"
            runs.append({"cell": cell.id, "kind": cell.kind, "run_id": run_id, "status": status,
                         "error": entry.get("error")})
        live = {r["cell"]: r for r in runs}
        for column in study.columns:
            values = []
            for cell in _cells_for(study, row, column):
                info = live.get(cell.id) or {}
                if info.get("status") in ("finished", "reused", "resumed") and info.get("run_id") is not None:
                    value = run_value(store, int(info["run_id"]), column)
                    if value is not None:
                        values.append(value)
            name = column["name"]
            counts[name] = len(values)
            local[name] = sum(values) / len(values) if values else None
            spread[name] = statistics.stdev(values) if len(values) > 1 else None
        statuses = [r["status"] for r in runs]
        rows_out.append({"row": row, "local": local, "spread": spread, "n": counts, "runs": runs,
                         "status": _row_status(statuses), "published": dict(pub_values.get(row) or {})})
    return {"name": study.name, "title": study.title, "scale": study.scale, "caption": study.caption,
            "scale_note": study.scale_note, "columns": [c["name"] for c in study.columns],
            "trends": [check_trend(t, rows_out) for t in study.trends],
            "units": {c["name"]: c.get("unit") for c in study.columns},
            "rows": rows_out, "published": _published_meta(published) if published else None, "notes": notes}


def check_trend(trend: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Whether the local values of ``trend["column"]`` over its rows go the way the published claim says, each step
    by more than the trend's ``margin`` (what the held-out set can resolve): ``holds`` True, False (a step goes the
    other way by more than the margin: the trend does not reappear at this scale), or None while a value is missing
    or a step is within the margin (too close to tell: 0.4 against 0.5 on 40 examples is no ordering)."""
    by_row = {r["row"]: r["local"].get(trend["column"]) for r in rows}
    values = [by_row.get(row) for row in trend["rows"]]
    margin = float(trend.get("margin") or 0.0)
    holds: bool | None = None
    said = "not yet known (a value is missing)"
    if all(v is not None for v in values):
        sign = 1.0 if trend["expect"] == "increasing" else -1.0
        steps = [sign * (b - a) for a, b in zip(values, values[1:])]
        if any(step < -margin or (margin == 0 and step <= 0) for step in steps):
            holds, said = False, "does not reappear at this scale"
        elif all(step > margin for step in steps):
            holds, said = True, "holds here"
        else:
            said = f"too close to tell at this scale (a step within the margin, {margin:g})"
    return {**trend, "margin": margin, "values": values, "holds": holds, "said": said}


def _row_status(statuses: list[str]) -> str:
    if not statuses:
        return "published only"
    for status in ("running", "failed", "missing", "cancelled", "skipped", "pending"):
        if status in statuses:
            return status
    return "done"


def _published_meta(published: dict[str, Any]) -> dict[str, Any]:
    return {"source": published.get("source"), "units": published.get("units"),
            "columns": published.get("columns") or {}, "note": published.get("note")}


def complete(table: dict[str, Any]) -> bool:
    """Whether every row with cells has every column filled."""
    return all(all(v is not None for v in r["local"].values()) for r in table["rows"] if r["runs"])


def format_table(table: dict[str, Any]) -> str:
    """The table as plain text: local values (± spread), then the published values beside."""
    pub = table.get("published") or {}
    pub_cols = list((pub.get("columns") or {}).keys())
    header = ["row", *table["columns"], *[f"published {c}" for c in pub_cols], "status"]
    lines = []
    for r in table["rows"]:
        cells = [r["row"]]
        for c in table["columns"]:
            v, s = r["local"].get(c), r["spread"].get(c)
            cells.append("-" if v is None else (f"{v:.4g} ± {s:.2g}" if s is not None else f"{v:.4g}"))
        cells += ["" if r["published"].get(c) is None else f"{r['published'][c]:g}" for c in pub_cols]
        cells.append(r["status"])
        lines.append(cells)
    widths = [max(len(str(x)) for x in col) for col in zip(header, *lines)]
    out = ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)) for row in [header, *lines]]
    out.append("")
    out.append(f"{table['title']} ({table['scale']} scale)")
    if pub:
        out.append(f"published: {pub.get('source')} ({pub.get('units') or 'units as printed'})")
    if table.get("scale_note"):
        out.append(f"scale: {table['scale_note']}")
    if table.get("caption"):
        out.append(table["caption"])
    for trend in table.get("trends") or []:
        shown = ", ".join("-" if v is None else f"{v:.4g}" for v in trend["values"])
        out.append(f"trend: {trend['claim'] or trend['column']} ({trend['column']} {trend['expect']} over "
                   f"{' < '.join(trend['rows'])}: {shown}): {trend['said']}")
    out += [f"note: {n}" for n in table.get("notes") or []]
    return "\n".join(out)
