"""Token chips painted in one widget that wraps to its width: the masking lab's preview grid and the instruction
tuner's trained-token strip. ``ChipCanvas`` holds what they share (laying out again when the width changes, the
height that follows, hover tips, the base paint); ``ChipLegend`` names the chips' kinds in the theme's
``mask_kinds`` colours; ``short_label`` is a token as a chip shows it."""

from __future__ import annotations

from typing import Callable, Iterable

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.hover import HoverTips
from lm_workbench.ui.widgets.token_layout import display_label

MARGIN = 6  # pixels around the chips
MAX_CELL_TEXT = 18  # characters a chip shows (then …)


def short_label(text: str) -> str:
    """``text`` as a chip shows it: its display label, at most ``MAX_CELL_TEXT`` characters."""
    text = display_label(text) if text else ""
    return text if len(text) <= MAX_CELL_TEXT else text[: MAX_CELL_TEXT - 1] + "…"


def legend_html(kinds: Iterable[tuple[str, str]]) -> str:
    """Rich text naming each (kind, name) in its ``mask_kinds`` chip colours."""
    chips = theme.current().colours.mask_kinds
    parts = []
    for kind, name in kinds:
        fill, _border, ink = chips.get(kind)
        parts.append(f'<span style="background:{fill}; color:{ink};">&nbsp;{name}&nbsp;</span>')
    return "&nbsp; ".join(parts)


class ChipLegend(QLabel):
    """The chips' legend (``html()``, drawn again when the theme changes), wrapped."""

    def __init__(self, html: Callable[[], str], parent: QWidget | None = None):
        super().__init__(parent)
        self._html = html
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)
        self.setText(html())
        theme.follow(self, lambda: self.setText(self._html()))


class ChipCanvas(HoverTips, QWidget):
    """A widget that lays its chips out for its width (``_relayout(width)``, which ends with ``_laid_out``) and
    paints them (``_begin_paint``). ``HINT_WIDTH``: the width its size hint asks for (pixels)."""

    HINT_WIDTH = 480

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self._height = 2 * MARGIN
        self._laid_out_for = -1
        self.setMinimumHeight(theme.current().metrics.mask_cell_h + 2 * MARGIN)
        theme.follow(self, self._apply_tokens)

    def _apply_tokens(self) -> None:
        """The theme changed: lay out and paint again."""
        self._relayout(self.width())
        self.update()

    def _relayout(self, width: int) -> None:
        raise NotImplementedError

    def _laid_out(self, width: int, height: int) -> None:
        """The layout for ``width`` is done and needs ``height`` pixels: the minimum height follows."""
        self._height = height
        self._laid_out_for = width
        if self.minimumHeight() != height:
            self.setMinimumHeight(height)
            self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.HINT_WIDTH, self._height)

    def resizeEvent(self, event) -> None:  # noqa: N802
        if event.size().width() != self._laid_out_for:
            self._relayout(event.size().width())
        super().resizeEvent(event)

    def _begin_paint(self) -> tuple[QPainter, object, object]:
        """A painter on the laid-out widget, its background filled: (painter, theme colours, theme metrics)."""
        if self._laid_out_for != self.width():
            self._relayout(self.width())
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        c, m = theme.current().colours, theme.current().metrics
        painter.fillRect(self.rect(), QColor(c.base_bg))
        return painter, c, m
