"""View > Audience window: the current view alone, in the presentation theme, following the main window's tab
changes, lecture steps and what the view shows; the views stay in the main window."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDockWidget, QLineEdit, QMenuBar, QPushButton

from lm_workbench.ui.lectures.audience_window import choose_screen
from lm_workbench.ui.theme_tokens import is_presentation
from lm_workbench.lectures.schema import parse_preset

pytestmark = pytest.mark.timeout(120)
WAIT = 30000


def settled(window) -> bool:
    return not window.jobs.busy and not window.text_input.pending() and not window.loading


def test_choose_screen_prefers_the_one_the_window_is_not_on():
    laptop, projector = object(), object()
    assert choose_screen([laptop, projector], laptop) == (projector, True)
    assert choose_screen([projector, laptop], laptop) == (projector, True)
    assert choose_screen([laptop], laptop) == (laptop, False)


def test_audience_window_follows_views_steps_and_changes(open_window, qtbot, tiny_models):
    folder = str(tiny_models["bert"])
    window = open_window(folder, "tokens", about=False)
    window.text_input.set_text("the bank raised rates")
    qtbot.waitUntil(lambda: settled(window) and bool(window.view("tokens").view.tokens()), timeout=WAIT)
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    action = window.audience.action
    assert action in view_menu.actions() and not action.isChecked()
    action.trigger()
    audience = window.audience.window
    assert audience.isVisible() and audience.isWindow() and action.isChecked()
    # one screen: it opens over the main window, centred as far as the screen allows, not at its corner (issue 36)
    free, frame, placed = window.screen().availableGeometry(), window.frameGeometry(), audience.geometry()
    assert free.adjusted(-4, -4, 4, 4).contains(placed) and placed.topLeft() != free.topLeft()  # (its frame)
    assert placed.intersected(frame).width() == placed.width() or placed.right() >= free.right() - 4  # over it
    assert audience.view_id == "tokens" and audience.caption.text() == "Tokens"
    assert not any(audience.findChildren(kind) for kind in (QDockWidget, QMenuBar, QLineEdit, QPushButton))  # alone
    assert window.view("tokens").window() is window  # never re-parented: the controls stay on the laptop
    assert is_presentation(audience.tokens) and audience.mirror.pixmap() is not None

    window.show_view("attention")  # a tab change shows at once
    assert audience.view_id == "attention" and audience.caption.text() == "Attention"
    exported = window.view_host.export_widget("attention")
    qtbot.waitUntil(lambda: settled(window) and window.view("attention").side() is not None, timeout=WAIT)
    qtbot.waitUntil(lambda: audience.picture is not None and audience.picture.size() == exported.size(), timeout=5000)

    before = audience.picture.toImage()  # what the view shows changes: the picture follows (the timer)
    window.view("attention").controls.layer_spin.setValue(1)
    qtbot.waitUntil(lambda: audience.picture.toImage() != before, timeout=5000)

    preset = parse_preset({"format": "lm-workbench-preset/1", "name": "two", "title": "Two", "model": folder,
                           "steps": [{"view": "tokens", "caption": "How it splits words"},
                                     {"view": "attention", "caption": "Where it looks"}]}, "two.json")
    assert window.lectures.start(preset)
    assert audience.view_id == "tokens" and audience.caption.text() == "Step 1/2: How it splits words"
    assert window.lectures.runner.next()
    assert audience.view_id == "attention" and audience.caption.text() == "Step 2/2: Where it looks"
    window.lectures.runner.stop()
    assert audience.caption.text() == "Attention"

    action.trigger()
    assert not audience.isVisible() and not action.isChecked()
    action.trigger()
    assert audience.isVisible()
    audience.close()  # closing it by the window system unticks the action
    assert not action.isChecked()
