"""Reading and writing the editors that forms build from ``ConfigField``s.

The masking lab's objective settings and the Pre-train tab's training
settings build their editors with different policies (the lab lets a value
step past a bound so the config check can explain it; the training form has
"auto" for optional numbers), but an editor's value is read and written the
same way in both: here.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox, QWidget

from lm_workbench.pretrain.for_views import ConfigField


def editor_value(editor: QWidget, spec: ConfigField) -> Any:
    """The value ``editor`` shows, typed for ``spec``; None for an optional number left at "auto" (its minimum)."""
    if isinstance(editor, QComboBox):
        return editor.currentData()
    if isinstance(editor, QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QSpinBox):
        value = int(editor.value())
        return None if (spec.default is None and value == editor.minimum()) else value
    if isinstance(editor, QDoubleSpinBox):
        return round(float(editor.value()), editor.decimals())
    if isinstance(editor, QLineEdit):
        return editor.text()
    raise TypeError(f"no value for an editor of type {type(editor).__name__}")


def set_editor_value(editor: QWidget, value: Any) -> None:
    """Show ``value`` in ``editor`` without emitting its change signals (None: "auto", a spin box's minimum)."""
    editor.blockSignals(True)
    try:
        if isinstance(editor, QComboBox):
            editor.setCurrentIndex(editor.findData(value))
        elif isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QSpinBox):
            editor.setValue(editor.minimum() if value is None else int(value))
        elif isinstance(editor, QDoubleSpinBox):
            editor.setValue(float(value))
        elif isinstance(editor, QLineEdit):
            editor.setText(str(value))
        else:
            raise TypeError(f"cannot set an editor of type {type(editor).__name__}")
    finally:
        editor.blockSignals(False)
