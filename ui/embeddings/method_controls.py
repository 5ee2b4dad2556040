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
from PySide6.QtWidgets import QFormLayout, QStackedWidget, QWidget

from lm_workbench.engine.embeddings.names import PROJECTION_METHODS
from lm_workbench.ui.widgets.controls import button, combo_box, double_spin_box, label, spin_box

METHOD_TEXT = {"pca": "PCA (immediate)", "umap": "UMAP", "tsne": "t-SNE"}


class MethodControls(QWidget):
    changed = Signal()  # method, a parameter or the seed changed
    compute_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.method_combo = combo_box([(METHOD_TEXT[method], method) for method in PROJECTION_METHODS])
        self.neighbours_spin = spin_box(2, 200, 15, tip="UMAP n_neighbors: small values keep local structure, large "
                                        "ones global")
        self.min_dist_spin = double_spin_box(0.0, 0.99, 0.1, step=0.05,
                                             tip="UMAP min_dist: how tightly points may pack together")
        self.perplexity_spin = double_spin_box(2.0, 200.0, 30.0, tip="t-SNE perplexity: roughly the number of "
                                               "neighbours each point keeps")
        self.seed_spin = spin_box(0, 2**31 - 1, 0, tip="The same seed and parameters give the same map")
        self.compute_button = button("Compute map", tip="Run UMAP or t-SNE (off the window's thread; Cancel stops "
                                     "it)", clicked=self.compute_requested)

        self.params = QStackedWidget()
        pca_page = label("Linear: the two directions of largest variance.", name="summary", wrap=True)
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
