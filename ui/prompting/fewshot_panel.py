"""The Few-shot page: choose k demonstrations, read the whole prompt, and chart accuracy against k.

The demonstrations come from the Evaluate page's labelled file: random with
a seed, balanced per label, or the most similar to the input by sentence
embedding; their order and the separator between them are choices too.
"Build prompt" shows the final prompt in full (Score then uses it);
"Accuracy against k" evaluates the prompt for several k, each over several
seeds, and draws the mean with a band from the worst to the best seed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSplitter, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import column, flush_column
from lm_workbench.ui.widgets.controls import button, combo_box, label, line_edit, spin_box
from lm_workbench.ui.widgets.fold import FlowLayout, labelled
from lm_workbench.ui.widgets.plain_plot import plain_plot_item
from lm_workbench.ui.widgets.view_export import export_button, export_view_picture, export_view_table
from lm_workbench.prompting.state import ORDERS, SELECTIONS, PromptingState
from lm_workbench.prompting.view_tasks import build_prompt_job

SEPARATORS = {"blank line": "\n\n", "new line": "\n", "space": " "}


def parse_ks(text: str) -> list[int]:
    """"0, 1, 2, 4" -> [0, 1, 2, 4]; a ``WorkbenchError`` for anything else."""
    try:
        ks = sorted({int(part) for part in text.replace(";", ",").split(",") if part.strip()})
    except ValueError:
        raise WorkbenchError(f"k values must be whole numbers separated by commas, not {text!r}") from None
    if not ks or ks[0] < 0:
        raise WorkbenchError("give one or more k values of 0 or more, e.g. 0, 1, 2, 4, 8")
    return ks


class FewShotPanel(QWidget):
    def __init__(self, state: PromptingState, ctx: Any, run: Callable[..., None], parent: QWidget | None = None):
        super().__init__(parent)
        self.state, self.ctx, self._run = state, ctx, run
        self._prompt_valid = True
        f = state.fewshot
        self.k_spin = spin_box(0, 64, f.k, prefix="k = ",
                               tip="How many solved examples precede the input (0: zero-shot)")
        self.selection_combo = combo_box(SELECTIONS, tip="random (seeded), balanced per label, or the most similar "
                                         "to the input by sentence embedding (the Embeddings tab's sentence model)")
        self.order_combo = combo_box(ORDERS)
        self.seed_spin = spin_box(0, 2**31 - 1, 0, prefix="seed ")
        self.separator_combo = combo_box(list(SEPARATORS), tip="What separates the demonstrations from each other "
                                         "and from the input")
        self.build_button = button("Build prompt", tip="Choose the demonstrations from the Evaluate page's file and "
                                   "show the whole prompt; Score then scores it", clicked=self.build_prompt)
        self.prompt_view = QPlainTextEdit()
        self.prompt_view.setReadOnly(True)
        self.prompt_view.setPlaceholderText("The final prompt, demonstrations and input, appears here.")
        self.ks_edit = line_edit(text="0, 1, 2, 4, 8", tip="The k values to try")
        self.seeds_spin = spin_box(1, 20, 3, suffix=" seeds")
        self.curve_button = button("Accuracy against k", tip="Evaluate the prompt for every k, each with several "
                                   "seeds", clicked=self.accuracy_against_k)
        self.export_button = export_button(self, ("Plot as PNG or SVG…", lambda: self.export_picture()),
                                           ("Accuracy per k (CSV)…", lambda: self.export_table()))
        self.plot = pg.PlotWidget()
        item = plain_plot_item(self.plot, "k (demonstrations)", "accuracy", si_prefix=False)
        self.low_curve = item.plot([], [])
        self.high_curve = item.plot([], [])
        self.band = pg.FillBetweenItem(self.low_curve, self.high_curve)
        item.addItem(self.band)
        self.mean_curve = item.plot([], [], symbol="o")
        self.seed_points = pg.ScatterPlotItem()
        item.addItem(self.seed_points)
        self.summary = label("Demonstrations come from the labelled file chosen on the Evaluate page.",
                             name="summary", wrap=True)

        choices = FlowLayout()  # the rows wrap to the width (presentation mode on a small screen)
        for widget in (self.k_spin, self.selection_combo, self.order_combo, self.seed_spin,
                       labelled(QLabel("separator"), self.separator_combo), self.build_button):
            choices.addWidget(widget)
        curve_row = FlowLayout()
        for widget in (labelled(QLabel("k values"), self.ks_edit), self.seeds_spin, self.curve_button,
                       self.export_button):
            curve_row.addWidget(widget)
        self.plot_box = QWidget()  # what Export saves (a plain widget renders to SVG; a graphics view does not)
        flush_column(self.plot_box, self.plot)
        split = QSplitter()
        split.addWidget(self.prompt_view)
        split.addWidget(self.plot_box)
        column(self, choices, curve_row, (split, 1), self.summary, margins=None, spacing=None)

        self.k_spin.valueChanged.connect(lambda k: state.set_fewshot(k=k))
        self.selection_combo.currentTextChanged.connect(lambda s: state.set_fewshot(selection=s))
        self.order_combo.currentTextChanged.connect(lambda o: state.set_fewshot(order=o))
        self.seed_spin.valueChanged.connect(lambda s: state.set_fewshot(seed=s))
        self.separator_combo.currentTextChanged.connect(lambda s: state.set_fewshot(separator=SEPARATORS[s]))
        state.events.fewshot_changed.connect(self._show)
        state.events.prompt_changed.connect(self._prompt_changed)
        theme.follow(self, self._restyle)
        self._restyle()

    def set_prompt_valid(self, ok: bool) -> None:
        self._prompt_valid = ok
        self.build_button.setEnabled(ok)
        self.curve_button.setEnabled(ok)

    def set_running(self, running: bool) -> None:
        self.build_button.setEnabled(not running and self._prompt_valid)
        self.curve_button.setEnabled(not running and self._prompt_valid)

    # -- running ---------------------------------------------------------------------------------------
    def _has_data(self) -> bool:
        if not self.state.data_path:
            self.ctx.show_message("Choose a labelled file on the Evaluate page: demonstrations are drawn from it.",
                                  "info")
        return bool(self.state.data_path)

    def build_prompt(self) -> None:
        if not self._has_data():
            return
        try:
            job = build_prompt_job(self.state)
        except WorkbenchError as exc:
            self.ctx.show_message(str(exc), "warning")
            return
        self._run(job, lambda out: self.state.set_fewshot_prompt(*out), "Choosing demonstrations…")

    def accuracy_against_k(self) -> None:
        loaded = self.ctx.loaded
        if loaded is None:
            self.ctx.show_message("Load a model first: the prompts are scored by the loaded model.", "info")
            return
        if not self._has_data():
            return
        from lm_workbench.prompting.view_tasks import accuracy_vs_k_job

        try:
            ks = parse_ks(self.ks_edit.text())
            job = accuracy_vs_k_job(loaded, self.state, ks, list(range(self.seeds_spin.value())))
        except WorkbenchError as exc:
            self.ctx.show_message(str(exc), "warning")
            return
        self.state.clear_curve()
        self._run(job, self._curve_done, "Accuracy against k…",
                  on_partial=lambda p: self.state.add_curve_point(p.k, list(p.accuracies)))

    def _curve_done(self, points: list[Any]) -> None:
        for p in points:
            self.state.add_curve_point(p.k, list(p.accuracies))
        best = max(points, key=lambda p: p.mean)
        self.summary.setText(f"Best mean accuracy {best.mean:.1%} at k = {best.k} (seeds ranged "
                             f"{min(best.accuracies):.1%}–{max(best.accuracies):.1%}).")

    # -- showing ---------------------------------------------------------------------------------------
    def _prompt_changed(self) -> None:
        if self.state.fewshot.prompt:  # the demonstrations are filled with the old template: build again
            self.state.set_fewshot_prompt("", [])

    def _show(self) -> None:
        f = self.state.fewshot
        for widget, value in ((self.k_spin, f.k), (self.seed_spin, f.seed)):
            if widget.value() != value:
                widget.setValue(value)
        for combo, value in ((self.selection_combo, f.selection), (self.order_combo, f.order)):
            if combo.currentText() != value:
                combo.setCurrentText(value)
        if self.prompt_view.toPlainText() != f.prompt:
            self.prompt_view.setPlainText(f.prompt)
        if f.prompt:
            labels = ", ".join(d.label for d in f.demonstrations)
            self.summary.setText(f"{len(f.demonstrations)} demonstrations ({labels}); Score now scores this prompt.")
        ks, mean, low, high = self.state.curve_band()
        self.plot.getPlotItem().getAxis("bottom").setTicks([[(k, str(k)) for k in ks]] if ks else None)
        self.mean_curve.setData(ks, mean)
        self.low_curve.setData(ks, low)
        self.high_curve.setData(ks, high)
        xs = [k for k in ks for _ in f.curve[k]]
        ys = [a for k in ks for a in f.curve[k]]
        self.seed_points.setData(xs, ys)

    def _restyle(self) -> None:
        c, m = theme.current().colours, theme.current().metrics
        self.plot.setBackground(c.base_bg)
        colour = QColor(c.accuracy_curve)
        self.mean_curve.setPen(pg.mkPen(c.accuracy_curve, width=m.plot_line_width))
        self.mean_curve.setSymbolBrush(c.accuracy_curve)
        self.mean_curve.setSymbolSize(m.plot_symbol)
        band = QColor(colour)
        band.setAlpha(c.selection_fill_alpha * 2)
        self.band.setBrush(pg.mkBrush(band))
        self.low_curve.setPen(pg.mkPen(band))
        self.high_curve.setPen(pg.mkPen(band))
        self.seed_points.setBrush(pg.mkBrush(c.token_id_ink))
        self.seed_points.setPen(None)
        self.seed_points.setSize(m.plot_small_symbol)

    # -- export ----------------------------------------------------------------------------------------
    def export_picture(self, path: str | Path | None = None) -> Path | None:
        return export_view_picture(self.ctx, self, self.plot_box, "prompting-k", path)

    def export_table(self, path: str | Path | None = None) -> Path | None:
        return export_view_table(self.ctx, self, self.state.curve_table(), "prompting-k", path,
                                 "Export accuracy per k", "Nothing to export yet: chart accuracy against k first.")
