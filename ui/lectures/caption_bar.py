"""The lecture's caption bar: "Step i/n: caption", with Previous, Next and End (shown while a preset runs)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from lm_workbench.ui import theme

CAPTION_LINES = 2  # the caption bar's height, in lines of the caption (longer captions make it taller)


class LectureBar(QFrame):
    previous_requested = Signal()
    next_requested = Signal()
    end_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("lectureBar")
        self.caption = QLabel("")
        self.caption.setObjectName("lectureCaption")
        self.caption.setWordWrap(True)
        self.previous_button = QPushButton("◀ Previous")
        self.previous_button.setToolTip("The previous step (PageUp)")
        self.next_button = QPushButton("Next ▶")
        self.next_button.setToolTip("The next step (PageDown)")
        self.end_button = QPushButton("End")
        self.end_button.setToolTip("Stop the lecture (the views keep what they show)")
        row = QHBoxLayout(self)
        theme.bind(row, lambda w, m: w.setContentsMargins(*m.panel_margins))
        row.addWidget(self.caption, 1)
        for button in (self.previous_button, self.next_button, self.end_button):
            row.addWidget(button)
        theme.follow(self, self._apply_tokens)
        self._apply_tokens()
        self.previous_button.clicked.connect(self.previous_requested)
        self.next_button.clicked.connect(self.next_requested)
        self.end_button.clicked.connect(self.end_requested)
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
