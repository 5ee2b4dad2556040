"""The Features tab's contrastive-pairs form: the site to steer at (the loaded model's per-block hook points), the
pairs typed (lines ``positive<TAB>negative``, the CLI's ``--pairs`` line format) or named as a file (lines or
JSON, read by the engine's reader), and the layer grid's concept words. The form only edits; the view writes its
values into ``lm_workbench.sae.state.FeaturesState`` (``set_pairs``) whenever one changes (``changed``)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QWidget

from lm_workbench.ui.widgets.boxes import form_rows, row
from lm_workbench.ui.widgets.controls import combo_box, line_edit

DIRECTIONS = (("SAE feature", "feature"), ("Contrastive pairs", "pairs"))  # (shown, FeaturesState.direction)
TYPED_LINES = 3  # the typed-pairs box's height, in lines: two pairs and room for a third


class PairsForm(QWidget):
    """Site, typed pairs, pairs file and concept words; ``changed`` on any edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.site_combo = combo_box(tip="The hook point the pairs' direction is computed and added at (the layer "
                                        "grid: the same point of every block)")
        self.site_combo.setMinimumContentsLength(24)
        self.file_edit = line_edit("or a pairs file: lines positive<TAB>negative, or JSON "
                                   "{\"positive\": [...], \"negative\": [...]}")
        self.pairs_edit = QPlainTextEdit()
        self.pairs_edit.setPlaceholderText("one pair a line: positive<TAB>negative (Tab types a tab here)\n"
                                           "I love this film\tI hate this film")
        self.pairs_edit.setTabChangesFocus(False)
        self._fit_height()
        self.concept_edit = line_edit("layer grid: concept words, comma-separated (empty: the three tokens the "
                                      "direction promotes most)")
        top = row(self.site_combo, QLabel("Pairs file"), (self.file_edit, 1))
        form_rows(("Site", top), ("Pairs", self.pairs_edit), ("Concept", self.concept_edit), owner=self)
        self.site_combo.currentTextChanged.connect(self.changed)
        self.file_edit.textChanged.connect(self.changed)
        self.pairs_edit.textChanged.connect(self.changed)
        self.concept_edit.textChanged.connect(self.changed)

    def _fit_height(self) -> None:
        """``TYPED_LINES`` lines of the current font tall (the view's type follows the theme's size)."""
        margins = self.pairs_edit.contentsMargins()
        frame = 2 * self.pairs_edit.frameWidth() + margins.top() + margins.bottom()
        lines = QFontMetrics(self.pairs_edit.font()).lineSpacing() * TYPED_LINES
        self.pairs_edit.setFixedHeight(lines + frame + 2 * int(self.pairs_edit.document().documentMargin()))

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            self._fit_height()

    def set_sites(self, sites: list[str], current: str) -> None:
        """The loaded model's sites, ``current`` chosen (no ``changed`` while filling)."""
        self.site_combo.blockSignals(True)
        self.site_combo.clear()
        self.site_combo.addItems(sites)
        self.site_combo.setCurrentText(current)
        self.site_combo.blockSignals(False)

    def set_values(self, text: str | None = None, file: str | None = None, site: str | None = None,
                   concept: str | None = None) -> None:
        """Fill the form as a user would (each set emits ``changed``)."""
        if text is not None:
            self.pairs_edit.setPlainText(text)
        if file is not None:
            self.file_edit.setText(file)
        if site is not None:
            self.site_combo.setCurrentText(site)
        if concept is not None:
            self.concept_edit.setText(concept)

    def values(self) -> dict[str, str]:
        """``{text, file, site, concept}`` as ``FeaturesState.set_pairs`` takes them."""
        return {"text": self.pairs_edit.toPlainText(), "file": self.file_edit.text().strip(),
                "site": self.site_combo.currentText(), "concept": self.concept_edit.text()}
