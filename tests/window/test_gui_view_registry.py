"""A view added through one registry entry: built with a narrow context, computed off the Qt thread,
with progress and partial results reaching it, stale results dropped, and the window's inputs and About
panel following the entry."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QLabel

from lm_workbench.engine.progress import Partial, Progress
from lm_workbench.ui.window.view_registry import ViewEntry, ViewRegistry, builtin_views
from lm_workbench.ui.view_kit.view_base import Computation, ModelView

pytestmark = pytest.mark.timeout(90)
STEPS = 3


class EchoView(ModelView):
    """Upper-cases the text in STEPS steps, reporting progress and each step's partial result."""

    def __init__(self, ctx):
        super().__init__()
        self.made_with = ctx
        self.progress: list[tuple[str, int]] = []
        self.partials: list[tuple[str, int]] = []
        self.results: list[str] = []
        self.threads: set[str] = set()
        self.tokens: list = []  # the window's encoding each request came with
        self.hint = ""
        self.label = QLabel(self)

    def computation(self, inputs):
        text = inputs.text
        self.tokens.append(inputs.tokens)

        def job(cancel):
            self.threads.add(threading.current_thread().name)
            for i in range(STEPS):
                yield Progress(i, STEPS, text)
                yield Partial((text, i))
                if text.startswith("slow"):
                    time.sleep(0.25)
                cancel.check()
            return text.upper()

        return Computation(
            key=(inputs.model_key, text), fn=job, on_done=self._done,
            on_progress=lambda p: self.progress.append((p.message, p.done)),
            on_partial=self.partials.append)

    def _done(self, value):
        self.results.append(value)
        self.label.setText(value)

    def show_hint(self, text):
        self.hint = text


def _registry() -> ViewRegistry:
    builtin = builtin_views()
    return ViewRegistry([
        builtin.get("tokens"), builtin.get("runs"),
        ViewEntry("echo", "Echo", "<p>Upper-cases the <b>text</b>.</p>", EchoView, "Ctrl+9", {"text"}),
    ])


def test_one_entry_adds_a_computed_view_with_progress_partials_and_stale_results_dropped(
        open_window, qtbot, tiny_models):
    window = open_window(str(tiny_models["bert"]), registry=_registry())
    echo = window.view("echo")
    assert [window.views.tabText(i) for i in range(window.views.count())] == ["Tokens", "Runs", "Echo"]
    assert echo.made_with.entry.id == "echo" and not hasattr(echo.made_with, "window")

    # The entry's shortcut shows it; the About panel and the inputs follow the entry
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_9, Qt.KeyboardModifier.ControlModifier)
    assert window.view_host.current_entry().id == "echo"
    assert window.about_panel.title() == "Echo" and "Upper-cases" in window.about_panel.plain_text()
    assert window.text_input.isVisible() and not window.text_input.pair_edit.isVisible()
    assert echo.isAncestorOf(window.text_input) is False and window.text_input.y() < echo.y()  # above the view
    tab_bar_y = window.views.tabBar().mapTo(window, QPoint(0, 0)).y()

    # A slow request, replaced halfway by a new one: only the new one's reports and result arrive
    window.text_input.set_text("slow first")
    qtbot.waitUntil(lambda: ("slow first", 0) in echo.partials, timeout=10000)
    window.text_input.set_text("second")
    qtbot.waitUntil(lambda: echo.results == ["SECOND"], timeout=10000)
    qtbot.wait(900)  # longer than the slow job could still take: nothing of it arrives late
    assert echo.results == ["SECOND"] and echo.label.text() == "SECOND"
    late = echo.partials[echo.partials.index(("second", 0)):]
    assert late == [("second", i) for i in range(STEPS)]
    assert ("slow first", STEPS - 1) not in echo.partials
    assert [p for p in echo.progress if p[0] == "second"] == [("second", i) for i in range(STEPS)]
    assert echo.threads and threading.main_thread().name not in echo.threads
    # tokenized once, by the window: the view gets that encoding with its inputs
    assert echo.tokens[-1] is window.tokenized and window.tokenized.text == "second"

    # Shown already: switching away and back does not compute again
    window.show_view("runs")
    assert not window.text_input.isVisible()  # Runs reads no text
    assert window.views.tabBar().mapTo(window, QPoint(0, 0)).y() == tab_bar_y  # the tab bar stays put
    window.show_view("echo")
    qtbot.wait(300)
    assert echo.results == ["SECOND"]

    # The Tokens view reads the pair too
    window.show_view("tokens")
    assert window.text_input.isVisible() and window.text_input.pair_edit.isVisible()


def test_registry_refuses_clashes_and_unknown_inputs():
    registry = builtin_views()
    assert registry.ids() == ["tokens", "attention", "predictions", "lens", "patching", "heads", "features", "masking_lab",
                              "embeddings", "probing", "prompting", "pretrain", "finetune", "runs", "compare",
                              "retrieval", "guide"]
    with pytest.raises(ValueError, match="registered already"):
        registry.register(ViewEntry("tokens", "T", "", EchoView))
    with pytest.raises(ValueError, match="shortcut Ctrl\\+R is taken"):
        registry.register(ViewEntry("other", "O", "", EchoView, "Ctrl+R"))
    with pytest.raises(ValueError, match="unknown inputs"):
        ViewEntry("x", "X", "", EchoView, inputs={"image"})
    with pytest.raises(ValueError, match="needs 'text'"):
        ViewEntry("x", "X", "", EchoView, inputs={"pair"})
