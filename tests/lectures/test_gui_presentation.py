"""Presentation mode in the real window: F5 swaps the tokens and every view repaints in them; PageDown and
PageUp reach whatever stepper is pushed; view pictures (clipboard and file) are drawn in the current theme."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication

from lm_workbench.ui import theme
from lm_workbench.ui.theme_tokens import DEFAULT, PRESENTATION, is_presentation

pytestmark = pytest.mark.timeout(90)
SENTENCE = "the bank raised rates"


def _argb(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    arr = np.frombuffer(image.constBits(), dtype=np.uint32, count=image.sizeInBytes() // 4)
    return arr.reshape(image.height(), image.bytesPerLine() // 4)[:, : image.width()].copy()


def _count(arr: np.ndarray, colour: str) -> int:
    return int((arr == np.uint32(QColor(colour).rgba())).sum())


def _activate(qtbot, window) -> None:
    """Window shortcuts fire only in the active window."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)


def _f5(qtbot, window) -> None:
    _activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_F5)


class Recorder:
    def __init__(self):
        self.calls: list[str] = []

    def next(self) -> bool:
        self.calls.append("next")
        return True

    def previous(self) -> bool:
        self.calls.append("previous")
        return True


def test_f5_repaints_the_views_in_the_presentation_tokens_and_back(open_window, qtbot, tiny_models, restore_style):
    window = open_window(str(tiny_models["bert"]), "tokens")
    window.presentation.screen_height = lambda: 1080  # a 1080p projector: the 20 pt set
    window.text_input.set_text(SENTENCE)
    tokens_view = window.view("tokens").view
    qtbot.waitUntil(lambda: bool(tokens_view.tokens()), timeout=30000)
    before = _argb(tokens_view.grab().toImage())
    assert _count(before, DEFAULT.colours.segment_a.fill) > 100
    assert not window.actions_.presentation.isChecked()

    _f5(qtbot, window)
    assert theme.current() is PRESENTATION and window.actions_.presentation.isChecked()
    assert window.settings.presentation_mode is True
    assert QApplication.font().pointSizeF() >= 20 and tokens_view.font().pointSizeF() >= 20
    after = _argb(tokens_view.grab().toImage())
    assert _count(after, PRESENTATION.colours.segment_a.fill) > 100
    assert _count(after, DEFAULT.colours.segment_a.fill) == 0

    # The attention heatmap, computed now, is in viridis; the head buttons outline in Okabe-Ito
    window.show_view("attention")
    attention = window.view("attention")
    qtbot.waitUntil(lambda: attention.encoding() is not None, timeout=30000)
    attention.select_cell(0, 0)
    heat = _argb(attention.heatmap.grab().toImage())
    lut = {QColor(s).rgba() for s in PRESENTATION.colours.heatmap_stops}
    assert sum(int((heat == np.uint32(v)).sum()) for v in lut) > 0
    assert _count(heat, DEFAULT.colours.heatmap_stops[0]) == 0
    assert PRESENTATION.colours.head_colors[0] in attention.controls.heads.button(0).styleSheet()
    loss = window.view("pretrain").plot.plots["loss"]  # a pyqtgraph plot: title size and axis width follow
    assert loss.titleLabel.opts["size"] == f"{PRESENTATION.fonts.base_pt:g}pt"
    assert loss.getAxis("left").minimumWidth() == PRESENTATION.metrics.plot_axis_w

    _f5(qtbot, window)
    assert theme.current() is DEFAULT and not window.actions_.presentation.isChecked()
    assert window.settings.presentation_mode is False
    assert loss.getAxis("left").minimumWidth() == DEFAULT.metrics.plot_axis_w
    window.show_view("tokens")
    back = _argb(tokens_view.grab().toImage())
    assert _count(back, DEFAULT.colours.segment_a.fill) > 100
    assert _count(back, PRESENTATION.colours.segment_a.fill) == 0


def test_a_window_opens_in_presentation_mode_when_the_settings_say_so(open_window, restore_style):
    from lm_workbench.settings import Settings

    window = open_window(settings=Settings(presentation_mode=True))
    assert is_presentation(theme.current()) and window.actions_.presentation.isChecked()
    assert not window.model_dock.isVisible() and not window.menuBar().isVisible()  # folded away
    window.close()
    assert theme.current() is DEFAULT  # the next window starts from the default tokens


def test_page_down_and_up_reach_the_pushed_stepper_only(open_window, qtbot):
    window = open_window()
    _activate(qtbot, window)
    editor = window.text_input.editor
    editor.setFocus()
    editor.setPlainText("\n".join(f"line {i}" for i in range(200)))
    editor.moveCursor(editor.textCursor().MoveOperation.Start)
    qtbot.keyClick(editor, Qt.Key.Key_PageDown)  # nothing pushed: the text box keeps its PageDown
    assert window.clicker.active() is None and editor.textCursor().blockNumber() > 0
    first, second = Recorder(), Recorder()
    window.clicker.push(first)
    window.clicker.push(second)
    line = editor.textCursor().blockNumber()
    qtbot.keyClick(editor, Qt.Key.Key_PageDown)  # a stepper is pushed: the clicker steps, even from the text box
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    assert second.calls == ["next", "previous"] and first.calls == []
    assert editor.textCursor().blockNumber() == line
    window.clicker.remove(second)
    qtbot.keyClick(window, Qt.Key.Key_PageDown)
    assert first.calls == ["next"] and second.calls == ["next", "previous"]
    with pytest.raises(TypeError):
        window.clicker.push(object())


def test_view_pictures_go_to_the_clipboard_and_files_in_the_current_theme(open_window, qtbot, tiny_models,
                                                                             tmp_path, restore_style):
    window = open_window(str(tiny_models["bert"]), "tokens")
    window.text_input.set_text(SENTENCE)
    tokens_view = window.view("tokens").view
    qtbot.waitUntil(lambda: bool(tokens_view.tokens()), timeout=30000)
    clipboard = QGuiApplication.clipboard()
    clipboard.clear()
    _activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    image = clipboard.image()
    assert not image.isNull() and image.width() > 100
    assert _count(_argb(image), DEFAULT.colours.segment_a.fill) > 100

    window.presentation.set_on(True)
    qtbot.wait(50)
    assert window.copy_view_picture()
    shown = _argb(clipboard.image())
    assert _count(shown, PRESENTATION.colours.segment_a.fill) > 100
    assert _count(shown, DEFAULT.colours.segment_a.fill) == 0
    saved = window.export_view(tmp_path / "tokens.png")
    from_file = _argb(QImage(str(saved)))
    assert _count(from_file, PRESENTATION.colours.segment_a.fill) > 100
    corner = QColor(QImage(str(saved)).pixel(2, 2)).name()
    assert corner == PRESENTATION.colours.base_bg
    svg = window.export_view(tmp_path / "tokens.svg").read_text(encoding="utf-8")
    assert PRESENTATION.colours.segment_a.fill in svg.lower() and DEFAULT.colours.segment_a.fill not in svg.lower()
