"""Nearest neighbours of the selected occurrence: the chosen representation next to the static baseline.

Both tables answer the same query (top k by cosine, the query's own line
left out, optionally only occurrences of the same word), so the contrast is
one glance: on the static baseline every occurrence of a word has the same
vector, so they all tie at 1.0 and their order says nothing; a contextual
layer ranks the occurrences of the same sense first. Ties are shown as
ties: one shared rank written "=r" on a tinted row, never broken by corpus
order (``lm_workbench.engine.embeddings.neighbours`` groups them).

While a model B is compared, B's neighbours of the same occurrence (the same characters of the same line, in
B's vectors for the same corpus) show under A's (``set_model_b``, ``show_b``).
"""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QLabel, QSplitter, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.embeddings.occurrence_list import OccurrenceList
from lm_workbench.ui.widgets.boxes import column, flush_column, row
from lm_workbench.ui.widgets.controls import label, spin_box

HEADER = ["rank", "score", "label", "sentence"]
MAX_ROWS = 300  # a tie group on the static baseline can hold every occurrence of a word


class NeighboursPanel(QWidget):
    options_changed = Signal()
    occurrence_activated = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.k_spin = spin_box(1, 200, 10, tip="How many neighbours (more come back when the k-th place is tied)")
        self.same_word = QCheckBox("same word only")
        self.same_word.setToolTip("Only occurrences of the query's word are candidates (the sense test)")
        self.query_label = label("Click a point on the map to list its nearest neighbours.", wrap=True)
        self.query_label.setTextFormat(Qt.TextFormat.RichText)
        # the titles wrap: a scalar mix's label is long, it must not widen the window
        self.contextual_title = label("", name="sectionTitle", wrap=True)
        self.static_title = label("Static baseline", name="sectionTitle", wrap=True)
        self.b_title = label("", name="sectionTitle", wrap=True)
        self.contextual = OccurrenceList(HEADER)
        self.static = OccurrenceList(HEADER)
        self.b_table = OccurrenceList(HEADER)  # model B's neighbours, while comparing
        self.contextual_note = label("", name="summary", wrap=True)
        self.static_note = label("", name="summary", wrap=True)
        self.b_note = label("", name="summary", wrap=True)
        split = QSplitter(Qt.Orientation.Vertical)  # stacked: each table gets the full width for sentences
        self._boxes = []
        for title, table, note in ((self.contextual_title, self.contextual, self.contextual_note),
                                   (self.b_title, self.b_table, self.b_note),
                                   (self.static_title, self.static, self.static_note)):
            box = QWidget()
            self._boxes.append(box)
            flush_column(box, title, (table, 1), note, spacing="tight_spacing")
            split.addWidget(box)
        column(self, row(QLabel("k"), self.k_spin, self.same_word, 1), self.query_label, (split, 1),
               margins="panel_margins", spacing=None)
        self.k_spin.valueChanged.connect(lambda _v: self.options_changed.emit())
        self.same_word.toggled.connect(lambda _v: self.options_changed.emit())
        self.contextual.occurrence_activated.connect(self.occurrence_activated)
        self.static.occurrence_activated.connect(self.occurrence_activated)
        self.b_box = self._boxes[1]
        self._name_a, self._name_b, self._label, self._b_repr_note = "", None, "", ""
        self.b_box.hide()
        self.set_representation("")

    def k(self) -> int:
        return self.k_spin.value()

    def set_representation(self, label: str) -> None:
        self._label = label
        title = f"Neighbours: {label}" if label else "Neighbours"
        self.contextual_title.setText(f"A: {self._name_a} · {title}" if self.comparing() else title)

    def set_model_b(self, name_a: str, name_b: str | None, label_b: str = "", note: str = "") -> None:
        """Show model B's neighbours (``name_b``, its representation ``label_b``) under A's, or hide them."""
        self._name_a, self._name_b = name_a, name_b
        self.b_box.setVisible(name_b is not None)
        self.b_title.setText(f"B: {name_b} · Neighbours: {label_b}" if name_b is not None else "")
        self._b_repr_note = note
        self.b_table.set_rows([], [], [])
        self.b_note.setText(note)
        self.set_representation(self._label)

    def comparing(self) -> bool:
        return not self.b_box.isHidden()

    def show_b(self, neighbours: Sequence[Any], describe, why: str = "") -> None:
        """B's neighbours of the query (``describe`` reads B's occurrences), or ``why`` B has none."""
        if why:
            self.b_table.set_rows([], [], [])
        else:
            self._fill(self.b_table, self.b_note, neighbours, describe)
        self.b_note.setText("; ".join(part for part in (why, self._b_repr_note, self.b_note.text() if not why else "")
                                      if part))

    def clear(self, message: str = "Click a point on the map to list its nearest neighbours.") -> None:
        self.query_label.setText(message)
        for table, note in ((self.contextual, self.contextual_note), (self.static, self.static_note),
                            (self.b_table, self.b_note)):
            table.set_rows([], [], [])
            note.setText("")

    def show_query(self, query_html: str, contextual: Sequence[Any], static: Sequence[Any], describe) -> None:
        """Show both neighbour lists; ``describe(index)`` -> (word, label, html sentence, plain sentence)."""
        self.query_label.setText(query_html)
        self._fill(self.contextual, self.contextual_note, contextual, describe)
        self._fill(self.static, self.static_note, static, describe)

    def _fill(self, table: OccurrenceList, note: QLabel, neighbours: Sequence[Any], describe) -> None:
        shown = list(neighbours)[:MAX_ROWS]
        rows, plain, tints, indices = [], [], [], []
        for nb in shown:
            word, label, sentence_html, sentence_plain = describe(nb.index)
            rank = f"={nb.rank}" if nb.tied else f"{nb.rank}"
            rows.append([rank, f"{nb.score:.4f}", label or word, sentence_html])
            plain.append([rank, nb.score, label or word, sentence_plain])
            tints.append(theme.current().colours.neighbour_tie_bg if nb.tied else None)
            indices.append(nb.index)
        table.set_rows(rows, indices, plain, tints)
        tied = sum(1 for nb in neighbours if nb.tied)
        parts = []
        if tied:
            parts.append(f"{tied} tied neighbours (rows marked =r share one rank: their order is by corpus "
                         "position, for display only)")
        if len(neighbours) > len(shown):
            parts.append(f"showing {len(shown)} of {len(neighbours)}")
        note.setText("; ".join(parts))
