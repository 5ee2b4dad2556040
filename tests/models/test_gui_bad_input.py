"""Bad models, files and texts show a clear message in the window, which stays usable
(the previous model keeps working)."""

from __future__ import annotations

import shutil

import pytest

from tests.support.huge_model import sparse_huge_model

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def window(open_window, qtbot, tiny_models):
    win = open_window(str(tiny_models["bert"]))
    qtbot.waitUntil(lambda: not win.jobs.busy, timeout=30000)
    return win


def _bad_models(tmp_path, tiny_models):
    (tmp_path / "noconfig").mkdir()
    corrupt = shutil.copytree(tiny_models["gpt2"], tmp_path / "corrupt")
    (corrupt / "model.safetensors").write_bytes(b"\x01" * 64)
    sparse_huge_model(tmp_path / "huge")
    return [
        (str(tmp_path / "missing"), "does not exist"),
        (str(tmp_path / "noconfig"), "no config.json"),
        (str(corrupt), "corrupt weights"),
        ("nobody/uncached-model", "not in the cache"),
        (str(tmp_path / "huge"), "free on cpu"),
    ]


def test_bad_models_show_an_error_and_keep_the_previous_model(window, qtbot, tmp_path, tiny_models):
    before = window.loaded
    for spec, needle in _bad_models(tmp_path, tiny_models):
        window.model_panel.model_edit.setText(spec)
        window.load_model(spec)
        qtbot.waitUntil(lambda: not window.jobs.busy and window.message_bar.isVisible(), timeout=20000)
        assert window.message_bar.level() == "error"
        assert needle in window.message_bar.text(), (spec, window.message_bar.text())
        assert "Traceback" not in window.message_bar.text()
        assert window.loaded is before
    window.text_input.set_text("the statement is still tokenized")
    qtbot.waitUntil(lambda: "statement" in window.view("tokens").view.tokens(), timeout=10000)


def test_non_utf8_text_file_shows_an_error(window, qtbot, tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("déjà vu".encode("latin-1"))
    assert window.open_text_file(bad) is False
    assert "not UTF-8" in window.message_bar.text() and window.message_bar.level() == "error"
    good = tmp_path / "good.txt"
    good.write_text("A statement from a file.", encoding="utf-8")
    assert window.open_text_file(good) is True
    expected = window.loaded.tokenizer.convert_ids_to_tokens(window.loaded.tokenizer("A statement from a file.")["input_ids"])
    qtbot.waitUntil(lambda: window.view("tokens").view.tokens() == expected, timeout=10000)


def test_too_long_text_is_truncated_visibly(window, qtbot):
    window.text_input.set_text("statement " * 200)
    qtbot.waitUntil(lambda: len(window.view("tokens").view.tokens()) == 64, timeout=10000)
    assert window.view("tokens").view.tokens()[-1] == "[SEP]"
    banner = window.view("tokens").banner
    assert banner.isVisible()
    assert "cut off" in banner.text() and "202 tokens" in banner.text()
