"""Hover and tooltip for the hand-drawn widgets (token chips, token stream, masking grid, heatmap).

Such a widget paints its parts (chips, cells) itself, so Qt cannot tell which
part the mouse is over. ``HoverTips`` does the common part: the widget says
which part is at a point (``part_at``) and what its tooltip says
(``part_tip``); the mixin keeps the hovered part (``hovered_part``, drawn
outlined by the widget's paint), repaints when it changes, clears it when the
mouse leaves, and shows or hides the tooltip. ``hover_text()`` is the text of
the hovered part ("" when none).

By default the tooltip follows Qt's tooltip event (after the usual delay),
held while the mouse stays in ``part_tip_rect`` when the widget gives one;
with ``tip_on_move`` it is shown at once as the mouse moves from part to part.
``hover_changed`` is called after each change (a widget that reports its hover
line elsewhere overrides it). Put the mixin before ``QWidget`` in the bases,
and turn mouse tracking on.
"""

from __future__ import annotations

from typing import Hashable

from PySide6.QtCore import QEvent, QPointF, QRect
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QToolTip


class HoverTips:
    """Mixin for a QWidget subclass that draws its parts itself; see the module docstring."""

    tip_on_move = False
    _hover: Hashable | None = None

    # ------------------------------------------------- what a widget provides
    def part_at(self, pos: QPointF) -> Hashable | None:
        """The part under ``pos`` (widget coordinates), None when none."""
        raise NotImplementedError

    def part_tip(self, part: Hashable) -> str:
        """The tooltip of ``part`` (rich text allowed; "" shows none)."""
        raise NotImplementedError

    def part_tip_rect(self, part: Hashable) -> QRect | None:
        """The area the tooltip of ``part`` stays up in (None: until the mouse moves away from the widget)."""
        return None

    def hover_changed(self) -> None:
        """Called after the hovered part changed (the widget has been asked to repaint)."""

    # ------------------------------------------------------------------- API
    def hovered_part(self) -> Hashable | None:
        return self._hover

    def hover_text(self) -> str:
        """The tooltip of the hovered part ("" when none)."""
        return "" if self._hover is None else self.part_tip(self._hover)

    def forget_hover(self) -> None:
        """Drop the hovered part without repainting (for a widget whose content is being replaced)."""
        self._hover = None

    # ---------------------------------------------------------------- events
    def _set_hover(self, part: Hashable | None) -> bool:
        if part == self._hover:
            return False
        self._hover = part
        self.update()
        self.hover_changed()
        return True

    def event(self, event: QEvent) -> bool:  # noqa: D102
        if not self.tip_on_move and event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            part = self.part_at(QPointF(event.pos()))
            text = "" if part is None else self.part_tip(part)
            if text:
                rect = self.part_tip_rect(part)
                if rect is None:
                    QToolTip.showText(event.globalPos(), text, self)
                else:
                    QToolTip.showText(event.globalPos(), text, self, rect)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        if self._set_hover(self.part_at(event.position())) and self.tip_on_move:
            text = self.hover_text()
            if text:
                QToolTip.showText(event.globalPosition().toPoint(), text, self)
            else:
                QToolTip.hideText()
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:  # noqa: N802
        self._set_hover(None)
        super().leaveEvent(event)
