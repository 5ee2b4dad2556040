"""The Evaluate page: prompts side by side on a labelled file, raw and calibrated, with a confusion matrix.

Each row of the table is one template and verbalizer ("Add prompt" adds the
one being edited); Evaluate runs them all over the file, one after the other,
rows filling in as results arrive. Selecting a row shows its confusion
matrix (raw or calibrated). The table exports as CSV, the matrix as PNG/SVG.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
from PySide6.QtWidgets import (
    QAbstractItemView, QCheckBox, QHeaderView, QLabel, QSplitter, QTableWidget, QTableWidgetItem, QWidget,
)

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui import theme
from lm_workbench.ui.widgets import boxes
from lm_workbench.ui.widgets.controls import button, combo_box, label
from lm_workbench.ui.widgets.dataset_picker import choose_cached_dataset, display_name
from lm_workbench.ui.widgets.heatmap import HeatmapView
from lm_workbench.ui.widgets.file_choice import file_or_ask
from lm_workbench.ui.widgets.boxes import flush_column
from lm_workbench.ui.widgets.fold import FlowLayout, labelled
from lm_workbench.ui.widgets.view_export import export_button, export_view_picture, export_view_table
from lm_workbench.prompting.state import PromptingState

COLUMNS = ["acc.", "F1", "cal. acc.", "cal. F1", "run", "template", "verbalizer"]
TIPS = ["accuracy", "macro-F1 (the mean of the labels' F1)", "accuracy after contextual calibration",
        "macro-F1 after contextual calibration", "the run it is stored as (Runs tab)", "", ""]
TEMPLATE_COLUMN = 5
CHOOSE = "Choose a labelled file…"
FROM_CACHE = "From the datasets cache…"


class EvaluatePanel(QWidget):
    def __init__(self, state: PromptingState, ctx: Any, run: Callable[..., None], parent: QWidget | None = None):
        super().__init__(parent)
        self.state, self.ctx, self._run = state, ctx, run
        self._prompt_valid = True
        self.data_combo = combo_box([CHOOSE, FROM_CACHE],
                                    tip="A CSV/TSV (text, label; or sentence1, sentence2, label) or a JSONL file")
        self.calibrate_check = QCheckBox("Calibrate")
        self.calibrate_check.setChecked(state.calibrate)
        self.calibrate_check.setToolTip("Contextual calibration (Zhao et al. 2021): divide by the label "
                                        "probabilities of content-free inputs in the same prompt, renormalise")
        self.add_button = button("Add prompt", tip="Add the template and verbalizer above as a row, to compare "
                                 "prompts", clicked=self.add_current)
        self.remove_button = button("Remove", clicked=lambda: state.remove_row(self.table.currentRow()))
        self.evaluate_button = button("Evaluate", tip="Score every example of the file with every prompt of the "
                                      "table", clicked=self.evaluate)
        self.export_button = export_button(self, ("Table (CSV)…", lambda: self.export_table()),
                                           ("Confusion matrix as PNG or SVG…", lambda: self.export_picture()))
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        for column, tip in enumerate(TIPS):
            self.table.horizontalHeaderItem(column).setToolTip(tip)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(TEMPLATE_COLUMN, QHeaderView.ResizeMode.Stretch)
        theme.bind(self.table, lambda t, m: t.verticalHeader().setDefaultSectionSize(m.table_row_h))
        self.matrix_combo = combo_box(["raw", "calibrated"], tip="The confusion matrix before or after calibration")
        self.confusion = HeatmapView(empty_hint="Evaluate: the confusion matrix shows here.")
        self.summary = label("Choose a labelled file, add prompts to compare (or keep the one above) and press "
                             "Evaluate.", name="summary", wrap=True)

        row = FlowLayout()  # wraps to the width (presentation mode on a small screen)
        row.addWidget(labelled(QLabel("Data"), self.data_combo))
        for widget in (self.calibrate_check, self.add_button, self.remove_button, self.evaluate_button,
                       self.export_button):
            row.addWidget(widget)
        matrix_box = QWidget()
        matrix_row = boxes.row(QLabel("Confusion (rows: gold, columns: predicted)"), self.matrix_combo, 1)
        flush_column(matrix_box, matrix_row, (self.confusion, 1))
        split = QSplitter()
        split.addWidget(self.table)
        split.addWidget(matrix_box)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 1)
        split.setSizes([2 * split.width(), split.width()])  # proportions: the table gets two thirds
        boxes.column(self, row, self.summary, (split, 1), margins=None, spacing=None)

        self.data_combo.activated.connect(self._data_activated)
        self.calibrate_check.toggled.connect(state.set_calibrate)
        self.table.currentCellChanged.connect(lambda r, _c, _pr, _pc: state.select_row(r))
        self.matrix_combo.currentTextChanged.connect(lambda _t: self._show_matrix())
        state.events.comparison_changed.connect(self._show)
        state.events.evaluation_changed.connect(self._show)
        self._show()

    # -- choices ---------------------------------------------------------------------------------------
    def choose_data(self, path: str | None = None) -> None:
        """Use the labelled file ``path`` (asks with a file dialog when None)."""
        path = file_or_ask(self, path, "Labelled data", "Labelled data (*.csv *.tsv *.jsonl);;All files (*)",
                           on_cancel=self._show)
        if path is not None:
            self.state.set_data(path)

    def _data_activated(self, index: int) -> None:
        if self.data_combo.itemText(index) == CHOOSE:
            self.choose_data()
        elif self.data_combo.itemText(index) == FROM_CACHE:
            reference = choose_cached_dataset(self)
            if reference:
                self.state.set_data(reference)
            else:
                self._show()
        else:
            self.state.set_data(self.data_combo.itemData(index))

    def add_current(self) -> None:
        if not self._prompt_valid:
            self.ctx.show_message("Fix the template first: its problems are shown under it.", "info")
            return
        if not self.state.add_current_to_comparison():
            self.ctx.show_message("That prompt is in the table already.", "info")

    def set_prompt_valid(self, ok: bool) -> None:
        self._prompt_valid = ok
        self.add_button.setEnabled(ok)

    def set_running(self, running: bool) -> None:
        for widget in (self.evaluate_button, self.add_button, self.remove_button, self.data_combo):
            widget.setEnabled(not running)

    # -- running ---------------------------------------------------------------------------------------
    def evaluate(self) -> None:
        loaded = self.ctx.loaded
        if loaded is None:
            self.ctx.show_message("Load a model first: the prompts are scored by the loaded model.", "info")
            return
        if not self.state.data_path:
            self.ctx.show_message("Choose a labelled file first (Data).", "info")
            return
        if not self.state.rows and not self._prompt_valid:
            self.ctx.show_message("Fix the template first: its problems are shown under it.", "info")
            return
        from lm_workbench.prompting.view_tasks import evaluation_job

        try:
            job = evaluation_job(loaded, self.state, self.ctx.run_services.path)
        except WorkbenchError as exc:
            self.ctx.show_message(str(exc), "warning")
            return
        self.state.clear_results()
        self._run(job, self._done, "Evaluating prompts…", on_partial=self._partial)

    def _partial(self, value: Any) -> None:
        index, evaluation = value
        self.state.set_row_result(index, evaluation)

    def _done(self, out: tuple[Any, list[int], Any]) -> None:
        result, run_ids, read = out
        for index, (evaluation, run_id) in enumerate(zip(result.prompts, run_ids)):
            self.state.set_row_result(index, evaluation, run_id)
        scores = [(e.calibrated or e.raw).accuracy if self.state.calibrate else e.raw.accuracy for e in result.prompts]
        best = max(range(len(scores)), key=scores.__getitem__)
        demos = f", {len(result.demonstrations)} demonstrations" if result.demonstrations else ""
        cut = max((len(e.dropped) for e in result.prompts), default=0)
        if cut:  # the prompt did not fit the model's window for some examples
            demos += f" (for {cut} examples some did not fit the model's window and were dropped; see the run)"
        said = f" {Path(read.source).name}: {read.summary()}." if read is not None else ""
        notes = "".join(f" {line[0].upper()}{line[1:]}." for line in result.notes)  # the label rule's
        self.summary.setText(f"{len(scores)} prompt(s) on {len(result.examples)} examples{demos}; best accuracy "
                             f"{scores[best]:.1%} (row {best + 1}); each row is stored as a run (see Runs).{said}{notes}")

    # -- showing ---------------------------------------------------------------------------------------
    def _show(self) -> None:
        s = self.state
        if s.data_path and self.data_combo.findData(s.data_path) < 0:
            self.data_combo.insertItem(self.data_combo.findText(CHOOSE), display_name(s.data_path), s.data_path)
        if s.data_path:
            self.data_combo.setCurrentIndex(self.data_combo.findData(s.data_path))
        self.calibrate_check.setChecked(s.calibrate)
        self.table.setRowCount(len(s.rows))
        for r, row in enumerate(s.rows):
            result = row.result
            raw = result.raw if result is not None else None
            cal = result.calibrated if result is not None else None
            cells = ["" if raw is None else f"{raw.accuracy:.3f}",
                     "" if raw is None else f"{raw.macro_f1:.3f}",
                     "" if cal is None else f"{cal.accuracy:.3f}",
                     "" if cal is None else f"{cal.macro_f1:.3f}",
                     "" if row.run_id is None else str(row.run_id),
                     row.template, row.verbalizer]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(r, c, item)
        if s.rows and self.table.currentRow() != s.selected_row:
            self.table.selectRow(s.selected_row)
        self._show_matrix()

    def _show_matrix(self) -> None:
        s = self.state
        row = s.rows[s.selected_row] if 0 <= s.selected_row < len(s.rows) else None
        result = row.result if row is not None else None
        if result is None:
            self.confusion.set_matrix(None)
            return
        shown = result.raw
        if self.matrix_combo.currentText() == "calibrated" and result.calibrated is not None:
            shown = result.calibrated
        matrix = np.asarray(shown.confusion, dtype=float)
        self.confusion.set_matrix(matrix, list(result.labels), list(result.labels),
                                  title=f"row {s.selected_row + 1}, {self.matrix_combo.currentText()}: "
                                        f"accuracy {shown.accuracy:.1%}")

    # -- export ----------------------------------------------------------------------------------------
    def export_table(self, path: str | Path | None = None) -> Path | None:
        return export_view_table(self.ctx, self, self.state.comparison_table(), "prompting", path,
                                 "Export the comparison", "Nothing to export yet: evaluate first.")

    def export_picture(self, path: str | Path | None = None) -> Path | None:
        return export_view_picture(self.ctx, self, self.confusion, "prompting-confusion", path)
