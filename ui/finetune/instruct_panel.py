"""The Fine-tune tab's "Instruct" page: what instruction tuning trains on, and the model before and after.

"Demonstration data": how many examples each category has and a few prompts of each with the answers we want
(a lecture's first instruct step; issue 49.11: it showed the same page as the next). "What is trained": the chat
template (its source, and the note when ``auto`` fell back to plain) in an editable
box ("Use this template" saves the text to a file and makes it the form's ``--template``), one training example
(chosen by its number) as token cells coloured trained / not trained (``TrainedTokens``) with its counts, and the
trained tokens of each batch in file order. "Answers before/after": after a run, the held-out prompts answered by
the base and by the tuned model side by side (greedy and sampled, seeds fixed), the exact match and ROUGE-L of the
greedy answers before and after, and the same per category when the data has categories.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QHeaderView, QLabel, QPlainTextEdit, QTableWidget, QTableWidgetItem, QTabWidget, QWidget,
)

from lm_workbench.ui import theme
from lm_workbench.ui.finetune.trained_tokens import TrainedLegend, TrainedTokens
from lm_workbench.ui.widgets import boxes
from lm_workbench.ui.widgets.controls import button, combo_box, label, spin_box
from lm_workbench.ui.widgets.boxes import flush_column
from lm_workbench.ui.widgets.scroll_area import scroll_area

BEFORE_AFTER_COLUMNS = ("prompt", "reference", "before_greedy", "after_greedy", "before_sampled", "after_sampled",
                        "category")
HEADERS = ("prompt", "reference", "before (greedy)", "after (greedy)", "before (sampled)", "after (sampled)",
           "category")
TEMPLATE_CHOICES = ("auto", "plain")


def shown_text(text: str) -> tuple[str, int]:
    """``text`` without U+FFFD (a sampled answer cut inside a character decodes to "�"), and how many there were."""
    return text.replace("\ufffd", ""), text.count("\ufffd")


class InstructPanel(QWidget):
    template_chosen = Signal(str)  # "auto", "plain" or a file
    preview_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preview: Any = None  # lm_workbench.instruct.preview.InstructPreview
        self.summary: dict[str, Any] | None = None
        self.template_combo = combo_box([(choice, choice) for choice in TEMPLATE_CHOICES], tip="auto: the model's "
                                        "own chat template, or the plain one when it has none; plain: ### Instruction "
                                        "/ ### Response; or the edited text, saved as a file")
        self.preview_button = button("Show what is trained", tip="Read the training file and mark, token by token, "
                                     "what the loss covers", clicked=self.preview_requested.emit)
        self.template_label = label("Choose the instruct task, load a decoder or an encoder-decoder, and press "
                                    "Show what is trained.", name="summary", wrap=True)
        self.template_edit = QPlainTextEdit()
        self.template_edit.setToolTip("The Jinja chat template (transformers' format); edit it and press Use this "
                                      "template to train with the edit")
        self.use_button = button("Use this template")
        self.example_spin = spin_box(1, 1, 1)
        self.example_label = label("", name="summary", wrap=True)
        self.tokens = TrainedTokens()
        self.legend = TrainedLegend()
        self.batch_label = label("", name="summary", wrap=True)
        self.scores_label = label("After a run: the held-out prompts answered by the base and by the tuned model.",
                                  name="summary", wrap=True)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        theme.follow(self, self._fit_columns)  # F5 on and off: columns for the new type size
        self.data_label = label("Choose the instruct task, load a decoder or an encoder-decoder, and press "
                                "Show what is trained: the training file's categories and examples appear here.",
                                name="summary", wrap=True)
        self.samples = QTableWidget(0, 3)
        self.samples.setHorizontalHeaderLabels(("category", "prompt", "answer we want"))
        self.samples.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.samples.setWordWrap(True)  # a prompt wraps, never cut (issue 49.11)
        self.samples.verticalHeader().setVisible(False)
        header = self.samples.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.categories = QTableWidget(0, 5)
        self.categories.setHorizontalHeaderLabels(("category", "prompts", "exact match before", "after",
                                                   "ROUGE-L after"))
        self.categories.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.categories.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.categories.horizontalHeader().setStretchLastSection(True)
        self._build()
        self.template_combo.currentIndexChanged.connect(
            lambda *_: self.template_chosen.emit(self.template_combo.currentData()))
        self.example_spin.valueChanged.connect(lambda *_: self.show_example(self.example_spin.value() - 1))

    def _build(self) -> None:
        top = QWidget()
        theme.bind(self.template_edit, lambda w, m: w.setMaximumHeight(m.template_edit_max_h))
        boxes.column(top, boxes.row(QLabel("Template"), self.template_combo, self.preview_button, 1),
                     self.template_label, (self.template_edit, 1), boxes.row(self.use_button, 1),
                     boxes.row(QLabel("Example"), self.example_spin, (self.example_label, 1)),
                     self.batch_label,  # above the tokens: in sight with F5 (issue 49.11)
                     self.legend, (scroll_area(self.tokens, frame=False), 2), margins="panel_margins", spacing=None)
        data = QWidget()
        boxes.column(data, self.data_label, (self.samples, 1), margins="panel_margins", spacing=None)
        bottom = QWidget()
        boxes.column(bottom, self.scores_label, (self.table, 3), (self.categories, 1), margins="panel_margins",
                     spacing=None)
        self.pages = QTabWidget()
        self.data_page, self.trained_page, self.answers_page = data, top, bottom
        self.pages.addTab(data, "Demonstration data")
        self.pages.addTab(top, "What is trained")
        self.pages.addTab(bottom, "Answers before/after")
        flush_column(self, self.pages)

    # ------------------------------------------------------------------ the template and the preview
    def set_template_choice(self, choice: str) -> None:
        index = self.template_combo.findData(choice)
        if index < 0:
            self.template_combo.addItem(Path(choice).name, choice)
            index = self.template_combo.count() - 1
        self.template_combo.blockSignals(True)
        self.template_combo.setCurrentIndex(index)
        self.template_combo.blockSignals(False)

    def template_text(self) -> str:
        return self.template_edit.toPlainText()

    def show_preview(self, preview: Any) -> None:
        self.preview = preview
        where = {"tokenizer": "the model's own chat template", "plain": "the plain template"}.get(
            preview.template_source, f"the template in {preview.template_source}")
        note = f" {preview.template_note}." if preview.template_note else ""
        self.template_label.setText(f"Training formats each example with {where}.{note}")
        self.template_edit.setPlainText(preview.template_text)
        count = max(1, len(preview.examples))
        self.example_spin.blockSignals(True)
        self.example_spin.setRange(1, count)
        self.example_spin.setValue(1)
        self.example_spin.blockSignals(False)
        self.show_example(0)
        per_batch = preview.batch_trained
        shown = ", ".join(str(n) for n in per_batch[:12]) + (" …" if len(per_batch) > 12 else "")
        mean = sum(per_batch) / len(per_batch) if per_batch else 0.0
        share = 100.0 * preview.trained_tokens / max(1, preview.total_tokens)
        notes = "".join(f" {n}." for n in preview.notes)
        self.batch_label.setText(
            f"Trained tokens per batch of {preview.batch_size} (file order): {shown}; mean {mean:.1f}. One pass: "
            f"{preview.trained_tokens:,} of {preview.total_tokens:,} tokens trained ({share:.1f}%).{notes}")
        self.show_data(preview)

    def show_data(self, preview: Any) -> None:
        """The Demonstration data page: the categories with their counts, a few prompts and answers of each."""
        counts = getattr(preview, "category_counts", {}) or {}
        named = {name: n for name, n in counts.items() if name}
        total = sum(counts.values())
        if named:
            listed = ", ".join(f"{name} ({n})" for name, n in named.items())
            self.data_label.setText(f"{total:,} demonstrations in {len(named)} categories: {listed}. A prompt and "
                                    f"the answer we want, written through the chat template (What is trained).")
        else:
            self.data_label.setText(f"{total:,} demonstrations (the file names no categories).")
        samples = getattr(preview, "samples", []) or []
        self.samples.setRowCount(len(samples))
        for r, cells in enumerate(samples):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text or "—")
                item.setToolTip(text)
                self.samples.setItem(r, c, item)
        self.samples.resizeRowsToContents()

    def show_example(self, index: int) -> None:
        if self.preview is None or not self.preview.examples:
            self.tokens.set_tokens([], [])
            return
        example = self.preview.examples[max(0, min(index, len(self.preview.examples) - 1))]
        self.tokens.set_tokens(example.tokens, example.trained)
        category = f" · {example.category}" if example.category else ""
        self.example_label.setText(f"line {example.line}{category}: {example.trained_count} of "
                                   f"{len(example.tokens)} tokens trained")

    # ------------------------------------------------------------------ before / after
    def show_before_after(self, summary: dict[str, Any]) -> None:
        self.summary = summary
        self.pages.setCurrentWidget(self.answers_page)
        table = summary.get("before_after") or {}
        rows = table.get("rows") or []
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, key in enumerate(BEFORE_AFTER_COLUMNS):
                text, dropped = shown_text(str(row.get(key) or ""))
                item = QTableWidgetItem(text)
                item.setToolTip(text + (f"\n({dropped} piece(s) of a character cut by sampling, not UTF-8 text, "
                                        f"left out)" if dropped else ""))
                self.table.setItem(r, c, item)
        self._fit_columns()
        before, after = table.get("before") or {}, table.get("after") or {}
        sampling = table.get("sampling") or {}
        if before and after:
            self.scores_label.setText(
                f"Held-out prompts ({len(rows)}), greedy answers: exact match {before['exact_match']:.2f} before → "
                f"{after['exact_match']:.2f} after; ROUGE-L {before['rougeL']:.2f} → {after['rougeL']:.2f}. "
                f"Sampled with seed {sampling.get('seed', 0)}, temperature {sampling.get('temperature', '')}, "
                f"top-p {sampling.get('top_p', '')}.")
        categories = table.get("categories") or {}
        self.categories.setRowCount(len(categories))
        for r, (name, values) in enumerate(sorted(categories.items())):
            cells = (name, str(values.get("count", "")), f"{values['before']['exact_match']:.2f}",
                     f"{values['after']['exact_match']:.2f}", f"{values['after']['rougeL']:.2f}")
            for c, text in enumerate(cells):
                self.categories.setItem(r, c, QTableWidgetItem(text))
        self.categories.setVisible(bool(categories))

    def clear_before_after(self) -> None:
        """No run's answers (another model was loaded)."""
        self.summary = None
        self.table.setRowCount(0)
        self.categories.setRowCount(0)
        self.scores_label.setText("After a run: the held-out prompts answered by the base and by the tuned model.")

    def _fit_columns(self) -> None:
        """Columns sized to their contents, each at most about a quarter of the form's width."""
        self.table.resizeColumnsToContents()
        for c in range(self.table.columnCount()):
            self.table.setColumnWidth(c, min(self.table.columnWidth(c), theme.current().metrics.finetune_form_w * 11 // 40))
        self.table.resizeRowsToContents()  # a long prompt wraps onto more lines, not cut (issue 49.11)
