"""The answer controls of a Guide exercise: cells to click (layers, heads, tokens), options, or a typed answer.

``AnswerBox.setup(kind, ...)`` builds the controls for one exercise; every control ends in ``answered(text)``,
the answer as ``lm-workbench guide check --answer`` takes it ("3", "1.2", a token position, an option's label,
a number or a token's text).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QPushButton, QSizePolicy, QWidget

from lm_workbench.ui.widgets import boxes, controls
from lm_workbench.ui.widgets.boxes import flush_column

PER_ROW = 4  # layer and token buttons per row (the panel is narrow: a third of a 1024-wide window)
MAX_HEAD_GRID = 24  # layers or heads beyond this: type the head instead of clicking


class AnswerBox(QWidget):
    answered = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._grid_host = QWidget()
        self._grid = QGridLayout(self._grid_host)
        self._grid.setContentsMargins(0, 0, 0, 0)
        boxes.themed(self._grid, spacing="tight_spacing")
        self.edit = controls.line_edit()
        self.edit.setObjectName("guideAnswer")
        self.check_button = controls.button("Check", clicked=self._submit)
        self.check_button.setObjectName("guideCheck")
        self._typed = QWidget()
        boxes.row((self.edit, 1), self.check_button, owner=self._typed)
        self._column = flush_column(self, self._grid_host, self._typed)
        self.edit.returnPressed.connect(self._submit)
        self.buttons: list[QPushButton] = []

    def _submit(self) -> None:
        text = self.edit.text().strip()
        if text:
            self.answered.emit(text)

    def _clear(self) -> None:
        for button in self.buttons:
            self._grid.removeWidget(button)
            button.deleteLater()
        self.buttons = []

    def _button(self, label: str, answer: str, row: int, column: int, tip: str = "") -> None:
        button = controls.button(label, tip=tip or label,
                                 clicked=lambda _checked=False, a=answer: self.answered.emit(a))
        button.setObjectName(f"guideCell:{answer}")
        button.setMinimumWidth(0)  # a long token is cut rather than widening the panel (its tooltip has it whole)
        button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._grid.addWidget(button, row, column)
        self.buttons.append(button)

    def setup(self, kind: str, *, layers: int = 0, heads: int = 0, tokens: tuple[str, ...] = (),
              options: tuple[str, ...] = (), placeholder: str = "") -> None:
        """Controls for an exercise of ``kind``; ``layers``/``heads``/``tokens``: the cells to click among (from
        the loaded model), ``options``: a choose exercise's labels."""
        self._clear()
        self.edit.clear()
        typed = kind in ("number", "token")
        if kind == "click-layer":
            for layer in range(layers):
                self._button(str(layer), str(layer), layer // PER_ROW, layer % PER_ROW, f"layer {layer}")
        elif kind == "click-head":
            if layers <= MAX_HEAD_GRID and heads <= MAX_HEAD_GRID:
                for layer in range(layers):
                    for head in range(heads):
                        self._button(f"{layer}.{head}", f"{layer}.{head}", layer, head, f"layer {layer}, head {head}")
            else:
                typed = True
        elif kind == "click-token":
            for i, token in enumerate(tokens):
                self._button(token, str(i), i // PER_ROW, i % PER_ROW, f"position {i}: {token!r}")
        elif kind == "choose":
            for i, label in enumerate(options):
                self._button(label, label, i, 0)
        self.set_enabled(True)  # a new exercise (or model) may be answered again
        self._grid_host.setVisible(bool(self.buttons))
        self._typed.setVisible(typed or not self.buttons)
        self.edit.setPlaceholderText(placeholder or {"number": "a number", "token": "a token",
                                                     "click-head": "layer.head, e.g. 1.2"}.get(kind, "your answer"))

    def set_enabled(self, on: bool) -> None:
        for widget in [*self.buttons, self.edit, self.check_button]:
            widget.setEnabled(on)
