"""A table of candidate tokens with their probabilities, drawn as bars.

``CandidateModel`` holds ``lm_workbench.engine.predictions.Candidate`` rows (rank, token,
id, probability); ``ProbabilityDelegate`` paints the probability column as a
bar with the number beside it. ``candidate_table()`` returns a configured
``QTableView``.
"""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QRectF, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView, QApplication, QHeaderView, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTableView,
)

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.token_layout import display_label

COLUMNS = ["#", "token", "id", "probability"]
PROB = 3


class CandidateModel(QAbstractTableModel):
    def __init__(self, candidates: Sequence[Any] = (), parent=None):
        super().__init__(parent)
        self._rows = list(candidates)

    def set_candidates(self, candidates: Sequence[Any]) -> None:
        self.beginResetModel()
        self._rows = list(candidates)
        self.endResetModel()

    def candidates(self) -> list[Any]:
        return list(self._rows)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        c = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return [str(index.row() + 1), display_label(c.token), str(c.id), f"{c.prob:.4f}"][col]
        if role == Qt.ItemDataRole.UserRole:
            return c.prob
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{c.token!r} · id {c.id} · p = {c.prob:.6f}"
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (0, 2):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class ProbabilityDelegate(QStyledItemDelegate):
    """A bar as long as the probability (of the full width = 1) and the number."""

    def paint(self, painter: QPainter, option, index: QModelIndex) -> None:
        prob = float(index.data(Qt.ItemDataRole.UserRole) or 0.0)
        rect = QRectF(option.rect).adjusted(4, 5, -4, -5)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""  # the background (selection, alternate rows) only
        style = opt.widget.style() if opt.widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        painter.save()
        c = theme.current().colours
        painter.fillRect(QRectF(rect.left(), rect.top(), rect.width() * 0.6, rect.height()), QColor(c.prob_bar_track))
        painter.fillRect(QRectF(rect.left(), rect.top(), rect.width() * 0.6 * min(prob, 1.0), rect.height()),
                         QColor(c.prob_bar))
        painter.setPen(QColor(c.ink))
        text_rect = QRectF(rect.left() + rect.width() * 0.6 + 6, option.rect.top(), rect.width() * 0.4,
                           option.rect.height())
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), f"{prob:.4f}")
        painter.restore()


def candidate_table(model: CandidateModel) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setItemDelegateForColumn(PROB, ProbabilityDelegate(view))
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.verticalHeader().hide()
    view.setAlternatingRowColors(True)
    header = view.horizontalHeader()
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
    header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(PROB, QHeaderView.ResizeMode.Fixed)
    header.resizeSection(PROB, theme.current().metrics.prob_column_w)
    theme.bind(header, lambda w, m: w.setMinimumSectionSize(m.min_column_w))
    return view
