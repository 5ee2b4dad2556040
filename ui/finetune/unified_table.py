"""Every fine-tuning method as its row of He et al.'s unified view, side by side, exportable (CSV, PNG/SVG).

The table lists the methods in the form's order; the formula column is typeset (rich text), the others
are plain text that sorts. The method chosen in the form is selected. Export writes the table as CSV
(``lm_workbench.finetune.unified_table``: the same cells, the formula in plain Unicode) or a picture of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QDialog, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QWidget,
)

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui.widgets import boxes, controls
from lm_workbench.ui.widgets.export import export_dialog, export_table_dialog, save_widget
from lm_workbench.finetune.unified_table import unified_rows, unified_table

SHOWN = ("title", "functional_form", "insertion", "representation", "composition", "formula", "note")
SHOWN_HEADERS = ("Method", "Δh (functional form)", "Insertion", "Modifies", "Composition", "Formula", "Note")
FORMULA_COLUMN = SHOWN.index("formula")
INTRO = ("He et al. (2022) write adapters, prefix tuning and LoRA as one operation, a change Δh of a hidden "
         "representation h, and tell them apart by Δh's functional form, where it is inserted (sequential: from h "
         "itself; parallel: from the sublayer's input x), which representation it modifies and how it is composed "
         "with h. The methods since fit the same columns.")


class UnifiedTable(QTableWidget):
    """One row per method; ``names`` are the methods' names in row order."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(SHOWN), parent)
        self.names: list[str] = []
        self.setHorizontalHeaderLabels(list(SHOWN_HEADERS))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setWordWrap(True)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)

    def show_methods(self, methods: Mapping[str, Any], configs: Mapping[str, Any] | None = None) -> None:
        rows = unified_rows(methods, configs)
        self.names = [row["method"] for row in rows]
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            method = methods[row["method"]]
            unified = method.unified_for(method.default_config() if not configs or row["method"] not in configs
                                         else configs[row["method"]])
            for c, column in enumerate(SHOWN):
                item = QTableWidgetItem(row[column])
                item.setToolTip(row[column])
                if c > 0:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(r, c, item)
            self.item(r, 0).setToolTip(f"{row['title']} (--method {row['method']})")
            if unified is not None:  # the formula typeset over the plain cell (which CSV and sorting use)
                label = QLabel(unified.typeset())
                label.setTextFormat(Qt.TextFormat.RichText)
                label.setWordWrap(True)
                label.setAutoFillBackground(True)
                boxes.themed(label, margins="cell_margins")
                self.setCellWidget(r, FORMULA_COLUMN, label)
        widths = (18, 28, 11, 12, 22, 40, 34)  # characters per column
        chars = self.fontMetrics().averageCharWidth()
        for c, width in enumerate(widths):
            self.setColumnWidth(c, width * chars)
        self.resizeRowsToContents()

    def select_method(self, name: str) -> None:
        if name in self.names:
            self.selectRow(self.names.index(name))

    def cells(self) -> list[list[str]]:
        return [[self.item(r, c).text() for c in range(self.columnCount())] for r in range(self.rowCount())]

    def full_width(self) -> int:
        columns = sum(self.columnWidth(c) for c in range(self.columnCount()))
        return columns + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth()

    def full_height(self) -> int:
        rows = sum(self.rowHeight(r) for r in range(self.rowCount()))
        return self.horizontalHeader().height() + rows + 2 * self.frameWidth()


class UnifiedTableDialog(QDialog):
    """The table with Export CSV… and Export picture…; ``show_methods`` fills it, ``select_method`` marks one.
    ``method_clicked`` [name]: a row was clicked (the form chooses that method, and its diagram lights it)."""

    method_clicked = Signal(str)

    def __init__(self, ctx: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.methods: Mapping[str, Any] = {}
        self.configs: Mapping[str, Any] = {}
        self.setWindowTitle("Unified view of the fine-tuning methods (He et al. 2022)")
        intro = controls.label(INTRO, name="summary", wrap=True)
        self.table = UnifiedTable()
        self.csv_button = controls.button("Export CSV…", clicked=lambda: self.export_csv())
        self.picture_button = controls.button("Export picture…", clicked=lambda: self.export_picture())
        close = controls.button("Close", clicked=self.close)
        boxes.column(self, intro, (self.table, 1), boxes.row(self.csv_button, self.picture_button, 1, close),
                     margins=None)
        self.table.cellClicked.connect(lambda row, _column: self._clicked(row))

    def _clicked(self, row: int) -> None:
        if 0 <= row < len(self.table.names):
            self.method_clicked.emit(self.table.names[row])

    def show_methods(self, methods: Mapping[str, Any], configs: Mapping[str, Any] | None = None,
                     chosen: str = "") -> None:
        self.methods, self.configs = methods, dict(configs or {})
        self.table.show_methods(methods, self.configs)
        self.table.select_method(chosen)
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        width = self.table.full_width() + 2 * self.layout().contentsMargins().left()
        if screen is not None:
            width = min(width, int(screen.width() * 0.95))
        self.resize(max(self.width(), width), self.height())

    def export_csv(self, path: str | Path | None = None) -> Path | None:
        try:
            return export_table_dialog(self, unified_table(self.methods, self.configs), path,
                                       "finetune-methods-unified-view.csv", "Export the unified view")
        except (WorkbenchError, OSError) as exc:
            self._say(f"Export failed: {exc}")
            return None

    def export_picture(self, path: str | Path | None = None) -> Path | None:
        """A picture of the whole table (every row, however much of it is scrolled out of sight)."""
        table = self.table
        size = table.size()
        table.resize(max(size.width(), table.full_width()), max(size.height(), table.full_height()))
        table.verticalScrollBar().setValue(0)
        table.horizontalScrollBar().setValue(0)
        try:
            if path is None:
                return export_dialog(self, table, str(Path.home() / "finetune-methods-unified-view.png"))
            return save_widget(table, path)
        except (WorkbenchError, OSError) as exc:
            self._say(f"Export failed: {exc}")
            return None
        finally:
            table.resize(size)

    def _say(self, text: str) -> None:
        if self.ctx is not None and hasattr(self.ctx, "show_message"):
            self.ctx.show_message(text, "warning")
