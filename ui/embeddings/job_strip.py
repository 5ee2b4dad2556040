"""A slim progress line for the tab's jobs: what runs, how far it is, and Cancel."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QProgressBar, QWidget

from lm_workbench.engine.progress import Progress

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import row
from lm_workbench.ui.widgets.controls import button, label


class JobStrip(QWidget):
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = label("", name="summary")
        self.bar = QProgressBar()
        theme.bind(self, lambda w, m: w.bar.setMaximumWidth(m.job_strip_w))
        theme.bind(self, lambda w, m: w.bar.setMaximumHeight(m.progress_bar_h))
        self.bar.setTextVisible(False)
        self.cancel_button = button("Cancel", clicked=self.cancel_requested)
        row((self.label, 1), self.bar, self.cancel_button, owner=self)
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
