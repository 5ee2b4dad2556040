"""The "Output position" row of the views that read an encoder-decoder's output token (Patching, Heads): which
output token of the decoder is explained (0: the first), after the model's own greedy output before it, as
``--output-position`` does on the command line. Shown for encoder-decoders only."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QWidget

from lm_workbench.engine.attribution.names import MAX_OUTPUT_POSITION
from lm_workbench.ui.widgets.boxes import row
from lm_workbench.ui.widgets.controls import spin_box

LABEL = "Output position"


class OutputPositionRow(QWidget):
    """A spin box at its own width (not the form's); ``spin`` is what the view reads and connects."""

    def __init__(self, tooltip: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.spin = spin_box(0, MAX_OUTPUT_POSITION, 0, tip=tooltip)
        row(self.spin, 1, owner=self)

    def add_to(self, form: QFormLayout) -> None:
        """A hidden row of ``form`` (``show_for`` shows it)."""
        form.addRow(LABEL, self)
        form.setRowVisible(self, False)

    def show_for(self, form: QFormLayout, encoder_decoder: bool) -> None:
        """Shown for an encoder-decoder; for another model hidden and back to 0 (without a change signal)."""
        form.setRowVisible(self, encoder_decoder)
        if not encoder_decoder and self.spin.value():
            self.spin.blockSignals(True)
            self.spin.setValue(0)
            self.spin.blockSignals(False)

    def set_quietly(self, value: int) -> None:
        """Set the position without a change signal (a whole form filled at once)."""
        self.spin.blockSignals(True)
        self.spin.setValue(int(value))
        self.spin.blockSignals(False)
