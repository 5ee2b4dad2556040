"""How the lens grid's columns (one per position) share the width.

Presenting (F5), the positions share the visible width instead of scrolling sideways, as long as each column
still holds a probability whole ("0.0012"); where they would not (a long text, or A | B giving each grid half the
width), the columns keep their own width and the grid scrolls sideways, rather than cutting every cell to "0.…".
Not presenting, the columns keep their width (resizable by hand). Refitted when the grid is resized, gets a new
table, or the theme changes.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QHeaderView, QTableView

from lm_workbench.ui import theme
from lm_workbench.ui.theme_tokens import is_presentation

WIDEST_NUMBER = "0.0000"  # the longest probability a cell writes (``format_prob`` below 0.01)


class LensColumns(QObject):
    def __init__(self, table: QTableView):
        super().__init__(table)
        self._table = table
        self.shared = False  # whether the columns share the width now
        table.viewport().installEventFilter(self)
        table.model().modelReset.connect(self.fit)
        theme.follow(self, self.fit)
        self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def least_width(self) -> int:
        """The narrowest column that shows a probability whole (with a character's margin on each side)."""
        font = self._table.model().data(self._table.model().index(0, 0), Qt.ItemDataRole.FontRole)
        metrics = QFontMetrics(font if isinstance(font, QFont) else self._table.font())
        return metrics.horizontalAdvance(WIDEST_NUMBER) + 2 * metrics.averageCharWidth()

    def fit(self) -> None:
        table, m = self._table, theme.current().metrics
        header = table.horizontalHeader()
        header.setMinimumSectionSize(m.min_column_w)
        header.setDefaultSectionSize(m.lens_cell_w)
        count = table.model().columnCount(QModelIndex())
        share = (is_presentation(theme.current()) and count > 0
                 and count * self.least_width() <= table.viewport().width())
        if share == self.shared and header.sectionResizeMode(0) == self._mode(share):
            return
        was_shared, self.shared = self.shared, share
        header.setSectionResizeMode(self._mode(share))
        table.setHorizontalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAlwaysOff if share else Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        if was_shared and not share:  # the stretched widths would stay: back to the default
            for column in range(count):
                header.resizeSection(column, m.lens_cell_w)

    @staticmethod
    def _mode(share: bool) -> QHeaderView.ResizeMode:
        return QHeaderView.ResizeMode.Stretch if share else QHeaderView.ResizeMode.Interactive
