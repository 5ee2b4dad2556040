"""How the vectors become a 2-D map: PCA, UMAP or t-SNE, their main parameters and a seed.

PCA is immediate, so the map follows every change at once; UMAP and t-SNE
take seconds to minutes, so they run when the user presses "Compute map"
(off the Qt thread, with progress and Cancel in the tab's job strip). The
parameters are the ones that change the picture most: UMAP's n_neighbors
(local vs global structure) and min_dist (how tightly points pack), t-SNE's
perplexity (the effective number of neighbours).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox, QDoubleSpinBox, QFormLayout, QLabel, QPushButton, QSpinBox, QStackedWidget, QWidget,
)

from lm_workbench.engine.embeddings.names import PROJECTION_METHODS

METHOD_TEXT = {"pca": "PCA (immediate)", "umap": "UMAP", "tsne": "t-SNE"}


class MethodControls(QWidget):
    changed = Signal()  # method, a parameter or the seed changed
    compute_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.method_combo = QComboBox()
        for method in PROJECTION_METHODS:
            self.method_combo.addItem(METHOD_TEXT[method], method)
        self.neighbours_spin = QSpinBox()
        self.neighbours_spin.setRange(2, 200)
        self.neighbours_spin.setValue(15)
        self.neighbours_spin.setToolTip("UMAP n_neighbors: small values keep local structure, large ones global")
        self.min_dist_spin = QDoubleSpinBox()
        self.min_dist_spin.setRange(0.0, 0.99)
        self.min_dist_spin.setSingleStep(0.05)
        self.min_dist_spin.setValue(0.1)
        self.min_dist_spin.setToolTip("UMAP min_dist: how tightly points may pack together")
        self.perplexity_spin = QDoubleSpinBox()
        self.perplexity_spin.setRange(2.0, 200.0)
        self.perplexity_spin.setValue(30.0)
        self.perplexity_spin.setToolTip("t-SNE perplexity: roughly the number of neighbours each point keeps")
        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setToolTip("The same seed and parameters give the same map")
        self.compute_button = QPushButton("Compute map")
        self.compute_button.setToolTip("Run UMAP or t-SNE (off the window's thread; Cancel stops it)")

        self.params = QStackedWidget()
        pca_page = QLabel("Linear: the two directions of largest variance.")
        pca_page.setObjectName("summary")
        pca_page.setWordWrap(True)
        umap_page = QWidget()
        umap_form = QFormLayout(umap_page)
        umap_form.setContentsMargins(0, 0, 0, 0)
        umap_form.addRow("n_neighbors", self.neighbours_spin)
        umap_form.addRow("min_dist", self.min_dist_spin)
        tsne_page = QWidget()
        tsne_form = QFormLayout(tsne_page)
        tsne_form.setContentsMargins(0, 0, 0, 0)
        tsne_form.addRow("perplexity", self.perplexity_spin)
        for page in (pca_page, umap_page, tsne_page):
            self.params.addWidget(page)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Method", self.method_combo)
        form.addRow(self.params)
        form.addRow("Seed", self.seed_spin)
        form.addRow(self.compute_button)

        self.method_combo.currentIndexChanged.connect(self._method_changed)
        for spin in (self.neighbours_spin, self.min_dist_spin, self.perplexity_spin, self.seed_spin):
            spin.valueChanged.connect(lambda _v: self.changed.emit())
        self.compute_button.clicked.connect(self.compute_requested)
        self._method_changed(0)

    def method(self) -> str:
        return self.method_combo.currentData()

    def seed(self) -> int:
        return self.seed_spin.value()

    def parameters(self) -> dict[str, Any]:
        """The parameters ``lm_workbench.engine.embeddings.projection.project`` takes for the method."""
        method = self.method()
        if method == "umap":
            return {"n_neighbors": self.neighbours_spin.value(), "min_dist": round(self.min_dist_spin.value(), 4)}
        if method == "tsne":
            return {"perplexity": round(self.perplexity_spin.value(), 4)}
        return {}

    def immediate(self) -> bool:
        """True when the map may follow every change (PCA)."""
        return self.method() == "pca"

    def _method_changed(self, index: int) -> None:
        self.params.setCurrentIndex(index)
        self.compute_button.setEnabled(self.method() != "pca")
        self.changed.emit()
