"""Numbers and words printed on coloured cells, readable: the ink that contrasts more with the cell, and
where neither ink reaches the theme's ``cell_text_contrast`` (7:1 in presentation mode, WCAG's AAA; the
default theme asks for none) a plate in the background colour behind the text, so mid-viridis cells stay legible on a projector.

``cell_ink`` decides; ``draw_cell_text`` paints (custom-painted cells); ``PlateDelegate`` does it for a
table whose model gives a ``BackgroundRole`` colour (the logit lens).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from lm_workbench.ui import theme


def cell_ink(fill: QColor) -> tuple[QColor, QColor | None]:
    """(text colour, plate colour or None) for text on a cell filled with ``fill``."""
    c, m = theme.current().colours, theme.current().metrics
    ink = theme.readable_ink(fill)
    if theme.contrast(ink, fill) >= m.cell_text_contrast:
        return ink, None
    plate = QColor(c.base_bg)
    return theme.readable_ink(plate), plate


def plate_rect(cell: QRectF, text: str, metrics: QFontMetricsF) -> QRectF:
    """The plate behind ``text`` centred in ``cell``: the text's box and a little room, within the cell."""
    pad = theme.current().metrics.tight_spacing
    box = metrics.boundingRect(cell, int(Qt.AlignmentFlag.AlignCenter), text)
    return box.adjusted(-pad, 0, pad, 0).intersected(cell.adjusted(1, 1, -1, -1))


def draw_cell_text(painter: QPainter, cell: QRectF, text: str, fill: QColor, metrics: QFontMetricsF) -> None:
    """``text`` centred on a cell filled with ``fill``, on a plate where the ink alone is not readable enough."""
    ink, plate = cell_ink(fill)
    if plate is not None:
        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(plate)
        radius = theme.current().metrics.radius
        painter.drawRoundedRect(plate_rect(cell, text, metrics), radius, radius)
        painter.restore()
    painter.setPen(ink)
    painter.drawText(cell, Qt.AlignmentFlag.AlignCenter, text)


class PlateDelegate(QStyledItemDelegate):
    """Paints a cell's background colour and its text readably (``draw_cell_text``); selection and focus as
    the style draws them."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        fill = index.data(Qt.ItemDataRole.BackgroundRole)
        if not isinstance(fill, QColor) or cell_ink(fill)[1] is None:
            super().paint(painter, option, index)
            return
        painter.save()
        painter.fillRect(option.rect, fill)
        font = index.data(Qt.ItemDataRole.FontRole) or option.font
        painter.setFont(font)
        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        draw_cell_text(painter, QRectF(option.rect), text, fill, QFontMetricsF(font))
        if option.state & QStyle.StateFlag.State_Selected:
            pen_colour = QColor(theme.current().colours.highlight)
            painter.setPen(pen_colour)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRect(option.rect).adjusted(0, 0, -1, -1))
        painter.restore()
