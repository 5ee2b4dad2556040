"""The start page: the lecture presets (with why one cannot run here) and the recent workspaces.

Opened from Lectures > Start page (Ctrl+Shift+L); a double click (or Open)
starts a preset or opens a workspace.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from lm_workbench.ui.widgets.boxes import row
from lm_workbench.ui.widgets.controls import button, label

if TYPE_CHECKING:
    from lm_workbench.ui.lectures.services import StartPageServices

ROLE = Qt.ItemDataRole.UserRole


class StartPage(QDialog):
    def __init__(self, services: StartPageServices, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Start: lectures and workspaces")
        self.services = services
        self.presets = QListWidget()
        self.presets.setObjectName("startPresets")
        for preset in services.presets:
            status = services.status(preset)
            text = f"{preset.title}  ({len(preset.steps)} steps)"
            item = QListWidgetItem(text if status.available else f"{text}: not available, {status.reason}")
            item.setData(ROLE, preset)
            item.setToolTip(preset.description if status.available else status.reason)
            if not status.available:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
            self.presets.addItem(item)
        self.workspaces = QListWidget()
        self.workspaces.setObjectName("startWorkspaces")
        for listing in (self.presets, self.workspaces):  # long reasons wrap instead of scrolling sideways
            listing.setWordWrap(True)
            listing.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for path in services.recent_workspaces:
            item = QListWidgetItem(f"{Path(path).name}  ({Path(path).parent})")
            item.setData(ROLE, path)
            item.setToolTip(path)
            if not Path(path).is_file():
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
                item.setText(f"{item.text()}: missing")
            self.workspaces.addItem(item)
        if not services.recent_workspaces:
            note = QListWidgetItem("No workspace saved yet: File > Save workspace (Ctrl+S).")
            note.setFlags(Qt.ItemFlag.NoItemFlags)
            self.workspaces.addItem(note)
        open_preset = button("Open preset file…", clicked=lambda: self._then(services.open_preset_file()))
        open_workspace = button("Open workspace…", clicked=lambda: self._then(services.open_workspace()))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        layout = QVBoxLayout(self)
        # the presets take the height; the workspaces' box is as tall as its rows (two at least): five preset rows
        # stood above an empty box before (issue 49, cosmetic)
        for title, widget, stretch in (("Lecture presets", self.presets, 1), ("Recent workspaces", self.workspaces, 0)):
            layout.addWidget(label(title, name="sectionTitle"))
            layout.addWidget(widget, stretch)
        self._fit_workspaces()
        layout.addLayout(row(open_preset, open_workspace, 1, buttons))
        self.presets.itemActivated.connect(self._start_preset)
        self.workspaces.itemActivated.connect(self._open_workspace)
        buttons.rejected.connect(self.reject)

    def _fit_workspaces(self) -> None:
        rows = max(2, min(6, self.workspaces.count()))
        row = max([self.workspaces.sizeHintForRow(r) for r in range(self.workspaces.count())] or [0])
        row = max(row, self.workspaces.fontMetrics().lineSpacing() + 6)
        self.workspaces.setMaximumHeight(rows * row + 2 * self.workspaces.frameWidth() + 6)

    def _then(self, done: object) -> None:
        if done:
            self.accept()

    def _start_preset(self, item: QListWidgetItem) -> None:
        preset = item.data(ROLE)
        if preset is not None and self.services.start(preset):
            self.accept()

    def _open_workspace(self, item: QListWidgetItem) -> None:
        path = item.data(ROLE)
        if path:
            self._then(self.services.open_workspace(path))
