"""What a step talks about scrolls into view (issue 36, item 12): at 1280 × 720 with F5 the Explain strip lies
below the fold of the Predictions tab; once an explanation comes, the tab scrolls so the strip shows."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect

pytestmark = pytest.mark.timeout(120)
WAIT = 30000


def _shown_in_tab(window, view_id: str, widget) -> QRect:
    """``widget``'s rectangle in the tab's scroll area's viewport, clipped to what the viewport shows."""
    scroller = window.view_host._scrollers[view_id]
    viewport = scroller.viewport()
    rect = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
    return rect.intersected(viewport.rect())


def test_an_explanation_scrolls_the_strip_into_view(open_window, qtbot, tiny_models, restore_style):
    # shorter than the page with the strip (at 1280 × 720 with F5 and the lecture bar it overflows too)
    window = open_window(str(tiny_models["gpt2"]), "predictions", size=(1280, 440), about=False)
    window.presentation.screen_height = lambda: 720
    window.presentation.set_on(True)
    view = window.view("predictions")
    window.text_input.set_text("The cat sat on the mat and the dog sat on the")
    qtbot.waitUntil(lambda: view.pages.currentWidget() is view.next_page and bool(view.candidates()), timeout=WAIT)
    scroller = window.view_host._scrollers["predictions"]
    scroller.verticalScrollBar().setValue(0)
    view.explain.explain_button.click()
    qtbot.waitUntil(lambda: view.explain.strip.isVisible() and view.explain.explain_button.isEnabled(), timeout=WAIT)
    strip = view.explain.strip
    whole = lambda: min(strip.height(), scroller.viewport().height())  # noqa: E731
    qtbot.waitUntil(lambda: _shown_in_tab(window, "predictions", strip).height() == whole(), timeout=5000)
    assert scroller.verticalScrollBar().maximum() > 0  # the page is taller than the tab at this size ...
    assert scroller.verticalScrollBar().value() > 0  # ... and it scrolled down to the strip, all of it in sight
