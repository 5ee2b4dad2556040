"""The mouse wheel scrolls a form; it changes a setting only in the focused control (issue 49, item 2).

Real wheel events (``QTest.wheelEvent`` goes through Qt's window-system path, as a mouse would, with
propagation from the widget under the pointer) over every spin box, combo box and slider of the
Fine-tune and Pre-train forms at 1024 x 768: the values stay and the form scrolls; with keyboard focus
the wheel changes the value; a plot still zooms.
"""

from __future__ import annotations

import pytest
import torch
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractScrollArea, QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QScrollArea, QScrollBar, QWidget,
)

from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views

pytestmark = pytest.mark.timeout(120)
NOTCH = 120


def value(control: QWidget):
    if isinstance(control, QComboBox):
        return control.currentIndex()
    if isinstance(control, QAbstractSpinBox):
        return control.text()  # (every spin box kind: its shown value)
    return control.value()


def controls(form: QWidget) -> list[QWidget]:
    """The visible, enabled spin boxes, combo boxes and sliders of ``form`` (scroll bars are not settings)."""
    found = []
    for kind in (QAbstractSpinBox, QComboBox, QAbstractSlider):
        found += [w for w in form.findChildren(kind) if not isinstance(w, QScrollBar) and w.isVisibleTo(form)
                  and w.isEnabled()]
    return found


def wheel_over(widget: QWidget, notches: int) -> None:
    """One real wheel event with the pointer at ``widget``'s centre (negative: towards the user = down)."""
    window = widget.window()
    pos = widget.mapTo(window, widget.rect().center())
    QTest.wheelEvent(window.windowHandle(), pos, QPoint(0, notches * NOTCH))


def scroll_areas(widget: QWidget) -> list[QAbstractScrollArea]:
    """The scroll areas around ``widget`` that can move up or down, nearest first."""
    areas, parent = [], widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea) and parent.verticalScrollBar().maximum() > 0:
            areas.append(parent)
        parent = parent.parentWidget()
    return areas


def show(widget: QWidget) -> None:
    """Scroll every scroll area around ``widget`` so that it is in view."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea):
            parent.ensureWidgetVisible(widget)
        parent = parent.parentWidget()


def under_pointer(control: QWidget) -> bool:
    """Whether the widget at ``control``'s centre is ``control`` (or a part of it, such as its line edit)."""
    window = control.window()
    hit = window.childAt(control.mapTo(window, control.rect().center()))
    return hit is not None and (hit is control or control.isAncestorOf(hit))


def check_form(qtbot, form: QWidget) -> int:
    """Every control over which the wheel turns: value unchanged, the form scrolled. Returns how many."""
    found = controls(form)
    for control in found:
        # the form must scroll at 1024 x 768 for this test to mean anything (once its layout has settled)
        qtbot.waitUntil(lambda: bool(scroll_areas(control)), timeout=5000)
        bars = [area.verticalScrollBar() for area in scroll_areas(control)]
        show(control)
        qtbot.waitUntil(lambda: under_pointer(control), timeout=5000)  # (a late layout change may move it)
        assert not control.hasFocus()
        before, at = value(control), [bar.value() for bar in bars]
        wheel_over(control, -1 if bars[0].value() < bars[0].maximum() else 1)
        qtbot.wait(1)
        assert value(control) == before, f"{type(control).__name__} changed ({QApplication.focusWidget()})"
        assert [bar.value() for bar in bars] != at, f"the form did not scroll over {type(control).__name__}"
    return len(found)


def open_view(open_window, qtbot, view_id: str, model):
    registry = ViewRegistry([builtin_views().get("tokens"), builtin_views().get(view_id)])
    window = open_window(model, view_id, registry=registry, size=(1024, 768), about=False)
    window.activateWindow()
    window.views.tabBar().setFocus()  # (a form's first field may hold the focus when its page opens)
    qtbot.waitUntil(lambda: window.views.tabBar().hasFocus(), timeout=5000)
    return window, window.view(view_id)


def test_the_wheel_scrolls_the_fine_tune_form_and_changes_only_a_focused_control(open_window, qtbot,
                                                                                  tiny_models, fresh_home):
    torch.set_num_threads(1)
    window, view = open_view(open_window, qtbot, "finetune", str(tiny_models["bert"]))
    form = view.form
    form.method_combo.setCurrentIndex(form.method_combo.findData("lora"))  # rank, alpha, dropout...
    qtbot.wait(50)
    assert check_form(qtbot, form) >= 6
    assert form.lr_spin.focusPolicy() == Qt.FocusPolicy.StrongFocus  # the wheel alone never gives focus

    # With keyboard focus, the wheel is the control's again: the reported learning rate box moves.
    show(form.lr_spin)
    form.lr_spin.setFocus()
    qtbot.waitUntil(form.lr_spin.hasFocus, timeout=2000)
    before = form.lr_spin.value()
    wheel_over(form.lr_spin, 1)
    qtbot.waitUntil(lambda: form.lr_spin.value() != before, timeout=2000)

    # A plot keeps its wheel zoom.
    plot = view.curves.plots[next(iter(view.curves.plots))]
    view_box = plot.getViewBox()
    before = view_box.viewRange()
    graphics = view.curves.graphics
    page = scroll_areas(graphics)[0]  # at 1024 x 768 the curves sit under the form: scroll them to the top
    bar = page.verticalScrollBar()
    bar.setValue(bar.value() + graphics.mapTo(page.viewport(), QPoint(0, 0)).y())
    qtbot.wait(50)
    box = graphics.mapFromScene(view_box.mapToScene(view_box.boundingRect())).boundingRect()
    seen = box.intersected(graphics.viewport().visibleRegion().boundingRect())  # the plot's part in view
    assert seen.height() > 20
    window_pos = graphics.viewport().mapTo(window, seen.center())
    QTest.wheelEvent(window.windowHandle(), window_pos, QPoint(0, NOTCH))
    qtbot.waitUntil(lambda: view_box.viewRange() != before, timeout=2000)


def test_the_wheel_scrolls_the_pre_train_form(open_window, qtbot, fresh_home):
    window, view = open_view(open_window, qtbot, "pretrain", None)
    qtbot.waitUntil(lambda: view.form.ready, timeout=30000)  # the objective's fields are in the form
    qtbot.wait(50)
    assert check_form(qtbot, view.form) >= 20
