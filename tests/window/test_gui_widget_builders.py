"""The one-call control and box builders (``ui/widgets/controls.py``, ``ui/widgets/boxes.py``) give the widget
each call describes: range before value (no clamping to Qt's 0-99), items with their data, the slot wired, the
theme's margins and spacing bound by name and followed on a theme change."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.theme_tokens import presentation_tokens
from lm_workbench.ui.widgets import boxes, controls


def test_spin_boxes_take_range_before_value(qapp):
    spin = controls.spin_box(1, 100_000, 5000, tip="t", prefix="layer ", step=10)
    assert (spin.minimum(), spin.maximum(), spin.value(), spin.singleStep()) == (1, 100_000, 5000, 10)
    assert spin.prefix() == "layer " and spin.toolTip() == "t"
    fine = controls.double_spin_box(0.0, 1e-2, 3e-4, decimals=5)
    assert fine.decimals() == 5 and abs(fine.value() - 3e-4) < 1e-9


def test_button_combo_edit_label_progress(qapp):
    seen = []
    push = controls.button("Go", tip="go", clicked=lambda *_: seen.append(1), enabled=False, default=True)
    assert not push.isEnabled() and push.isDefault() and push.toolTip() == "go"
    push.setEnabled(True)
    push.click()
    assert seen == [1]
    combo = controls.combo_box(["plain", ("Shown", "data")], tip="c")
    assert [combo.itemText(i) for i in range(2)] == ["plain", "Shown"] and combo.itemData(1) == "data"
    edit = controls.line_edit("hint", text="x")
    assert (edit.placeholderText(), edit.text()) == ("hint", "x")
    note = controls.label("n", name="summary", wrap=True)
    assert note.objectName() == "summary" and note.wordWrap()
    bar = controls.progress_bar(text_visible=False)
    assert (bar.minimum(), bar.maximum(), bar.value(), bar.isTextVisible()) == (0, 1, 0, False)


def test_column_and_row_lay_out_items_with_theme_sizes(qapp, restore_style):
    owner = QWidget()
    a, b = QLabel("a"), QPushButton("b")
    inner = boxes.row(b, 1)
    layout = boxes.column(owner, a, (inner, 2), 3)
    assert owner.layout() is layout and layout.count() == 3
    assert layout.itemAt(0).widget() is a and layout.itemAt(1).layout() is inner and layout.stretch(1) == 2
    assert layout.itemAt(2).spacerItem() is not None and layout.stretch(2) == 3
    metrics = theme.current().metrics
    assert layout.contentsMargins().left() == metrics.view_margins[0]
    assert layout.spacing() == metrics.section_spacing
    assert inner.contentsMargins().left() == 0
    theme.set_tokens(presentation_tokens(14.0))  # F5: larger sizes
    assert layout.spacing() == theme.current().metrics.section_spacing != metrics.section_spacing
    assert layout.contentsMargins().left() == theme.current().metrics.view_margins[0]
    try:
        boxes.column(None, "not a widget")
    except TypeError as exc:
        assert "not a widget" in str(exc)
    else:
        raise AssertionError("a string is no item")


def test_tool_buttons_flush_column_and_form_rows(qapp):
    from PySide6.QtWidgets import QMenu, QToolButton

    seen = []
    flat = controls.tool_button("Close", tip="close it", clicked=lambda *_: seen.append(1))
    flat.click()
    assert seen == [1] and flat.text() == "Close" and flat.toolTip() == "close it"
    owner = QWidget()
    menu = QMenu(owner)
    export = controls.menu_button("Export", menu)
    assert export.menu() is menu and export.popupMode() is QToolButton.ToolButtonPopupMode.InstantPopup
    inner = QWidget()
    layout = boxes.flush_column(inner, QLabel("x"))
    margins = layout.contentsMargins()
    assert (margins.left(), margins.top(), margins.right(), margins.bottom()) == (0, 0, 0, 0)
    edit = controls.line_edit("p")
    form = boxes.form_rows(("Name", edit))
    assert form.rowCount() == 1 and form.itemAt(0, form.ItemRole.FieldRole).widget() is edit
    assert form.contentsMargins().left() == 0


def test_a_gap_follows_the_theme_and_is_not_added_again(qapp, restore_style):
    a, b = QLabel("a"), QLabel("b")
    layout = boxes.row(a, boxes.Gap("wide_spacing"), b)
    assert layout.count() == 3
    gap = layout.itemAt(1).spacerItem()
    assert gap.sizeHint().width() == theme.current().metrics.wide_spacing
    theme.set_tokens(presentation_tokens(14.0))  # F5: larger sizes, and the binding runs again
    assert layout.count() == 3 and layout.itemAt(1).spacerItem() is gap
    assert gap.sizeHint().width() == theme.current().metrics.wide_spacing
    holder = QWidget()
    column = boxes.column(holder, QLabel("c"), boxes.Gap("wide_spacing"))
    assert column.itemAt(1).spacerItem().sizeHint().height() == theme.current().metrics.wide_spacing
