"""The End key ends a lecture when no text field has the focus, as docs/lecture-presets.md says (issue 36: it did
nothing); in a text field it stays the field's (the cursor goes to the end of the line)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from workbench.lectures.schema import PresetStep, Preset

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
