"""Which vector stands for each occurrence: static, a layer, a layer mean or a scalar mix.

The picker writes its choice as a layer spec string
(``N | static | mean:A-B | mix:s0,...,sL:gamma``, parsed by
``lm_workbench.engine.embeddings.representation.parse_layer_spec``), so the map, the
neighbours and the CLI all read one format. The scalar mix has one slider
per hidden-state layer for the pre-softmax scalar s_j, shows the weight
softmax(s)_j each slider gives its layer, a gamma slider, and the formula
with the current numbers, so a student sees the weights always sum to one.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QGridLayout, QLabel, QProgressBar, QSizePolicy, QSlider, QSpinBox, QStackedWidget, QWidget,
)

from lm_workbench.engine.embeddings.names import WORD_POOLINGS
from lm_workbench.ui import theme
from lm_workbench.ui.widgets import controls
from lm_workbench.ui.widgets.boxes import flush_column, form_rows, row

KINDS = (("layer", "Layer N"), ("static", "Static"), ("mean", "Mean of layers"), ("mix", "Scalar mix (ELMo)"))
POOLING_TEXT = {"mean": "mean of subwords", "first": "first subword", "last": "last subword"}
S_STEPS = 10  # slider units per 1.0 of s
S_RANGE = 4.0  # s_j in [-4, 4]
GAMMA_STEPS = 20
GAMMA_MAX = 3.0
FORMULA = "γ · Σ<sub>j</sub> softmax(s)<sub>j</sub> h<sub>j</sub>"


def softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - np.max(s))
    return e / e.sum()


class MixSliders(QWidget):
    """One slider per layer for s_j (with softmax(s)_j beside it) and a gamma slider."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.sliders: list[QSlider] = []
        self.weight_bars: list[QProgressBar] = []
        self.weight_labels: list[QLabel] = []
        self.grid = QGridLayout()
        self.grid.setContentsMargins(0, 0, 0, 0)
        theme.bind(self, lambda w, m: w.grid.setHorizontalSpacing(m.section_spacing))
        theme.bind(self, lambda w, m: w.grid.setVerticalSpacing(m.tight_spacing))
        self.gamma_slider = QSlider(Qt.Orientation.Horizontal)
        self.gamma_slider.setRange(0, int(GAMMA_MAX * GAMMA_STEPS))
        self.gamma_slider.setValue(GAMMA_STEPS)
        self.gamma_slider.setToolTip("gamma scales the mixed vector (cosine similarity ignores it; lengths do not)")
        self.gamma_label = QLabel("γ = 1.00")
        self.formula = controls.label(name="summary", wrap=True)
        self.formula.setTextFormat(Qt.TextFormat.RichText)
        flush_column(self, self.grid, row(QLabel("γ"), (self.gamma_slider, 1), self.gamma_label), self.formula,
                     spacing="row_spacing")
        self.gamma_slider.valueChanged.connect(self._moved)
        self.set_layers(6)

    def set_layers(self, num_layers: int) -> None:
        """Sliders for hidden states 0..num_layers (all at s = 0: equal weights)."""
        if len(self.sliders) == num_layers + 1:
            return
        while self.grid.count():
            widget = self.grid.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        self.sliders, self.weight_bars, self.weight_labels = [], [], []
        for j in range(num_layers + 1):
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setRange(int(-S_RANGE * S_STEPS), int(S_RANGE * S_STEPS))
            slider.setValue(0)
            slider.setToolTip(f"s{j}: the pre-softmax scalar of layer {j}")
            bar = QProgressBar()
            bar.setRange(0, 1000)
            bar.setTextVisible(False)
            theme.bind(bar, lambda w, m: w.setFixedWidth(m.weight_bar_w))
            theme.bind(bar, lambda w, m: w.setFixedHeight(m.weight_bar_h))
            label = QLabel("")
            theme.bind(label, lambda w, m: w.setMinimumWidth(m.weight_label_w))
            label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.grid.addWidget(QLabel(f"h{j}"), j, 0)
            self.grid.addWidget(slider, j, 1)
            self.grid.addWidget(bar, j, 2)
            self.grid.addWidget(label, j, 3)
            slider.valueChanged.connect(self._moved)
            self.sliders.append(slider)
            self.weight_bars.append(bar)
            self.weight_labels.append(label)
        self._refresh()

    def scalars(self) -> np.ndarray:
        """The pre-softmax scalars s_j [L+1]."""
        return np.array([s.value() / S_STEPS for s in self.sliders], dtype=np.float64)

    def gamma(self) -> float:
        return self.gamma_slider.value() / GAMMA_STEPS

    def weights(self) -> np.ndarray:
        """softmax(s) [L+1], as shown beside the sliders."""
        return softmax(self.scalars())

    def spec_text(self) -> str:
        return "mix:" + ",".join(f"{v:g}" for v in self.scalars()) + f":{self.gamma():g}"

    def _moved(self, *_args) -> None:
        self._refresh()
        self.changed.emit()

    def _refresh(self) -> None:
        w = self.weights()
        for bar, label, wj in zip(self.weight_bars, self.weight_labels, w):
            bar.setValue(int(round(wj * 1000)))
            label.setText(f"{wj:.3f}")
        self.gamma_label.setText(f"γ = {self.gamma():.2f}")
        terms = " + ".join(f"{wj:.2f}·h<sub>{j}</sub>" for j, wj in enumerate(w))
        self.formula.setText(f"{FORMULA}<br>= {self.gamma():.2f} · ({terms})")

    def formula_text(self) -> str:
        """The formula label as plain text (what the user reads)."""
        from PySide6.QtGui import QTextDocument

        doc = QTextDocument()
        doc.setHtml(self.formula.text())
        return doc.toPlainText()


class RepresentationPicker(QWidget):
    """Representation kind, its layer(s) or mix, subword pooling and the word filter."""

    changed = Signal()  # representation changed: recompute vectors from the table (no model run)
    extraction_changed = Signal()  # pooling or words changed: the model must run again

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.num_layers = 6
        self.kind_combo = controls.combo_box([(text, kind) for kind, text in KINDS], tip="Which vector stands for "
                                             "each occurrence (the map and the neighbours use it)")
        self.layer_spin = QSpinBox()
        self.layer_spin.setToolTip("0 is the embedding layer's output (positions and LayerNorm added): not static")
        self.start_spin, self.end_spin = QSpinBox(), QSpinBox()
        self.mix = MixSliders()
        self.stack = QStackedWidget()
        layer_page = QWidget()
        row(self.layer_spin, owner=layer_page)
        static_page = controls.label("The word's rows of the input embedding matrix, pooled over its subwords: "
                                     "one vector per word type, whatever the context.", name="summary", wrap=True)
        mean_page = QWidget()
        row(QLabel("from"), self.start_spin, QLabel("to"), self.end_spin, owner=mean_page)
        for page in (layer_page, static_page, mean_page, self.mix):
            self.stack.addWidget(page)
        self.pooling_combo = controls.combo_box([(POOLING_TEXT[how], how) for how in WORD_POOLINGS],
                                                tip="How a word split into several subwords gets one vector")
        self.words_edit = controls.line_edit("every word (or: bank, play, bass)", tip="Embed only these words "
                                             "(comma or space separated, case-insensitive); empty: every word")
        form = form_rows(("Words", self.words_edit), ("Pooling", self.pooling_combo), ("Vector", self.kind_combo),
                         owner=self)
        form.addRow(self.stack)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(250)
        self._debounce.timeout.connect(self.changed)
        self.kind_combo.currentIndexChanged.connect(self._kind_changed)
        for spin in (self.layer_spin, self.start_spin, self.end_spin):
            spin.valueChanged.connect(self._spin_changed)
        self.mix.changed.connect(self._debounce.start)  # sliders move in small steps: wait for a pause
        self.pooling_combo.currentIndexChanged.connect(lambda _: self.extraction_changed.emit())
        self.words_edit.editingFinished.connect(self._words_edited)
        self._last_words = ""
        self.set_num_layers(6)
        self._show_page(0)

    def set_num_layers(self, num_layers: int) -> None:
        """Adapt the ranges to a model with ``num_layers`` layers (hidden states 0..num_layers)."""
        self.num_layers = num_layers
        for spin in (self.layer_spin, self.start_spin, self.end_spin):
            spin.blockSignals(True)
            spin.setRange(0, num_layers)
            spin.blockSignals(False)
        self.layer_spin.setValue(num_layers)
        self.end_spin.setValue(num_layers)
        self.start_spin.setValue(min(self.start_spin.value(), num_layers))
        self.mix.set_layers(num_layers)

    def kind(self) -> str:
        return self.kind_combo.currentData()

    def set_kind(self, kind: str) -> None:
        self.kind_combo.setCurrentIndex(self.kind_combo.findData(kind))

    def spec_text(self) -> str:
        """The choice as a layer spec (``N | static | mean:A-B | mix:s0,...,sL:gamma``)."""
        kind = self.kind()
        if kind == "static":
            return "static"
        if kind == "mean":
            a, b = sorted((self.start_spin.value(), self.end_spin.value()))
            return f"mean:{a}-{b}"
        if kind == "mix":
            return self.mix.spec_text()
        return str(self.layer_spin.value())

    def pooling(self) -> str:
        return self.pooling_combo.currentData()

    def words(self) -> list[str] | None:
        """The word filter (None: every word)."""
        parts = [w for w in self.words_edit.text().replace(",", " ").split() if w.strip()]
        return parts or None

    def _kind_changed(self, _index: int) -> None:
        self._show_page(self.kind_combo.currentIndex())
        self.changed.emit()

    def _show_page(self, index: int) -> None:
        """Show one page; hidden pages take no room (the mix page is tall, the others one line)."""
        for i in range(self.stack.count()):
            policy = QSizePolicy.Policy.Preferred if i == index else QSizePolicy.Policy.Ignored
            self.stack.widget(i).setSizePolicy(policy, policy)
        self.stack.setCurrentIndex(index)
        self.stack.adjustSize()

    def _spin_changed(self, _value: int) -> None:
        self.changed.emit()

    def _words_edited(self) -> None:
        text = self.words_edit.text().strip()
        if text != self._last_words:
            self._last_words = text
            self.extraction_changed.emit()
