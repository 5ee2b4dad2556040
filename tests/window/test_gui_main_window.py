"""The main window with real widgets and the real default model (MiniLM)."""

from __future__ import annotations

import json
import threading

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication

from lm_workbench.ui.window.geometry import fitted
from lm_workbench.ui.window.main_window import HINT_EMPTY, MainWindow
from lm_workbench.settings import Settings

pytestmark = pytest.mark.timeout(90)

LOAD_TIMEOUT = 30000


def _expected_tokens(folder: str, text: str, pair: str | None = None) -> list[str]:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    return tok.convert_ids_to_tokens(tok(text, pair)["input_ids"])


@pytest.fixture
def window(open_window) -> MainWindow:
    """A window with MiniLM loaded."""
    return open_window(Settings().default_model, size=(1000, 650))


def _type(qtbot, window: MainWindow, text: str) -> None:
    window.text_input.editor.clear()
    qtbot.keyClicks(window.text_input.editor, text)


def test_loads_default_model_and_shows_its_facts(window):
    panel = window.model_panel
    assert window.loaded.info.spec == "minilm"
    assert panel.value("layers") == "6"
    assert panel.value("heads") == "12"
    assert panel.value("hidden") == "384"
    assert panel.value("parameters") == "22.7 M"
    assert panel.value("family").startswith("encoder")
    assert panel.value("vocab") == "30,522"
    assert panel.value("mlm_head") == "no"
    assert panel.value("window") == "512 tokens"
    assert panel.recent() == ["minilm"]
    assert "minilm" in window.windowTitle()
    assert window.message_bar.level() == ""


def test_typed_sentence_shows_exactly_the_tokenizers_tokens(window, qtbot):
    text = "Unbelievably, the bank tokenizes words."
    _type(qtbot, window, text)
    expected = _expected_tokens(window.loaded.info.folder, text)
    qtbot.waitUntil(lambda: window.view("tokens").view.tokens() == expected, timeout=5000)

    groups = window.view("tokens").view.word_groups()
    assert sum(len(g) for g in groups) == len(expected)
    first_word = next(g for g in groups if not window.view("tokens").view.tokenized().special[g[0]])
    assert len(first_word) > 1, "unbelievably is split into several subwords, all in one group"
    assert all(expected[i].startswith("##") for i in first_word[1:])
    # every chip is laid out, inside the widget
    for i in range(len(expected)):
        rect = window.view("tokens").view.chip_rect(i)
        assert rect is not None and rect.right() <= window.view("tokens").view.width()
    tip = window.view("tokens").view.tooltip_text(first_word[1])
    assert expected[first_word[1]] in tip and "characters" in tip and "subword 2 of" in tip


def test_sentence_pair_is_tokenized_as_a_pair(window, qtbot):
    window.text_input.set_text("The cat sat.", "It was tired.")
    expected = _expected_tokens(window.loaded.info.folder, "The cat sat.", "It was tired.")
    qtbot.waitUntil(lambda: window.view("tokens").view.tokens() == expected, timeout=5000)
    assert 1 in window.view("tokens").view.tokenized().segments


def test_missing_folder_shows_an_error_and_keeps_the_model(window, qtbot, tmp_path):
    missing = str(tmp_path / "no-such-model")
    qtbot.keyClicks(window.model_panel.model_edit, missing)
    qtbot.mouseClick(window.model_panel.load_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.message_bar.level() == "error", timeout=10000)
    assert "does not exist" in window.message_bar.text()
    assert window.message_bar.isVisible()
    assert window.model_panel.value("layers") == "6"  # the previous model stays
    assert not window.loading
    _type(qtbot, window, "still works")
    expected = _expected_tokens(window.loaded.info.folder, "still works")
    qtbot.waitUntil(lambda: window.view("tokens").view.tokens() == expected, timeout=5000)
    window.message_bar._close.click()
    assert not window.message_bar.isVisible()


def test_empty_text_shows_a_hint(window, qtbot):
    _type(qtbot, window, "hello")
    qtbot.waitUntil(lambda: bool(window.view("tokens").view.tokens()), timeout=5000)
    window.text_input.set_text("   \n ")
    qtbot.waitUntil(lambda: window.view("tokens").view.hint() == HINT_EMPTY, timeout=5000)
    assert window.view("tokens").view.tokens() == []
    assert window.message_bar.level() == ""
    window.view("tokens").view.grab()  # paints the hint without error


def test_truncated_text_shows_a_banner(window, qtbot):
    window.text_input.set_text("word " * 700)
    qtbot.waitUntil(lambda: window.view("tokens").banner_text() is not None, timeout=10000)
    assert "cut off" in window.view("tokens").banner_text()
    assert len(window.view("tokens").view.tokens()) == 512


def test_png_and_svg_export_write_valid_files(window, qtbot, tmp_path):
    window.text_input.set_text("Export these tokens, please.")
    qtbot.waitUntil(lambda: bool(window.view("tokens").view.tokens()), timeout=5000)
    png = window.export_view(tmp_path / "tokens.png")
    assert png is not None and png.stat().st_size > 0
    image = QImage(str(png))
    assert not image.isNull()
    dpr = window.view("tokens").view.devicePixelRatioF()
    assert (image.width(), image.height()) == (
        round(window.view("tokens").view.width() * dpr), round(window.view("tokens").view.height() * dpr)
    )
    svg = window.export_view(tmp_path / "tokens.svg")
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and "</svg>" in text
    assert ">export<" in text  # the chips are text in the vector file (MiniLM lowercases)


def test_export_to_an_unwritable_place_shows_an_error(window, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert window.export_view(blocker / "tokens.png") is None
    assert window.message_bar.level() == "error"


def test_copy_tokens_as_tsv(window, qtbot):
    window.text_input.set_text("Copy me")
    qtbot.waitUntil(lambda: bool(window.view("tokens").view.tokens()), timeout=5000)
    window.actions_.copy_tokens.trigger()
    lines = QGuiApplication.clipboard().text().splitlines()
    assert lines[0].split("\t")[:3] == ["index", "token", "id"]
    assert [line.split("\t")[1] for line in lines[1:]] == window.view("tokens").view.tokens()
    assert window.actions_.copy_tokens.shortcut().toString() == "Ctrl+Shift+C"


def test_dropping_a_folder_loads_it(window, qtbot, tiny_models):
    folder = tiny_models["gpt2"]
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(folder))])
    enter = QDragEnterEvent(QPoint(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(50, 50), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)
    qtbot.waitUntil(lambda: window.model_panel.value("family").startswith("decoder"), timeout=LOAD_TIMEOUT)
    assert window.model_panel.value("lm_head") == "yes"
    assert window.settings.recent_models[0] == str(folder.resolve())
    window.text_input.set_text("The quick fox")
    expected = _expected_tokens(str(folder), "The quick fox")
    qtbot.waitUntil(lambda: window.view("tokens").view.tokens() == expected, timeout=5000)


def test_cancel_button_is_enabled_while_a_job_runs(window, qtbot):
    cancel = window.status.cancel_button
    # Loading a model starts the Fine-tune tab's trainable-parameter count; wait until the window is idle.
    qtbot.waitUntil(lambda: not cancel.isEnabled(), timeout=60000)
    cancelled = threading.Event()

    def slow(cancel):
        while True:
            cancel.check()  # raises Cancelled once Cancel is pressed
            cancelled.wait(0.01)

    window.jobs.run(slow, name="slow", on_done=lambda _: None, label="Working…")
    qtbot.waitUntil(cancel.isEnabled, timeout=2000)
    assert window.actions_.cancel.isEnabled()
    qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not cancel.isEnabled(), timeout=5000)

    window.jobs.run(slow, name="slow", on_done=lambda _: None)
    qtbot.waitUntil(cancel.isEnabled, timeout=2000)
    qtbot.keyClick(window.text_input.editor, Qt.Key.Key_Escape)  # Esc cancels too
    qtbot.waitUntil(lambda: not cancel.isEnabled(), timeout=5000)
    assert window.message_bar.level() == ""


def test_about_panel_explains_the_token_view(window):
    about = window.about_panel
    assert about.title() == "Tokens"
    text = about.plain_text()
    assert "WordPiece" in text and "Offsets" in text and "arXiv" in text
    window.actions_.toggle_about.trigger()
    assert not about.is_expanded() and about.browser.isHidden()
    about.set_expanded(True)
    assert not about.browser.isHidden() and window.actions_.toggle_about.isChecked()


def test_closing_saves_recent_models(open_window, fresh_home):
    from lm_workbench.settings import settings_path

    w = open_window("minilm", settings=Settings(recent_models=["old/model"]), persist=True, size=(1000, 650))
    w.close()
    saved = json.loads(settings_path().read_text())
    assert saved["recent_models"] == ["minilm", "old/model"]


def test_window_remembers_its_geometry_and_the_about_panel(qtbot, fresh_home):
    from lm_workbench.settings import load_settings

    first = MainWindow(Settings(), persist=True)
    qtbot.addWidget(first)
    first.place_on_screen()  # nothing saved yet: most of the screen's free area
    area = (first.screen() or QGuiApplication.primaryScreen()).availableGeometry()
    assert first.width() >= min(1180, area.width()) and first.width() <= area.width()
    first.show()
    first.resize(1190, 777)
    first.move(5, 40)
    first.about_panel.set_expanded(False)
    first.close()
    saved = load_settings()
    assert saved.about_expanded is False and saved.window_geometry

    second = MainWindow(saved, persist=False)
    qtbot.addWidget(second)
    second.place_on_screen()
    second.show()
    # the place saved, fitted to the screen it opens on (offscreen: 800 x 800), its frame included once shown
    qtbot.waitUntil(lambda: area.contains(second.frameGeometry()), timeout=3000)
    assert second.width() <= area.width() and second.height() <= area.height()
    assert not second.about_panel.is_expanded() and not second.actions_.toggle_about.isChecked()
    second.close()


@pytest.mark.parametrize("saved, area, expected", [
    ((0, 0, 1920, 1080), (0, 0, 1280, 720), (0, 0, 1280, 720)),  # the laptop's place on a projector
    ((200, 100, 1024, 760), (0, 0, 1280, 720), (200, 0, 1024, 720)),  # 1024 x 760 on a 720-high screen
    ((300, 40, 1280, 720), (0, 0, 1024, 768), (0, 40, 1024, 720)),  # 1280 x 720 on 1024 x 768
    ((100, 50, 800, 600), (0, 0, 1920, 1080), (100, 50, 800, 600)),  # fits: as saved
    ((1900, 20, 800, 600), (1920, 0, 1280, 720), (1920, 20, 800, 600)),  # on a second screen's free area
])
def test_a_saved_place_is_fitted_to_the_screen_it_opens_on(saved, area, expected):
    assert fitted(*saved, area) == expected


def test_a_window_saved_larger_than_the_screen_opens_within_it(qtbot, fresh_home):
    window = MainWindow(Settings(window_geometry="0,0,1920,1080"), persist=False)
    qtbot.addWidget(window)
    window.place_on_screen()
    window.show()
    area = (window.screen() or QGuiApplication.primaryScreen()).availableGeometry()
    qtbot.waitUntil(lambda: area.contains(window.frameGeometry()), timeout=3000)  # the frame too, once shown
    assert window.width() <= area.width() and window.height() <= area.height()
    window.close()


def test_app_run_opens_the_window_and_loads_a_model(qtbot, fresh_home):
    import sqlite3
    import time

    from lm_workbench.ui import app as app_module
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    store = RunStore(runs_db_path())  # a run whose process died last time
    run_id = store.create_run("pre-train", params={}, status="queued")
    store.start_run(run_id, pid=2**22 + 12345)
    store.close()
    with sqlite3.connect(runs_db_path()) as db:  # its last heartbeat was two minutes ago
        db.execute("UPDATE runs SET heartbeat_at = ? WHERE id = ?", (time.time() - 120, run_id))
    seen = {}

    def poll():
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, MainWindow) and widget.isVisible():
                if widget.loaded is not None:
                    seen["family"] = widget.model_panel.value("family")
                    seen["notice"] = widget.message_bar.text()
                    widget.close()
                    return
        QTimer.singleShot(50, poll)

    QTimer.singleShot(0, poll)
    QTimer.singleShot(LOAD_TIMEOUT, QApplication.instance().quit)  # never hang
    assert app_module.run(["minilm"]) == 0
    assert seen["family"].startswith("encoder")
    assert f"#{run_id}" in seen["notice"] and "interrupted" in seen["notice"]
    reopened = RunStore(runs_db_path())
    assert reopened.get_run(run_id)["status"] == "interrupted"
    reopened.close()
    assert QApplication.applicationName() == "LM Workbench"


def test_a_model_loaded_from_elsewhere_shows_in_the_box_and_blanks_the_old_facts(window, qtbot, tiny_models):
    """A lecture, a recent model or Open in views loads a model: the box says which (it kept the old path), and
    while it loads the facts are not the previous model's (issue 36, item 10 and the cosmetic list)."""
    gpt2 = str(tiny_models["gpt2"])
    window.model_panel.model_edit.setText("some/other-model")
    assert window.model_panel.value("family").startswith("encoder")  # MiniLM's
    window.load_model(gpt2)  # what a lecture step does
    assert window.model_panel.model_edit.text() == gpt2
    assert window.model_panel.value("family") == "—" and window.model_panel.value("model").startswith("loading")
    qtbot.waitUntil(lambda: window.loaded is not None and window.loaded.info.folder == gpt2, timeout=LOAD_TIMEOUT)
    qtbot.waitUntil(lambda: window.model_panel.value("family").startswith("decoder"), timeout=LOAD_TIMEOUT)
    assert window.model_panel.model_edit.text() == gpt2
