"""The comparison bench: tick methods, run them one after another, compare them in one table and one figure.

The panel owns the widgets (method check boxes, the table, the overlaid
curves, export); the tab runs the queue. The table is exported as CSV, the
figure (the overlaid curves) as PNG or SVG, and the table's columns as bar
charts (``BenchBars``) as PNG or SVG.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui import theme
from lm_workbench.ui.finetune.bench_table import BenchTable
from lm_workbench.ui.finetune.run_curves import FineTuneCurves
from lm_workbench.ui.widgets.boxes import column, row
from lm_workbench.ui.widgets.controls import button, label
from lm_workbench.ui.widgets.export import export_dialog, export_table_dialog, save_widget
from lm_workbench.finetune.state import BENCH_COLUMNS, FineTuneState


METHODS_PER_ROW = 4


class BenchPanel(QWidget):
    def __init__(self, state: FineTuneState, methods: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.checks: dict[str, QCheckBox] = {}
        ticks = QGridLayout()  # methods in rows of four, so a large font does not widen the tab
        theme.bind(ticks, lambda w, m: w.setHorizontalSpacing(m.group_spacing))
        ticks.addWidget(QLabel("Methods"), 0, 0)
        for i, (name, method) in enumerate(methods.items()):
            check = QCheckBox(name)
            check.setToolTip(method.title or name)
            check.setChecked(name in ("full", "lora", "bitfit"))
            check.toggled.connect(lambda *_: self._ticked())
            self.checks[name] = check
            ticks.addWidget(check, i // METHODS_PER_ROW, 1 + i % METHODS_PER_ROW)
        ticks.setColumnStretch(1 + METHODS_PER_ROW, 1)
        self.count_button = button("Count parameters", tip="Count what each ticked method trains (no training: the "
                                   "model is built with the method attached); each gets a row with its trainable "
                                   "share")
        self.run_button = button("Run bench", tip="Fine-tune the form's task with every ticked method, one after "
                                 "another, each with its own default learning rate and settings")
        self.csv_button = button("Table as CSV…")
        self.picture_button = button("Figure as PNG/SVG…")
        self.columns_button = button("Columns as PNG/SVG…", tip="The table's columns as bar charts, one bar per method "
                                     "(trainable %, checkpoint, memory, tokens/s, the metric, forgetting)",
                                     clicked=lambda: self._export_here(self.export_columns))
        self.queue_label = label("", name="summary")
        self.counts_label = label("", name="summary", wrap=True)
        buttons = row(self.count_button, self.run_button, self.csv_button, self.picture_button, self.columns_button, 1)
        labels = row(self.queue_label, (self.counts_label, 1))
        self.table = BenchTable()
        theme.bind(self.table, lambda w, m: w.set_height_limit(m.bench_table_max_h))
        self.curves = FineTuneCurves()
        theme.bind(self.curves, lambda w, m: w.setMinimumHeight(m.layer_plot_min_h))  # two plots stay legible
        # the table as tall as its rows: no splitter to leave a gap under it
        column(self, ticks, buttons, labels, self.table, (self.curves, 1), margins="panel_margins", spacing=None)
        state.events.queue_changed.connect(self._show_queue)
        state.events.results_changed.connect(lambda *_: self._show_results())
        self._ticked()

    def _export_here(self, fn: Any) -> None:
        try:
            fn()
        except (WorkbenchError, OSError) as exc:
            self.queue_label.setText(f"Export failed: {exc}")

    def _show_results(self) -> None:
        self.table.show_rows(self.state.bench_rows())
        counted = [(n, self.state.counts[n]) for n in self.state.bench if n in self.state.counts]
        self.counts_label.setText("Trainable parameters: " + "; ".join(
            f"{n} {t:,} of {total:,} ({100.0 * t / max(1, total):.3g}%)" for n, (t, total) in counted)
            if counted else "")

    def set_ticked(self, names: list[str]) -> None:
        for name, check in self.checks.items():
            check.setChecked(name in names)

    def _ticked(self) -> None:
        self.state.set_bench([n for n, c in self.checks.items() if c.isChecked()])
        self._show_results()

    def _show_queue(self) -> None:
        running = ", ".join(self.state.running.values())
        waiting = ", ".join(self.state.queue)
        parts = ([f"running {running}"] if running else []) + ([f"then {waiting}"] if waiting else [])
        self.queue_label.setText(" · ".join(parts))

    # -------------------------------------------------------------- export
    def export_table(self, path: str | Path | None = None) -> Path | None:
        rows = self.state.bench_rows()
        if not rows:
            raise WorkbenchError("nothing to export yet: run the bench first")
        table = (BENCH_COLUMNS, [[r.get(c) for c in BENCH_COLUMNS] for r in rows])
        return export_table_dialog(self, table, path, "bench.csv", "Export the bench table")

    def columns_figure(self) -> Any:
        """The bench's columns as bar charts (``BenchBars``), drawn for the rows so far (not shown on screen)."""
        from lm_workbench.ui.finetune.bench_bars import BenchBars
        from lm_workbench.ui.finetune.bench_table import memory_header

        rows = [r for r in self.state.bench_rows() if r.get("run_id") is not None]
        if not rows:
            raise WorkbenchError("nothing to draw yet: run the bench first")
        figure = BenchBars()
        m = theme.current().metrics
        figure.resize(m.bench_figure_w, m.bench_figure_h)
        figure.show_rows(rows, memory=memory_header(rows), title=f"Fine-tuning bench ({self.state.task})")
        return figure

    def export_columns(self, path: str | Path | None = None) -> Path | None:
        figure = self.columns_figure()
        if path is None:
            return export_dialog(self, figure, str(Path.home() / "bench-columns.png"))
        return save_widget(figure, path)

    def export_picture(self, path: str | Path | None = None) -> Path | None:
        if path is None:
            return export_dialog(self, self.curves, str(Path.home() / "bench.png"))
        return save_widget(self.curves, path)
