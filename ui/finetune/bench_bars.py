"""The bench's columns as a figure: one bar panel per column (trainable %, checkpoint, memory, tokens/s, the
validation metric, forgetting), one horizontal bar per method with its value written beside it, in the
theme's category colours.

The Fine-tune bench exports it ("Columns as PNG/SVG…"), and ``tests/bench/bench_finetune.py --only methods``
saves the same figure for its README. A method with no value for a column (forgetting on a base without an
LM head) has no bar there, and the panel's title says why.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from lm_workbench.ui import theme

PANELS = (("trainable_percent", "Trainable %", 1.0), ("checkpoint_bytes", "Checkpoint MB", 1e6),
          ("training_memory_mb", "{memory}", 1.0), ("tokens_per_s", "Tokens/s", 1.0),
          ("best_value", "Best {metric}", 1.0), ("forgetting", "Forgetting (Δ loss, nats)", 1.0))
COLUMNS = 3


class BenchBars(pg.GraphicsLayoutWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent)
        self.setBackground(theme.current().colours.base_bg)
        self.rows: list[dict[str, Any]] = []

    def show_rows(self, rows: list[dict[str, Any]], *, memory: str = "Memory MB", title: str = "") -> None:
        """Draw ``rows`` (``FineTuneState.bench_rows``); ``memory`` titles the memory panel."""
        self.clear()
        self.rows = list(rows)
        t = theme.current()
        colours = t.colours.group_colors
        metric = next((r["best_metric"] for r in rows if r.get("best_metric")), "validation")
        methods = [str(r.get("method", "")) for r in rows]
        if title:
            self.addLabel(title, row=0, col=0, colspan=COLUMNS, color=t.colours.plot_axis_ink)
        for i, (key, label, scale) in enumerate(PANELS):
            values = [None if r.get(key) is None or isinstance(r.get(key), str) else float(r[key]) / scale
                      for r in rows]
            heading = label.format(memory=memory, metric=metric)
            if key == "forgetting" and all(v is None for v in values):
                notes = {str(r.get("forgetting_note") or "") for r in rows}
                heading += ": " + ("no LM head" if any("no LM head" in n for n in notes) else "not measured")
            plot = self.addPlot(row=1 + i // COLUMNS, col=i % COLUMNS)
            plot.setTitle(heading, color=t.colours.plot_legend_ink)
            for side in ("left", "bottom"):
                plot.getAxis(side).setTextPen(t.colours.plot_axis_ink)
                plot.getAxis(side).enableAutoSIPrefix(False)  # plain numbers: no hidden ×1e3 on an unlabelled axis
            plot.setMouseEnabled(False, False)
            plot.hideButtons()
            for j, value in enumerate(values):  # horizontal bars: the method names stack without colliding
                if value is None:
                    continue
                plot.addItem(pg.BarGraphItem(x0=[0], y=[j], width=[value], height=0.7,
                                             brush=colours[j % len(colours)], pen=None))
                text = pg.TextItem(f"{value:.3g}", color=t.colours.plot_legend_ink, anchor=(0, 0.5))
                text.setPos(value if value >= 0 else 0, j)
                plot.addItem(text)
            axis = plot.getAxis("left")
            axis.setTicks([list(enumerate(methods))])
            axis.setWidth(t.metrics.bench_bars_label_w)
            plot.invertY(True)  # the first method on top, as in the table
            plot.setYRange(-0.6, max(0, len(methods) - 1) + 0.6, padding=0)
            if any(v is not None for v in values):
                low = min(0.0, *(v for v in values if v is not None))
                high = max(0.0, *(v for v in values if v is not None))
                plot.setXRange(low, (high if high > low else low + 1.0) * 1.25, padding=0.02)  # room for the numbers
