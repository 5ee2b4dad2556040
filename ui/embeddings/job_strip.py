"""A slim progress line for the tab's jobs: what runs, how far it is, and Cancel."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from lm_workbench.engine.progress import Progress

from lm_workbench.ui import theme


class JobStrip(QWidget):
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = QLabel("")
        self.label.setObjectName("summary")
        self.bar = QProgressBar()
        theme.bind(self, lambda w, m: w.bar.setMaximumWidth(m.job_strip_w))
        theme.bind(self, lambda w, m: w.bar.setMaximumHeight(m.progress_bar_h))
        self.bar.setTextVisible(False)
        self.cancel_button = QPushButton("Cancel")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.bar)
        row.addWidget(self.cancel_button)
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.setVisible(False)

    def start(self, label: str) -> None:
        self.label.setText(label)
        self.bar.setRange(0, 0)  # busy until the first report
        self.setVisible(True)

    def progress(self, report: Progress) -> None:
        if report.total > 0:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(report.fraction * 1000))
        if report.message:
            self.label.setText(report.message)

    def finish(self) -> None:
        self.setVisible(False)

    def running(self) -> bool:
        return self.isVisible()
