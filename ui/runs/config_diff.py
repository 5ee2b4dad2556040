"""Two runs' settings side by side, the keys whose values differ highlighted.

Params are nested dicts (a pre-training run's ``training`` and
``objective_config``); they are flattened to dotted keys (``training.lr``)
so every setting is one row. A key one run lacks shows as empty and counts
as different. "Only differences" hides the rows that agree.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QCheckBox, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from lm_workbench.runs.params_diff import flatten
from lm_workbench.ui import theme
from lm_workbench.ui.widgets.controls import label
from lm_workbench.ui.widgets.boxes import flush_column

MISSING = object()


def cell_text(value: Any) -> str:
    if value is MISSING:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str)


class ConfigDiff(QWidget):
    """The settings of two runs (A and B) side by side."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = label("Select two runs to compare their settings.", name="summary", wrap=True)
        self.only_diff = QCheckBox("only differences")
        self.only_diff.toggled.connect(lambda *_: self._apply_filter())
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["setting", "A", "B"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setWordWrap(False)
        theme.bind(self, lambda w, m: w.table.verticalHeader().setDefaultSectionSize(m.table_row_h))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        flush_column(self, self.title, self.only_diff, (self.table, 1), spacing="row_spacing")
        self.keys: list[str] = []
        self.differing: set[str] = set()
        self._pair: tuple[dict[str, Any] | None, dict[str, Any] | None] = (None, None)
        theme.follow(self, self._apply_tokens)

    def _apply_tokens(self) -> None:
        self.show_pair(*self._pair)

    def show_pair(self, run_a: dict[str, Any] | None, run_b: dict[str, Any] | None) -> None:
        """Compare two store rows (None, None clears)."""
        self._pair = (run_a, run_b)
        self.table.setRowCount(0)
        self.keys, self.differing = [], set()
        if run_a is None or run_b is None:
            self.title.setText("Select two runs to compare their settings.")
            return
        self.title.setText(f"A = run #{run_a['id']} ({run_a.get('name') or run_a.get('kind')}),  "
                           f"B = run #{run_b['id']} ({run_b.get('name') or run_b.get('kind')})")
        self.table.setHorizontalHeaderLabels(["setting", f"A: #{run_a['id']}", f"B: #{run_b['id']}"])
        a, b = flatten(run_a.get("params") or {}), flatten(run_b.get("params") or {})
        self.keys = sorted(set(a) | set(b))
        self.table.setRowCount(len(self.keys))
        fill = QBrush(QColor(theme.current().colours.config_diff_bg))
        for row, key in enumerate(self.keys):
            va, vb = a.get(key, MISSING), b.get(key, MISSING)
            differs = va is MISSING or vb is MISSING or va != vb
            if differs:
                self.differing.add(key)
            for col, text in enumerate((key, cell_text(va), cell_text(vb))):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if differs:
                    item.setBackground(fill)
                    font = item.font()
                    font.setBold(col == 0)
                    item.setFont(font)
                self.table.setItem(row, col, item)
        self._apply_filter()

    def highlighted_keys(self) -> set[str]:
        """The keys whose rows are highlighted (read back from the table's cells)."""
        fill = QColor(theme.current().colours.config_diff_bg)
        return {self.table.item(r, 0).text() for r in range(self.table.rowCount())
                if self.table.item(r, 0).background().color() == fill}

    def _apply_filter(self) -> None:
        only = self.only_diff.isChecked()
        for row, key in enumerate(self.keys):
            self.table.setRowHidden(row, only and key not in self.differing)
