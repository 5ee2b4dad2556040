"""The lecture's caption bar: "Step i/n: caption", with Previous, Next and End (shown while a preset runs)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QFrame, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import row
from lm_workbench.ui.widgets.controls import button, label

CAPTION_LINES = 2  # the caption bar's height, in lines of the caption (longer captions make it taller)


class LectureBar(QFrame):
    previous_requested = Signal()
    next_requested = Signal()
    end_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("lectureBar")
        self.caption = label(name="lectureCaption", wrap=True)
        self.previous_button = button("◀ Previous", tip="The previous step (PageUp)", clicked=self.previous_requested)
        self.next_button = button("Next ▶", tip="The next step (PageDown)", clicked=self.next_requested)
        self.end_button = button("End", tip="Stop the lecture (the views keep what they show)",
                                 clicked=self.end_requested)
        row((self.caption, 1), self.previous_button, self.next_button, self.end_button, owner=self,
            margins="panel_margins")
        theme.follow(self, self._apply_tokens)
        self._apply_tokens()
        self.hide()

    def _apply_tokens(self) -> None:
        t = theme.current()
        self.setStyleSheet(theme.banner_css("QFrame#lectureBar", t.colours.info, t.metrics.banner_padding))
        font = theme.sized_font(self.font(), t.fonts.lecture_caption_delta)
        self.caption.setFont(font)
        # room for two lines always: the views below do not jump as captions go from one line to two
        self.caption.setMinimumHeight(CAPTION_LINES * QFontMetrics(font).lineSpacing())

    def show_step(self, title: str, caption: str, index: int, count: int, available: bool) -> None:
        self.setToolTip(title)
        self.caption.setText(caption)
        self.caption.setEnabled(available)
        self.previous_button.setEnabled(index > 0)
        self.next_button.setEnabled(index < count - 1)
        self.show()

    def text(self) -> str:
        return self.caption.text()
