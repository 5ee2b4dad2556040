"""The objective's settings as a form generated from its ``Config`` dataclass (``config_fields``).

One editor per field: a ``QDoubleSpinBox`` or ``QSpinBox`` bounded by the
field's min and max, a ``QCheckBox`` for a bool, a ``QComboBox`` for a field
with choices, a ``QLineEdit`` for free text; each editor's tooltip is the
field's help text. ``config()`` returns the settings or None when
``validate_config`` (or the objective's own ``check_config``) refuses them; the
refusal shows inline under the form.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QFormLayout, QWidget

from lm_workbench.pretrain.for_views import ConfigField, config_fields
from lm_workbench.ui import theme
from lm_workbench.ui.widgets.config_editors import editor_value, set_editor_value
from lm_workbench.ui.widgets.controls import combo_box, double_spin_box, label, line_edit, spin_box
from lm_workbench.ui.widgets.boxes import flush_column

# Spin boxes of fields without a bound still need one; far enough that the config check decides.
WIDE = 1_000_000.0


def _decimals(spec: ConfigField) -> int:
    return 3 if (spec.max is not None and spec.max <= 1.0) else 2


class ConfigForm(QWidget):
    """Editors for the fields of one objective's config; ``changed`` after every edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.objective: Any = None
        self.fields: list[ConfigField] = []
        self.editors: dict[str, QWidget] = {}
        self._form = QFormLayout()
        self._form.setContentsMargins(0, 0, 0, 0)
        self._form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.error_label = label(name="formError", wrap=True)
        self._apply_tokens()
        theme.follow(self, self._apply_tokens)
        self.error_label.hide()
        flush_column(self, self._form, self.error_label, spacing="row_spacing")

    def _apply_tokens(self) -> None:
        t = theme.current()
        padding = t.metrics.form_error_padding
        self.error_label.setStyleSheet(theme.banner_css("QLabel#formError", t.colours.error, padding))

    # ---------------------------------------------------------------- build
    def set_objective(self, objective: Any) -> None:
        """Rebuild the editors for ``objective``'s config, filled with its defaults."""
        while self._form.rowCount():
            self._form.removeRow(0)
        self.objective = objective
        self.editors = {}
        self.fields = config_fields(type(objective.default_config())) if objective is not None else []
        for spec in self.fields:
            editor = self._editor(spec)
            editor.setToolTip(spec.help)
            editor.setObjectName(f"field_{spec.name}")
            self.editors[spec.name] = editor
            self._form.addRow(label(spec.name.replace("_", " "), tip=spec.help), editor)
        self.validate()

    def _editor(self, spec: ConfigField) -> QWidget:
        if spec.choices is not None:
            box = combo_box([(str(choice), choice) for choice in spec.choices])
            box.setCurrentIndex(max(0, list(spec.choices).index(spec.default)) if spec.default in spec.choices else 0)
            box.currentIndexChanged.connect(self._edited)
            return box
        if spec.kind == "bool":
            check = QCheckBox()
            check.setChecked(bool(spec.default))
            check.toggled.connect(self._edited)
            return check
        if spec.kind == "int":
            # One step past each bound, so an out-of-range value can be typed and is explained.
            lo = int(spec.min) - 1 if spec.min is not None else -int(WIDE)
            hi = int(spec.max) + 1 if spec.max is not None else int(WIDE)
            spin = spin_box(lo, hi, int(spec.default))
            spin.valueChanged.connect(self._edited)
            return spin
        if spec.kind == "float":
            decimals = _decimals(spec)
            step = 10 ** -(decimals - 1) if decimals > 2 else 0.1
            lo = float(spec.min) - step if spec.min is not None else -WIDE
            hi = float(spec.max) + step if spec.max is not None else WIDE
            spin = double_spin_box(lo, hi, float(spec.default), decimals=decimals, step=step)
            spin.valueChanged.connect(self._edited)
            return spin
        edit = line_edit(text=str(spec.default))
        edit.editingFinished.connect(self._edited)
        return edit

    # ---------------------------------------------------------------- values
    def values(self) -> dict[str, Any]:
        return {spec.name: editor_value(self.editors[spec.name], spec) for spec in self.fields}

    def set_values(self, values: dict[str, Any]) -> None:
        """Put values into the editors (for tests and restoring); one ``changed`` at the end."""
        for name, value in values.items():
            set_editor_value(self.editors[name], value)
        self._edited()

    def config(self) -> Any:
        """The settings as the objective's Config, or None (with the message shown) when they are refused."""
        if self.objective is None:
            return None
        try:
            config = dataclasses.replace(self.objective.default_config(), **self.values())
            self.objective.check_config(config)
        except Exception as exc:  # WorkbenchError from the checks; TypeError from a plugin's Config
            self.error_label.setText(str(exc))
            self.error_label.show()
            return None
        self.error_label.hide()
        self.error_label.setText("")
        return config

    def error(self) -> str:
        return self.error_label.text() if not self.error_label.isHidden() else ""

    def validate(self) -> bool:
        return self.config() is not None

    def _edited(self, *_: Any) -> None:
        self.validate()
        self.changed.emit()


__all__ = ["ConfigForm"]
