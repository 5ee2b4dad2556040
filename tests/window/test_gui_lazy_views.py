"""Views are made when first shown or asked for (opening the window makes one), and a view made late starts
where the views made early are: the loaded model, the text box's tokens, the presentation's plot style."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from lm_workbench.ui import theme
from lm_workbench.ui.theme_tokens import is_presentation

SENTENCE = "The bank raised interest rates."


def test_opening_the_window_makes_only_the_current_view(open_window):
    window = open_window(None, about=False)
    host = window.view_host
    current = host.current_entry().id
    # the current view, and the Guide (its page panel is docked in the window at once; 7 ms)
    assert [e.id for e in host.entries() if host.created(e.id)] == [current, "guide"]
    window.show_view("lens")
    assert host.created("lens") and not host.created("finetune")
    assert window.view("finetune") is host.widget("finetune") and host.created("finetune")


def test_a_view_made_after_a_load_starts_with_that_model(open_window, qtbot, tiny_models):
    window = open_window(str(tiny_models["gpt2"]), about=False)
    host = window.view_host
    assert not host.created("prompting")
    view = window.view("prompting")  # made now, after the load: the decoder's prefix mode, not the default cloze
    assert view._loaded is window.loaded and view.state.mode == "prefix"


def test_a_view_made_after_typing_shows_the_tokens_typed(open_window, qtbot, tiny_models):
    window = open_window(str(tiny_models["bert"]), about=False)
    window.show_view("lens")
    window.text_input.set_text(SENTENCE)
    qtbot.waitUntil(lambda: window.tokenized is not None and window.tokenized.text == SENTENCE, timeout=30000)
    assert not window.view_host.created("tokens") or window.view_host.current_entry().id != "tokens"
    tokens = window.view("tokens")
    qtbot.waitUntil(lambda: tokens.view.tokens() == list(window.tokenized.tokens), timeout=10000)


def test_a_view_made_while_presenting_has_the_presentations_axes(open_window, qtbot, restore_style):
    window = open_window(None, "tokens", about=False)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert is_presentation(theme.current())
    assert not window.view_host.created("probing")
    window.show_view("probing")  # a view with plots, made after F5
    import pyqtgraph as pg

    axes = [item for view in window.view("probing").findChildren(pg.GraphicsView) if view.scene() is not None
            for item in view.scene().items() if isinstance(item, pg.AxisItem)]
    assert axes and all(axis.label.font().pointSizeF() == pytest.approx(QApplication.font().pointSizeF())
                        for axis in axes)
    assert all(axis.textPen().color().name() == theme.current().colours.plot_axis_ink for axis in axes)
    qtbot.keyClick(window, Qt.Key.Key_F5)
