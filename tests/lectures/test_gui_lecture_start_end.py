"""Starting and ending a lecture (issue 36): starting one ends a comparison with model B; the End key ends one
when no text field has the focus, as docs/lecture-presets.md says (it did nothing); in a text field it stays the
field's (the cursor goes to the end of the line)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from lm_workbench.lectures.schema import PresetStep, Preset

pytestmark = pytest.mark.timeout(60)


def test_end_ends_the_lecture_unless_a_text_field_has_the_focus(open_window, qtbot, tiny_models):
    window = open_window(str(tiny_models["bert"]), "tokens")
    preset = Preset("two-steps", "Two steps", "A lecture of two steps on the tiny BERT", str(tiny_models["bert"]),
                    (PresetStep("tokens", "First", inputs={"text": "a first sentence"}),
                     PresetStep("tokens", "Second", inputs={"text": "a second sentence"})))
    assert window.lectures.start(preset)
    qtbot.waitUntil(lambda: window.lectures.runner.active, timeout=10000)
    editor = window.text_input.editor
    editor.setFocus()
    qtbot.waitUntil(editor.hasFocus, timeout=3000)
    qtbot.keyClick(editor, Qt.Key.Key_End)
    assert window.lectures.runner.active  # the text box kept the key
    window.views.setFocus()
    qtbot.waitUntil(lambda: not editor.hasFocus(), timeout=3000)
    qtbot.keyClick(window.views, Qt.Key.Key_End)
    qtbot.waitUntil(lambda: not window.lectures.runner.active, timeout=3000)
    assert not window.lectures.bar.isVisible()


def test_starting_a_lecture_ends_a_comparison_and_says_so(open_window, qtbot, tiny_models):
    """A lecture shows one model (issue 36: a lecture started while comparing showed model B, unknown to the
    caption); starting one ends the comparison, in the status bar."""
    bert, gpt2 = str(tiny_models["bert"]), str(tiny_models["gpt2"])
    window = open_window(bert, "tokens")
    window.compare.panel.field.setText(gpt2)
    qtbot.mouseClick(window.compare.panel.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.compare.loaded is not None, timeout=30000)
    preset = Preset("one-step", "One step", "One step on the tiny BERT", bert,
                    (PresetStep("tokens", "Only", inputs={"text": "a sentence"}),))
    assert window.lectures.start(preset)
    assert window.compare.loaded is None and window.view_host.context("tokens").model_b is None
    assert "ends the comparison with model B" in window.status.message() and gpt2 in window.status.message()
