"""Where context enters the representation: sense accuracy and silhouette per layer.

For occurrences that carry sense labels, each layer (and the static
baseline) gets the leave-one-out 1-nearest-neighbour accuracy (does the
closest other occurrence have the same sense? ties scored as the expected
accuracy under random tie-breaking, so the static baseline, where all
occurrences of a word tie, scores chance rather than luck) and the cosine
silhouette of the sense clusters. With "all words", neighbours are looked
for among occurrences of the same word only. The numbers come from
``lm_workbench.engine.embeddings.layer_sweep``; this panel plots them.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLabel, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import column, row
from lm_workbench.ui.widgets.controls import button, combo_box, label
from lm_workbench.ui.widgets.plain_plot import plain_plot_item

ALL_WORDS = "all words (neighbours within each word)"
STATIC_X = -1.5  # left of layer 0, with room for its tick label


def layer_position(layer: Any) -> float:
    """x position of a layer key: "static" left of layer 0."""
    return STATIC_X if layer == "static" else float(layer)


class LayerSweepPanel(QWidget):
    compute_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.scores: list[Any] = []
        self.word_combo = combo_box(tip="A word whose occurrences carry sense labels (or all such words)")
        self.word_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.word_combo.setMinimumContentsLength(10)
        self.compute_button = button("Sweep layers", tip="Score every layer and the static baseline (runs off the "
                                     "window's thread)", clicked=self.compute_requested)
        self.summary = label("Needs a corpus with labels (try the demo set) and its occurrences embedded.",
                             name="summary", wrap=True)
        self.plot = pg.PlotWidget()
        theme.bind(self, lambda w, m: w.plot.setMinimumHeight(m.layer_plot_min_h))
        item = plain_plot_item(self.plot, "layer", "score")
        # No plot title: a long one sets the plot's minimum width and gets clipped in a narrow panel.
        self.legend = item.addLegend(offset=(10, 5))  # top left, above 1.0 (the y range leaves room)
        self.accuracy_curve = item.plot([], [], symbol="o", symbolPen=None, name="1-NN sense accuracy (leave-one-out)")
        self.silhouette_curve = item.plot([], [], symbol="s", symbolPen=None, name="silhouette (cosine)")
        self._style_plot()
        theme.follow(self, self._style_plot)
        column(self, row(QLabel("Word"), (self.word_combo, 1), self.compute_button), self.summary,
               (self.plot, 1), margins="panel_margins", spacing=None)

    def _style_plot(self) -> None:
        c, m = theme.current().colours, theme.current().metrics
        self.plot.setBackground(c.base_bg)
        self.legend.setLabelTextColor(c.plot_legend_ink)
        self.legend.setBrush(pg.mkBrush(*c.plot_legend_bg))
        for curve, colour, size in ((self.accuracy_curve, c.accuracy_curve, m.plot_symbol),
                                    (self.silhouette_curve, c.silhouette_curve, m.plot_small_symbol)):
            curve.setPen(pg.mkPen(colour, width=m.plot_line_width))
            curve.setSymbolBrush(colour)
            curve.setSymbolSize(size)

    def set_words(self, words: Sequence[str]) -> None:
        """Words with at least two sense labels among their occurrences."""
        current = self.word_combo.currentData()
        self.word_combo.clear()
        if len(words) > 1:
            self.word_combo.addItem(ALL_WORDS, None)
        for word in words:
            self.word_combo.addItem(word, word)
        index = self.word_combo.findData(current)
        self.word_combo.setCurrentIndex(max(0, index))
        self.compute_button.setEnabled(bool(words))

    def word(self) -> str | None:
        return self.word_combo.currentData()

    def clear(self, message: str) -> None:
        self.scores = []
        self.accuracy_curve.setData([], [])
        self.silhouette_curve.setData([], [])
        self.summary.setText(message)

    def set_scores(self, scores: Sequence[Any], what: str) -> None:
        """Plot ``LayerScore``s (layer, accuracy, silhouette) for ``what`` (e.g. "bank, 22 occurrences")."""
        self.scores = sorted(scores, key=lambda s: layer_position(s.layer))
        x = np.array([layer_position(s.layer) for s in self.scores], dtype=float)
        acc = np.array([s.accuracy for s in self.scores], dtype=float)
        sil = np.array([s.silhouette for s in self.scores], dtype=float)
        self.accuracy_curve.setData(x, acc)
        self.silhouette_curve.setData(x, sil)
        ticks = [(layer_position(s.layer), "static" if s.layer == "static" else str(s.layer)) for s in self.scores]
        self.plot.getPlotItem().getAxis("bottom").setTicks([ticks])
        low = float(np.nanmin(np.concatenate([acc, sil, [0.0]])))
        self.plot.setYRange(min(0.0, low) - 0.05, 1.22, padding=0)
        self.plot.setXRange(x.min() - 0.8, x.max() + 0.4, padding=0)  # room for the "static" label
        best = self.scores[int(np.nanargmax(acc))] if len(acc) and np.isfinite(acc).any() else None
        static = next((s for s in self.scores if s.layer == "static"), None)
        text = f"{what}."
        if best is not None:
            text += f" Best accuracy {best.accuracy:.1%} at layer {best.layer}"
            if static is not None:
                text += (f"; static baseline {static.accuracy:.1%}" if np.isfinite(static.accuracy)
                         else "; the static baseline is undefined")
            text += "."
        elif self.scores:  # every layer's accuracy undefined: said, never a nan% or an empty curve unexplained
            text += (" No accuracy can be computed: no occurrence has another occurrence of a sense to be compared "
                     "with (the sweep needs at least two occurrences of a sense, in different sentences).")
        if self.scores and not np.isfinite(sil).any():
            text += " The silhouette is undefined: it needs at least two senses and more occurrences than senses."
        self.summary.setText(text)

    def table(self) -> tuple[list[str], list[list[Any]]]:
        """The plotted scores as rows; an undefined value (nan) is None, an empty cell in CSV."""
        def defined(value: float) -> float | None:
            return float(value) if np.isfinite(value) else None

        return ["layer", "accuracy", "silhouette"], [[s.layer, defined(s.accuracy), defined(s.silhouette)]
                                                     for s in self.scores]
