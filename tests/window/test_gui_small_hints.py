"""Issue 49, item 13: Heads' corpus field has a Browse button; the Fine-tune before/after panel stops asking for
a run once one finished; closing the Start page gives the keyboard back to the window (PageDown steps at once)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QFileDialog

pytestmark = pytest.mark.timeout(120)


def test_the_heads_corpus_field_has_a_browse_button(open_window, qtbot, tmp_path, monkeypatch):
    window = open_window(view="heads", size=(1024, 768))
    view = window.view("heads")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("one line\nanother line\n", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(corpus), ""))
    view.set_inputs(how="zero")
    assert not view.corpus_browse.isEnabled()  # zero ablation reads no corpus
    view.set_inputs(how="mean")
    assert view.corpus_browse.isEnabled() and view.corpus_browse.isVisible()
    view.corpus_browse.click()
    assert view.corpus_edit.text() == str(corpus) and view.state.corpus == str(corpus)


def test_the_before_after_hint_follows_a_finished_run(open_window, qtbot):
    from lm_workbench.finetune.state import RunResult
    from lm_workbench.ui.finetune.finetune_view import SHIFT_HINT

    window = open_window(view="finetune", size=(1024, 768))
    view = window.view("finetune")
    assert view.shift_label.text() == SHIFT_HINT
    view.state.add_result(RunResult(run_id=7, method="lora", out_dir="/nowhere", summary={}))
    assert "Finish a run" not in view.shift_label.text() and "Run #7 (lora) finished" in view.shift_label.text()


def test_closing_the_start_page_gives_the_keyboard_back_to_the_window(open_window, qtbot):
    window = open_window(view="tokens", size=(1024, 768))
    window.activateWindow()
    window.lectures.show_start_page()
    page = window.lectures.start_page
    qtbot.waitExposed(page)
    page.activateWindow()
    QApplication.processEvents()
    page.reject()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    assert window.isActiveWindow()
