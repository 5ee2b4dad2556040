"""A form for a list of ``ConfigField``s (the training loop's settings), help texts as tooltips.

Like the masking lab's objective form, one editor per field: a combo box for
choices, a spin box bounded by the field's min and max, a check box for a
bool. A field whose default is None (``threads``) gets a spin box whose
lowest value reads "auto" and stands for None. The fields named in
``primary`` show at once; the rest sit behind a "More settings" toggle so
the form stays short.
"""

from __future__ import annotations

from typing import Any, Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QFormLayout, QToolButton, QWidget

from lm_workbench.pretrain.for_views import ConfigField
from lm_workbench.ui.widgets.config_editors import editor_value, set_editor_value
from lm_workbench.ui.widgets.controls import combo_box, double_spin_box, label, spin_box
from lm_workbench.ui.widgets.boxes import flush_column

BIG = 1_000_000_000
AUTO = "auto"


def _float_decimals(value: float) -> int:
    """Enough decimals to show a learning rate such as 5e-4 exactly."""
    return 6 if 0 < abs(value) < 0.01 else 4


class FieldForm(QWidget):
    """Editors for ``fields``; ``values()`` returns them as a dict (None for an "auto" optional)."""

    changed = Signal()

    def __init__(self, fields: Iterable[ConfigField], primary: Iterable[str] = (), parent: QWidget | None = None):
        super().__init__(parent)
        self.fields = list(fields)
        self.editors: dict[str, QWidget] = {}
        primary = set(primary)
        main, more = QFormLayout(), QFormLayout()
        for form in (main, more):
            form.setContentsMargins(0, 0, 0, 0)
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for spec in self.fields:
            editor = self._editor(spec)
            editor.setObjectName(f"train_{spec.name}")
            editor.setToolTip(spec.help)
            self.editors[spec.name] = editor
            (main if spec.name in primary or not primary else more).addRow(
                label(spec.name.replace("_", " "), tip=spec.help), editor)
        self.more_box = QWidget()
        self.more_box.setLayout(more)
        self.more_box.setVisible(False)
        self.more_button = QToolButton()
        self.more_button.setText("More settings")
        self.more_button.setCheckable(True)
        self.more_button.setArrowType(self._arrow(False))
        self.more_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.more_button.setAutoRaise(True)
        self.more_button.toggled.connect(self._toggle_more)
        layout = flush_column(self, main, spacing="row_spacing")
        if more.rowCount():
            layout.addWidget(self.more_button)
            layout.addWidget(self.more_box)

    @staticmethod
    def _arrow(open_: bool) -> Qt.ArrowType:
        return Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow

    def _toggle_more(self, on: bool) -> None:
        self.more_box.setVisible(on)
        self.more_button.setArrowType(self._arrow(on))

    def _editor(self, spec: ConfigField) -> QWidget:
        if spec.choices is not None:
            box = combo_box([(str(choice), choice) for choice in spec.choices])
            box.setCurrentIndex(max(0, box.findData(spec.default)))
            box.currentIndexChanged.connect(lambda *_: self.changed.emit())
            return box
        if spec.kind == "bool":
            check = QCheckBox()
            check.setChecked(bool(spec.default))
            check.toggled.connect(lambda *_: self.changed.emit())
            return check
        if spec.kind == "int":
            lo = int(spec.min) if spec.min is not None else -BIG
            hi = int(spec.max) if spec.max is not None else BIG
            if spec.default is None:  # optional: one below the minimum means "auto" (None)
                lo -= 1
            spin = spin_box(lo, hi, lo if spec.default is None else int(spec.default))
            if spec.default is None:
                spin.setSpecialValueText(AUTO)
            spin.valueChanged.connect(lambda *_: self.changed.emit())
            return spin
        if spec.kind == "float":
            spin = double_spin_box(float(spec.min) if spec.min is not None else -float(BIG),
                                   float(spec.max) if spec.max is not None else float(BIG), float(spec.default),
                                   decimals=_float_decimals(float(spec.default)),
                                   step=float(spec.default) / 5 if 0 < spec.default < 0.01 else 0.1)
            spin.valueChanged.connect(lambda *_: self.changed.emit())
            return spin
        raise TypeError(f"no editor for field {spec.name!r} of kind {spec.kind!r}")

    # ---------------------------------------------------------------- values
    def values(self) -> dict[str, Any]:
        return {spec.name: editor_value(self.editors[spec.name], spec) for spec in self.fields}

    def changed_values(self) -> dict[str, Any]:
        """Only the values that differ from the fields' defaults (what a run needs to record)."""
        defaults = {spec.name: spec.default for spec in self.fields}
        return {k: v for k, v in self.values().items() if v != defaults[k]}

    def set_values(self, values: dict[str, Any]) -> None:
        """Put values into the editors (None: "auto"); one ``changed`` at the end."""
        for name, value in values.items():
            set_editor_value(self.editors[name], value)
        self.changed.emit()
