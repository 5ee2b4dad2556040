"""A study's figure (matplotlib, Agg: no Qt) and its data as CSV.

``bars``: one bar per row for the figure's ``y`` column (default: the first), the published value beside as a
hatched bar on a second axis when the published block maps a column to it (the scales differ: the trend is what is
compared); ``lines``: ``y`` against the swept setting ``x`` (the rows' sweep values, in order); ``pareto``: ``y``
against ``x`` (a column such as time or trained parameters), each row a labelled point, the Pareto front joined.
The spread over seeds is drawn as error bars.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any


def figure_data(table: dict[str, Any], figure: dict[str, Any]) -> tuple[str, str | None, list[dict[str, Any]]]:
    """(y column, x column or None, [{row, x, y, spread, published}]) of the rows with cells."""
    columns = table["columns"]
    y = figure.get("y") or columns[0]
    x = figure.get("x")
    pub_map = {local: pub for pub, local in ((table.get("published") or {}).get("columns") or {}).items() if local}
    points = []
    for r in table["rows"]:
        px: Any = None
        if x in columns:
            px = r["local"].get(x)
        elif x:
            m = re.search(re.escape(x) + r"=([-+0-9.eE]+)", r["row"])
            px = float(m.group(1)) if m else None
        points.append({"row": r["row"], "x": px, "y": r["local"].get(y), "spread": r["spread"].get(y),
                       "published": r["published"].get(pub_map.get(y)) if y in pub_map else None})
    return y, x, points


def write_csv(table: dict[str, Any], path: str | Path) -> Path:
    """The table as CSV: row, each column and its spread, each published column, status."""
    path = Path(path)
    pub_cols = list(((table.get("published") or {}).get("columns") or {}).keys())
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["row", *[p for c in table["columns"] for p in (c, f"{c} spread")],
                    *[f"published {c}" for c in pub_cols], "status"])
        for r in table["rows"]:
            w.writerow([r["row"], *[_num(v) for c in table["columns"] for v in (r["local"].get(c), r["spread"].get(c))],
                        *[_num(r["published"].get(c)) for c in pub_cols], r["status"]])
    return path


def _num(v: Any) -> str:
    return "" if v is None else f"{v:.6g}"


def draw_figure(table: dict[str, Any], figure: dict[str, Any], path: str | Path) -> Path:
    """Write the figure to ``path`` (.png or .svg, by its suffix)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    path = Path(path)
    kind = figure.get("type", "bars")
    y, x, points = figure_data(table, figure)
    fig = Figure(figsize=(7.5, 4.2), dpi=120)
    ax = fig.add_subplot(1, 1, 1)
    have = [p for p in points if p["y"] is not None]
    if kind == "lines" or kind == "pareto":
        have = [p for p in have if p["x"] is not None]
        have.sort(key=lambda p: p["x"])
        ax.errorbar([p["x"] for p in have], [p["y"] for p in have], yerr=[p["spread"] or 0 for p in have],
                    marker="o", linestyle="-" if kind == "lines" else "none", capsize=3, label="this machine")
        if kind == "pareto":
            for p in have:
                ax.annotate(p["row"], (p["x"], p["y"]), fontsize=7, xytext=(3, 3), textcoords="offset points")
            front, best = [], float("-inf")
            for p in have:
                if p["y"] > best:
                    front.append(p)
                    best = p["y"]
            ax.plot([p["x"] for p in front], [p["y"] for p in front], linestyle="--", color="grey", label="Pareto front")
            ax.legend(fontsize=8)
        ax.set_xlabel(x or "")
    else:
        labels = [p["row"] for p in points]
        pos = list(range(len(points)))
        ax.bar([i - 0.2 for i in pos], [p["y"] if p["y"] is not None else 0 for p in points], width=0.4,
               yerr=[p["spread"] or 0 for p in points], capsize=3, label=f"{y} (this machine)")
        if any(p["published"] is not None for p in points):
            ax2 = ax.twinx()
            ax2.bar([i + 0.2 for i in pos], [p["published"] or 0 for p in points], width=0.4, color="none",
                    edgecolor="grey", hatch="//", label="published (own axis)")
            ax2.set_ylabel("published")
            ax2.legend(loc="upper right", fontsize=8)
        ax.set_xticks(pos)
        ax.set_xticklabels(labels, rotation=25, ha="right", fontsize=8)
        ax.legend(loc="upper left", fontsize=8)
    ax.set_ylabel(y)
    ax.set_title(figure.get("title") or f"{table['title']} ({table['scale']} scale)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, format=path.suffix.lstrip(".").lower() or "png")
    return path
