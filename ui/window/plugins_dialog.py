"""The Plugins dialog: every plugin, of every kind, with its source, status and error.

Entry-point plugins (the built-ins and installed packages) are listed as
found. Folder plugins from the user's plugins folder are code, so they stay
off until ticked here; ticking one adds it to ``settings.enabled_plugins``
and discovers again, which imports it (a failure shows as its error, and
nothing else breaks). Discovery imports plugins, so it runs on the window's
job lane, never on the Qt thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QBrush, QColor, QDesktopServices
from PySide6.QtWidgets import (
    QDialog, QDialogButtonBox, QHeaderView, QLabel, QTableWidget, QTableWidgetItem,
)

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import column
from lm_workbench.ui.widgets.controls import button
from lm_workbench.settings import save_settings

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from lm_workbench.ui.view_kit.job_bridge import JobBridge
    from lm_workbench.settings import Settings

COLUMNS = ["Enabled", "Name", "Kind", "Version", "API", "Families", "Source", "Status", "Error"]


def _discover(settings: Any, cancel: Any) -> list[dict]:
    from lm_workbench.extensions.discovery import discover

    cancel.check()
    return [r.to_dict() for r in discover(settings)]


class PluginsDialog(QDialog):
    def __init__(self, settings: Settings, jobs: JobBridge, *, persist: bool = True, parent: QWidget | None = None):
        super().__init__(parent)
        self._settings = settings
        self._jobs = jobs
        self._persist = persist  # save the settings when a plugin is enabled (False in tests)
        self.records: list[dict] = []
        self.setWindowTitle("Plugins")
        self.resize(*theme.current().metrics.plugins_dialog_size)
        from lm_workbench.paths import plugins_dir

        self.folder = plugins_dir()
        intro = QLabel(
            f"Plugins from installed packages are listed as found. Plugins in <code>{self.folder}</code> "
            "are code: they run only once you tick <b>Enabled</b>."
        )
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.RichText)
        self.table = QTableWidget(0, len(COLUMNS))
        theme.bind(self.table, lambda w, _m: w.resizeColumnsToContents())  # F5 on and off: the new type size
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.itemChanged.connect(self._item_changed)
        self.status = QLabel("Looking for plugins…")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.open_folder_button = button("Open plugins folder", clicked=lambda: QDesktopServices.openUrl(
            QUrl.fromLocalFile(str(self.folder))))
        self.refresh_button = button("Refresh", clicked=self.refresh)
        buttons.addButton(self.open_folder_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.refresh_button, QDialogButtonBox.ButtonRole.ActionRole)
        column(self, intro, (self.table, 1), self.status, buttons, margins=None, spacing=None)
        self._filling = False
        self.refresh()

    def refresh(self) -> None:
        self.status.setText("Looking for plugins…")
        self.refresh_button.setEnabled(False)
        settings = self._settings
        self._jobs.run(lambda cancel: _discover(settings, cancel), name="plugins",
                              on_done=self._show, on_error=self._failed, label="Looking for plugins…")

    def _failed(self, exc: BaseException, tb: str) -> None:
        self.refresh_button.setEnabled(True)
        self.status.setText(f"Could not list plugins: {exc}")

    def _show(self, records: list[dict]) -> None:
        self.records = records
        self.refresh_button.setEnabled(True)
        self._filling = True
        self.table.setRowCount(len(records))
        enabled = set(self._settings.enabled_plugins)
        for row, rec in enumerate(records):
            check = QTableWidgetItem()
            if rec["source"] == "folder":
                check.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
                check.setCheckState(Qt.CheckState.Checked if rec["name"] in enabled else Qt.CheckState.Unchecked)
                check.setToolTip("A folder plugin runs its own code once enabled")
            else:
                check.setFlags(Qt.ItemFlag.ItemIsEnabled)
                check.setText("always")
                check.setToolTip("Installed packages are enabled by installing them")
            cells = [check, rec["name"], rec["kind"], rec["version"], str(rec["api_version"] or ""),
                     ", ".join(rec["families"]), rec["source"], rec["status"], rec["error"] or ""]
            for col, value in enumerate(cells):
                item = value if isinstance(value, QTableWidgetItem) else QTableWidgetItem(value)
                if col == 7:
                    item.setForeground(QBrush(QColor(theme.current().colours.plugin_status(rec["status"]))))
                if col == 8 and rec["error"]:
                    item.setToolTip(rec["error"])
                if col == 1:
                    item.setToolTip(rec["location"])
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()
        self._filling = False
        errors = sum(1 for r in records if r["status"] == "error")
        self.status.setText(f"{len(records)} plugin(s); {errors} with an error" if errors else
                            f"{len(records)} plugin(s), all fine")

    def _item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != 0:
            return
        name = self.records[item.row()]["name"]
        settings = self._settings
        wanted = item.checkState() == Qt.CheckState.Checked
        names = [n for n in settings.enabled_plugins if n != name] + ([name] if wanted else [])
        settings.enabled_plugins = names
        if self._persist:
            save_settings(settings)
        self.refresh()

    def row_of(self, name: str) -> int:
        return next(i for i, r in enumerate(self.records) if r["name"] == name)
