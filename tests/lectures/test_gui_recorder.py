"""Recording a lecture by clicking, end to end on MiniLM: two views set up through their widgets, a step each
(the key and the button), captions typed, reordered, saved; ``presets check`` accepts the file; playing it
with the lecture controller shows each view exactly as it was recorded."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QApplication

from lm_workbench.cli.main import main
from lm_workbench.lectures.library import load_preset_file

pytestmark = pytest.mark.timeout(180)

WAIT = 30000
TEXT, PAIR = "The cat sat on the mat.", "It was tired."


def settled(window) -> bool:
    return not window.jobs.busy and not window.text_input.pending() and not window.loading


def type_caption(qtbot, panel, caption: str) -> None:
    edit = panel.caption_edit
    edit.selectAll()
    qtbot.keyClicks(edit, caption)  # replaces the selected default caption, re-captioning as it goes


def test_record_reorder_save_check_and_replay(open_window, qtbot, tmp_path, capsys, minilm):
    window = open_window("minilm", about=False)
    recorder = window.recorder
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Lectures")
    assert {recorder.record_action, recorder.edit_action, recorder.add_action} <= set(menu.actions())
    assert not recorder.add_action.isEnabled()  # nothing is being recorded yet
    keys = [a.shortcut().toString() for a in window.actions() if not a.shortcut().isEmpty()]
    assert keys.count("Ctrl+Shift+A") == 1  # taken by no other action of the window
    recorder.record_action.trigger()
    panel = recorder.panel
    assert panel.isVisible() and recorder.add_action.isEnabled() and panel.steps.count() == 0
    free = window.screen().availableGeometry()  # against the window's right edge (within the screen), not at (0, 0)
    assert panel.frameGeometry().right() == min(window.frameGeometry().right(), free.right())
    qtbot.keyClicks(panel.title_edit, "Attention, then a prompt")

    # 1: attention at layer 2 without the special tokens, on a sentence pair
    attention = window.view("attention")
    window.show_view("attention")
    window.text_input.set_text(TEXT, PAIR)
    qtbot.waitUntil(lambda: settled(window) and attention.side() is not None, timeout=WAIT)
    attention.controls.layer_spin.setValue(2)
    attention.controls.hide_special.setChecked(True)
    recorded = {"attention": attention.preset_state()}
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    qtbot.keyClick(window, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert panel.steps.count() == 1
    type_caption(qtbot, panel, "Layer 2 without [CLS] and [SEP]")

    # 2: prompting with a template and an input typed into its fields, on the Evaluate page
    prompting = window.view("prompting")
    window.show_view("prompting")
    prompting.editor.template_edit.selectAll()
    qtbot.keyClicks(prompting.editor.template_edit, "[x] All in all, it was [z].")
    prompting.editor.x_edit.selectAll()
    qtbot.keyClicks(prompting.editor.x_edit, "A dull film.")
    prompting.pages.setCurrentIndex(1)
    recorded["prompting"] = prompting.preset_state()
    assert recorded["prompting"][0]["template"] == "[x] All in all, it was [z]."
    panel.add_button.click()
    type_caption(qtbot, panel, "A cloze prompt of our own")

    # a third step, taken again on another view, then deleted
    window.show_view("tokens")
    panel.add_button.click()
    assert panel.steps.count() == 3 and recorder.draft.steps[2].view == "tokens"
    window.show_view("attention")
    panel.retake_button.click()
    assert recorder.draft.steps[2].view == "attention" and recorder.draft.steps[2].caption == "Tokens"
    panel.delete_button.click()

    # the prompt first: select it and move it up
    panel.steps.setCurrentRow(1)
    assert panel.caption_edit.text() == "A cloze prompt of our own"
    panel.up_button.click()
    assert [panel.steps.item(i).text() for i in range(2)] == [
        "1. Prompting: A cloze prompt of our own", "2. Attention: Layer 2 without [CLS] and [SEP]"]
    assert [s.view for s in recorder.draft.steps] == ["prompting", "attention"]
    model = panel.steps.model()  # a drag in the list moves the row, as here
    assert model.moveRow(QModelIndex(), 0, QModelIndex(), 2)
    qtbot.waitUntil(lambda: [s.view for s in recorder.draft.steps] == ["attention", "prompting"], timeout=5000)
    assert panel.steps.item(0).text().startswith("1. Attention")
    assert model.moveRow(QModelIndex(), 1, QModelIndex(), 0)
    qtbot.waitUntil(lambda: [s.view for s in recorder.draft.steps] == ["prompting", "attention"], timeout=5000)

    assert panel.windowTitle().endswith("*")  # changes not saved yet
    path = recorder.save(tmp_path / "mine.json")
    assert path == tmp_path / "mine.json"
    assert panel.windowTitle() == "Record a lecture: Attention, then a prompt"  # saved: no "*" (issue 36)
    assert main(["presets", "check", str(path), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["available"] and row["steps"] == 2 and all(row["steps_available"])
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["title"] == "Attention, then a prompt" and data["model"] == "minilm"
    assert data["steps"][1]["inputs"] == {"text": TEXT, "pair": PAIR}
    assert "inputs" not in data["steps"][0]  # prompting reads no text box

    # play it back from a clean slate: each step shows what was recorded
    window.text_input.set_text("Something else entirely.")
    attention.controls.layer_spin.setValue(0)
    attention.controls.hide_special.setChecked(False)
    prompting.state.set_template("[x] It was [z].")
    prompting.pages.setCurrentIndex(0)
    window.show_view("tokens")
    preset = load_preset_file(path)
    assert window.lectures.start(preset)
    qtbot.waitUntil(lambda: settled(window) and window.view_host.current_entry().id == "prompting", timeout=WAIT)
    assert window.lectures.bar.text() == "Step 1/2: A cloze prompt of our own"
    assert prompting.preset_state() == recorded["prompting"]
    assert window.lectures.runner.next()
    qtbot.waitUntil(lambda: settled(window) and attention.side() is not None
                    and attention.controls.layer_spin.value() == 2, timeout=WAIT)
    assert window.view_host.current_entry().id == "attention"
    assert (window.text_input.text(), window.text_input.pair()) == (TEXT, PAIR)
    assert attention.preset_state() == recorded["attention"]
    window.lectures.runner.stop()

    # editing the saved lecture opens it in the same list
    panel.close()
    assert not recorder.add_action.isEnabled()
    draft = recorder.edit(path)
    assert draft is recorder.draft and panel.isVisible() and draft.path == path
    assert [panel.steps.item(i).text() for i in range(panel.steps.count())] == [
        "1. Prompting: A cloze prompt of our own", "2. Attention: Layer 2 without [CLS] and [SEP]"]
    assert panel.title_edit.text() == "Attention, then a prompt"
