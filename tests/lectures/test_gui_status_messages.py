"""A status message belongs to the moment and the tab it was written for (issue 36, item 4): F5's hint goes with
F5 off, a lecture recorder's "Step 1 added" or "Saved the lecture" does not come back on a later visit to the
tab, and a job's progress ("Read 202 occurrences…") is not left behind on the tab that was current when it ran."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from lm_workbench.engine.progress import Progress
from lm_workbench.ui.window.presentation_fit import ENDED, HINT
from lm_workbench.ui.window.status_bar import READY, JobStatusBar

pytestmark = pytest.mark.timeout(60)


def test_each_kind_of_message_lives_as_long_as_it_should(qtbot):
    bar = JobStatusBar()
    qtbot.addWidget(bar)
    bar.set_context("tokens")
    bar.set_message("12 tokens")  # the view's own
    bar.say("Step 1 added: Tokens")  # a moment
    assert bar.message() == "Step 1 added: Tokens"
    bar.set_context("attention")
    assert bar.message() == READY
    bar.set_context("tokens")  # the moment is gone; the tab's own message is back
    assert bar.message() == "12 tokens"

    bar.set_context("attention")
    bar.set_busy(True)
    bar.job_started("embeddings", "Encoding")
    bar.show_progress(Progress(1, 1, "read 202 occurrences from the activation cache"))
    assert bar.message() == "Read 202 occurrences from the activation cache…"
    bar.set_busy(False)  # the job's message is nobody's: Attention's own (none yet) comes back
    assert bar.message() == READY
    bar.set_context("tokens")
    bar.set_context("attention")
    assert bar.message() == READY

    bar.say("Loaded minilm")  # a moment outlives a job on its own tab ...
    bar.set_busy(True)
    bar.job_started("attention", "Computing attention")
    assert bar.message() == "Computing attention"
    bar.job_says("Cancelling…")
    bar.set_busy(False)
    assert bar.message() == "Loaded minilm"
    bar.set_message("Attention of 12 tokens")  # ... but not a newer message
    bar.set_context("tokens")
    bar.set_context("attention")
    assert bar.message() == "Attention of 12 tokens"


def test_f5_off_takes_its_hint_away_and_a_recorded_step_does_not_come_back(open_window, qtbot, restore_style):
    window = open_window(None, "tokens", size=(1280, 800))
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert window.status.message() == HINT
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert window.status.message() == ENDED
    window.show_view("attention")
    window.show_view("tokens")
    assert window.status.message() == READY

    window.notifier.status("Step 1 added: Tokens")  # what the lecture recorder says as it records
    assert window.status.message() == "Step 1 added: Tokens"
    window.show_view("attention")
    window.show_view("tokens")
    assert "Step 1 added" not in window.status.message()
