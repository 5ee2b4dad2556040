"""Sentence embeddings: a similarity matrix for a few sentences, and anisotropy by layer.

A sentence vector pools its token vectors: the mean, the first token
([CLS] in BERT-like models) or the model's own pooling when it declares one
(MiniLM: mean + L2 normalisation, read from its sentence-transformers
config). The heatmap shows the cosine of every pair among the first
sentences of the corpus (or of the selection). The plot shows anisotropy per
layer (Ethayarajh 2019): the mean cosine between 1,000 seeded random pairs of
occurrences of *different* words. When it is high, every vector points the
same way, so a raw cosine says little; that is why raw [CLS] vectors make
poor sentence embeddings (Reimers & Gurevych 2019).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QSplitter, QWidget

from lm_workbench.engine.embeddings.names import SENTENCE_POOLINGS
from lm_workbench.ui import theme
from lm_workbench.ui.embeddings.layer_sweep_panel import layer_position
from lm_workbench.ui.widgets.boxes import column, row
from lm_workbench.ui.widgets.controls import button, combo_box, label, spin_box
from lm_workbench.ui.widgets.heatmap import HeatmapView
from lm_workbench.ui.widgets.plain_plot import plain_plot_item

POOLING_TEXT = {"mean": "mean of tokens", "cls": "first token ([CLS])", "model": "the model's own pooling",
                "max": "maximum over tokens"}
MAX_SENTENCES = 40


class SentencePanel(QWidget):
    compute_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.matrix: np.ndarray | None = None
        self.sentences: list[str] = []
        self.vectors: np.ndarray | None = None
        self.anisotropy: dict[Any, float] = {}
        self.pooling_combo = combo_box([(POOLING_TEXT[how], how) for how in SENTENCE_POOLINGS])
        self.layer_spin = spin_box(0, 6, 6, tip="The hidden-state layer the sentence vectors pool")
        self.count_spin = spin_box(2, MAX_SENTENCES, 12,
                                   tip="How many sentences (the selection's, else the corpus's first)")
        self.compute_button = button("Compute", clicked=self.compute_requested)
        self.summary = label("Sentence vectors of the corpus's first lines, or of the selected points' sentences.",
                             name="summary", wrap=True)
        self.heatmap = HeatmapView(empty_hint="Compute: the similarity matrix shows here.")
        self.plot = pg.PlotWidget()
        item = plain_plot_item(self.plot, "layer", "mean cosine, different words")
        self.curve = item.plot([], [], symbol="o", symbolPen=None)
        self._style_plot()
        theme.follow(self, self._style_plot)
        self.sentence_list = QListWidget()
        self.sentence_list.setWordWrap(True)
        self.sentence_list.setAlternatingRowColors(True)
        theme.bind(self, lambda w, m: w.sentence_list.setMinimumWidth(m.sentence_list_min_w))
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self.heatmap)
        top.addWidget(self.sentence_list)
        top.setSizes([300, 260])
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(self.plot)
        split.setSizes([320, 200])
        column(self, row(QLabel("Pooling"), (self.pooling_combo, 1), QLabel("layer"), self.layer_spin),
               row(QLabel("Sentences"), self.count_spin, 1, self.compute_button), self.summary, (split, 1),
               margins="panel_margins", spacing=None)

    def _style_plot(self) -> None:
        c, f, m = theme.current().colours, theme.current().fonts, theme.current().metrics
        self.plot.setBackground(c.base_bg)
        self.plot.getPlotItem().setTitle("Anisotropy by layer", color=c.label_ink, size=f"{f.base_pt:g}pt")
        self.curve.setPen(pg.mkPen(c.anisotropy_curve, width=m.plot_line_width))
        self.curve.setSymbolBrush(c.anisotropy_curve)
        self.curve.setSymbolSize(m.plot_symbol)

    def set_num_layers(self, num_layers: int) -> None:
        self.layer_spin.setRange(0, num_layers)
        self.layer_spin.setValue(num_layers)

    def pooling(self) -> str:
        return self.pooling_combo.currentData()

    def set_result(self, sentences: list[str], vectors: np.ndarray, matrix: np.ndarray,
                   anisotropy: Mapping[Any, float], what: str) -> None:
        self.sentences, self.vectors, self.matrix = list(sentences), vectors, matrix
        self.anisotropy = dict(anisotropy)
        labels = [f"S{i + 1}" for i in range(len(sentences))]
        self.heatmap.set_matrix(matrix, labels, labels, "cosine similarity")
        off = matrix[~np.eye(len(matrix), dtype=bool)]
        text = f"{len(sentences)} sentences, {what}: mean off-diagonal cosine {off.mean():.3f}."
        if self.anisotropy:
            keys = sorted(self.anisotropy, key=layer_position)
            x = np.array([layer_position(k) for k in keys], dtype=float)
            y = np.array([self.anisotropy[k] for k in keys], dtype=float)
            self.curve.setData(x, y)
            ticks = [(layer_position(k), "static" if k == "static" else str(k)) for k in keys]
            self.plot.getPlotItem().getAxis("bottom").setTicks([ticks])
            self.plot.setYRange(min(0.0, float(y.min())) - 0.05, 1.05, padding=0)
            self.plot.setXRange(x.min() - 0.8, x.max() + 0.4, padding=0)
            last = keys[-1]
            text += f" Anisotropy at layer {last}: {self.anisotropy[last]:.3f}."
        else:
            self.curve.setData([], [])
            text += " Anisotropy needs occurrences of at least two different words."
        self.summary.setText(text)
        self.sentence_list.clear()
        self.sentence_list.addItems([f"S{i + 1}: {s}" for i, s in enumerate(sentences)])

    def clear(self, message: str) -> None:
        self.matrix, self.vectors, self.sentences, self.anisotropy = None, None, [], {}
        self.heatmap.set_matrix(None)
        self.sentence_list.clear()
        self.curve.setData([], [])
        self.summary.setText(message)

    def matrix_table(self) -> tuple[list[str], list[list[Any]]]:
        labels = [f"S{i + 1}" for i in range(len(self.sentences))]
        rows = [[labels[i], self.sentences[i], *(float(v) for v in row)] for i, row in enumerate(self.matrix)]
        return ["id", "sentence", *labels], rows

    def anisotropy_table(self) -> tuple[list[str], list[list[Any]]]:
        keys = sorted(self.anisotropy, key=layer_position)
        return ["layer", "anisotropy"], [[k, self.anisotropy[k]] for k in keys]
