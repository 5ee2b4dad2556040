"""The runs table's model: one row per run of any kind, sortable on every column.

Rows are built from the run store's rows (``RunStore.list_runs``) and the
last value of each metric (``MetricsReader.summaries``). Each cell has a
display text and a sort key (``SORT_ROLE``: numbers sort as numbers, empty
cells last). ``set_runs`` updates the rows in place when the same runs are
shown again (a refresh while runs are active), so the selection and the
sort order survive; only a new or deleted run resets the model.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.header_lines import FULL_TITLE, HeaderTitles

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
RUN_ID_ROLE = Qt.ItemDataRole.UserRole + 2


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    tip: str = ""


COLUMNS = (
    Column("id", "#", "The run's number in the run store"),
    Column("name", "Name"),
    Column("kind", "Kind", "pretrain, finetune, probe, evaluation…"),
    Column("status", "Status", "queued, running, finished, failed, cancelled, or interrupted (its process died)"),
    Column("model", "Model"),
    Column("method", "Objective / method"),
    Column("steps", "Steps", "The last step that logged a metric"),
    Column("loss", "Loss", "The last training loss logged"),
    Column("validation_loss", "Val. loss", "The last validation loss logged"),
    Column("duration", "Duration", "From the start of its process to its end (or now)"),
    Column("created", "Created"),
)
COLUMN_INDEX = {c.key: i for i, c in enumerate(COLUMNS)}


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    seconds = int(round(max(0.0, seconds)))
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def run_duration(run: dict[str, Any], now: float | None = None) -> float | None:
    start = run.get("started_at")
    if start is None:
        return None
    end = run.get("finished_at") or (now if now is not None else time.time())
    return float(end) - float(start)


def table_row(run: dict[str, Any], summary: dict[str, float], now: float | None = None) -> dict[str, Any]:
    """The raw values of one run's row (numbers stay numbers)."""
    return {
        "id": int(run["id"]), "name": run.get("name") or "", "kind": run.get("kind") or "",
        "status": run.get("status") or "", "model": run.get("model") or "", "method": run.get("method") or "",
        "steps": int(summary["_steps"]) if "_steps" in summary else None,
        "loss": summary.get("loss"), "validation_loss": summary.get("validation_loss"),
        "duration": run_duration(run, now), "created": run.get("created_at"),
        "error": run.get("error") or "",
    }


def display(key: str, value: Any) -> str:
    if value is None or value == "":
        return ""
    if key in ("loss", "validation_loss"):
        return f"{value:.4f}"
    if key == "duration":
        return format_duration(value)
    if key == "created":
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(value))
    return str(value)


class RunTableModel(QAbstractTableModel):
    """Rows of runs; ``rows[i]`` is a dict from ``table_row``."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[dict[str, Any]] = []
        self.titles = HeaderTitles()  # a title too wide for its column shows on two lines (``wrap_header_labels``)

    # ------------------------------------------------------------- Qt API
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.titles.shown(section, COLUMNS[section].title)
        if role == FULL_TITLE:
            return COLUMNS[section].title
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section].tip or COLUMNS[section].title
        return None

    def setHeaderData(self, section: int, orientation: Qt.Orientation, value: Any,  # noqa: N802
                      role: int = Qt.ItemDataRole.EditRole) -> bool:
        """The text a title shows (``wrap_header_labels`` breaks a title too wide for its column)."""
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS) \
                or role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return False
        return self.titles.set(self, section, str(value))

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        key = COLUMNS[index.column()].key
        value = row.get(key)
        if role == Qt.ItemDataRole.DisplayRole:
            return display(key, value)
        if role == SORT_ROLE:
            if value is None or value == "":
                return None
            return value
        if role == RUN_ID_ROLE:
            return row["id"]
        if role == Qt.ItemDataRole.ForegroundRole and key == "status":
            return QColor(theme.current().colours.run_status(str(value)))
        if role == Qt.ItemDataRole.ToolTipRole:
            if key == "status" and row["error"]:
                return f"{value}: {row['error']}"
            if key in ("name", "model", "method"):
                return str(value) or None
        if role == Qt.ItemDataRole.TextAlignmentRole and key in ("id", "steps", "loss", "validation_loss",
                                                                "duration"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    # ---------------------------------------------------------------- rows
    def set_runs(self, rows: list[dict[str, Any]]) -> bool:
        """Show ``rows``; True when the model was reset (a run appeared or vanished)."""
        if [r["id"] for r in rows] == [r["id"] for r in self.rows]:
            changed = [i for i, (old, new) in enumerate(zip(self.rows, rows)) if old != new]
            self.rows = rows
            if changed:
                self.dataChanged.emit(self.index(min(changed), 0),
                                      self.index(max(changed), len(COLUMNS) - 1))
            return False
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()
        return True

    def row_of(self, run_id: int) -> int:
        return next((i for i, r in enumerate(self.rows) if r["id"] == run_id), -1)
