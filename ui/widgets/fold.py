"""Rows that fit the width they get instead of widening the window (presentation mode on a small screen).

``FlowLayout`` places its items left to right and wraps them to the next line, like words; ``FoldRow`` and
``FoldSplitter`` lay out their children side by side while they fit and one above the other when they do
not; ``ColumnScroll`` scrolls a column up and down, never sideways. None of them asks for more width than its widest child, so a view built of them never needs a
horizontal scroll bar.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QBoxLayout, QFrame, QLayout, QLayoutItem, QScrollArea, QSizePolicy, QSplitter, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.theme_tokens import Metrics
from lm_workbench.ui.widgets.boxes import row


class FlowLayout(QLayout):
    """Items left to right, wrapped to the width (each at its size hint, shrunk to the width if wider)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 (Qt API)
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def spacing(self) -> int:
        return theme.current().metrics.group_spacing

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802
        """Every item on one line (what it would like); it takes less and wraps."""
        items = self._visible()
        left, top, right, bottom = self.getContentsMargins()
        width = sum(item.sizeHint().width() for item in items) + self.spacing() * max(len(items) - 1, 0)
        height = max((item.sizeHint().height() for item in items), default=0)
        return QSize(width + left + right, height + top + bottom)

    def minimumSize(self) -> QSize:  # noqa: N802
        size = QSize()
        for item in self._visible():
            size = size.expandedTo(item.minimumSize())
        left, top, right, bottom = self.getContentsMargins()
        return size + QSize(left + right, top + bottom)

    def _visible(self) -> list[QLayoutItem]:
        return [item for item in self._items if not item.isEmpty()]

    def _place(self, rect: QRect, move: bool) -> int:
        left, top, right, bottom = self.getContentsMargins()
        area = rect.adjusted(left, top, -right, -bottom)
        x, y, line_h, gap = area.x(), area.y(), 0, self.spacing()
        for item in self._visible():
            hint = item.sizeHint()
            width = max(min(hint.width(), area.width()), item.minimumSize().width())
            if x > area.x() and x + width > area.right() + 1:
                x, y, line_h = area.x(), y + line_h + gap, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), QSize(width, hint.height())))
            x += width + gap
            line_h = max(line_h, hint.height())
        return y + line_h - rect.y() + bottom


def labelled(*widgets: QWidget) -> QWidget:
    """``widgets`` side by side in one box, kept together on a flow layout's line (a label and its field)."""
    box = QWidget()
    row(*widgets, owner=box, spacing="row_spacing")
    box.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
    return box


class FoldRow(QWidget):
    """Children side by side while their minimum widths fit, else one above the other."""

    folded = Signal(bool)  # one above the other now (or side by side again)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self.box.setContentsMargins(0, 0, 0, 0)
        self.box.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)

    def addWidget(self, widget: QWidget, stretch: int = 0) -> None:  # noqa: N802
        self.box.addWidget(widget, stretch)

    def _children(self) -> list[QWidget]:
        items = (self.box.itemAt(i) for i in range(self.box.count()))
        return [item.widget() for item in items if item.widget() is not None and not item.widget().isHidden()]

    def side_by_side_width(self) -> int:
        kids = self._children()
        return sum(_min_width(w) for w in kids) + self.box.spacing() * max(len(kids) - 1, 0)

    def is_folded(self) -> bool:
        return self.box.direction() == QBoxLayout.Direction.TopToBottom

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        kids = self._children()
        width = max((_min_width(w) for w in kids), default=0)
        if self.is_folded():
            height = sum(w.minimumSizeHint().height() for w in kids) + self.box.spacing() * max(len(kids) - 1, 0)
        else:
            height = max((w.minimumSizeHint().height() for w in kids), default=0)
        return QSize(width, height)

    def resizeEvent(self, event) -> None:  # noqa: N802
        fold = event.size().width() < self.side_by_side_width()
        if fold != self.is_folded():
            self.box.setDirection(QBoxLayout.Direction.TopToBottom if fold else QBoxLayout.Direction.LeftToRight)
            self.updateGeometry()
            self.folded.emit(fold)
        super().resizeEvent(event)


class FoldSplitter(QSplitter):
    """A horizontal splitter that turns vertical while its children's minimum widths do not fit.

    Folded, each child is as tall as it asks, and a child that scrolls (a form in a scroll area) as tall as what
    it holds: the page around the splitter scrolls, once, instead of a scroll bar inside a scroll bar.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(Qt.Orientation.Horizontal, parent)

    def childEvent(self, event) -> None:  # noqa: N802
        super().childEvent(event)
        child = event.child()
        if event.added() and isinstance(child, QWidget):
            # a pane shown or hidden (Fine-tune's Form button): fold or unfold for the panes now shown. A scroll
            # area's content is set later: it is watched from its first layout on (below)
            child.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() in (QEvent.Type.ShowToParent, QEvent.Type.HideToParent) and watched.parent() is self:
            QTimer.singleShot(0, self, self._pane_toggled)
        elif isinstance(watched, QScrollArea) and watched.widget() is not None:
            inner = watched.widget()
            if inner.property("_fold_watched") is None:
                inner.setProperty("_fold_watched", True)
                inner.installEventFilter(self)
        elif event.type() == QEvent.Type.LayoutRequest and (isinstance(watched, QScrollArea)
                                                             or watched.parent() is not self):
            # (a scroll area's content; a pane's own layout requests are not watched: watched for show and hide)
            if self.orientation() == Qt.Orientation.Vertical:
                self.updateGeometry()  # the content grew or shrank: so does the folded page
                QTimer.singleShot(0, self, self._share)
            else:  # side by side: a column whose content grew wider (F5's type) gets that width
                QTimer.singleShot(0, self, self._fit_minimums)  # with self: dropped if the splitter is deleted first
        return False

    def _kids(self) -> list[QWidget]:
        return [self.widget(i) for i in range(self.count()) if not self.widget(i).isHidden()]

    def side_by_side_width(self) -> int:
        kids = self._kids()
        return sum(_min_width(w) for w in kids) + self.handleWidth() * max(len(kids) - 1, 0)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        kids = self._kids()
        width = max((_min_width(w) for w in kids), default=0)
        if self.orientation() == Qt.Orientation.Vertical:  # folded: each as tall as it asks (the page scrolls)
            height = sum(_folded_height(w) for w in kids)
            height += self.handleWidth() * max(len(kids) - 1, 0)
        else:
            height = max((w.minimumSizeHint().height() for w in kids), default=0)
        return QSize(width, height)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._refold(event.size().width())

    def _refold(self, width: int | None = None) -> None:
        """Fold (one above the other) while the panes shown do not fit side by side at ``width`` (the splitter's
        own by default), else unfold. With one pane shown either way looks the same: the orientation is kept,
        so a pane hidden and shown again comes back where it was (issue 49: Fine-tune's results turned from
        stacked to side by side, over the form, when Form was toggled)."""
        if len(self._kids()) < 2:
            return
        fold = (self.width() if width is None else width) < self.side_by_side_width()
        wanted = Qt.Orientation.Vertical if fold else Qt.Orientation.Horizontal
        if wanted != self.orientation():
            self.setOrientation(wanted)
            self.updateGeometry()
            QTimer.singleShot(0, self, self._share)
        elif wanted == Qt.Orientation.Horizontal:
            self._fit_minimums()

    def _pane_toggled(self) -> None:
        turned = self.orientation()
        self._refold()
        if self.orientation() == turned and turned == Qt.Orientation.Vertical and len(self._kids()) > 1:
            self.updateGeometry()  # folded and a pane shown again: each its height again
            self._share()

    def _fit_minimums(self) -> None:
        """Side by side, no child narrower than it needs (QSplitter keeps a width given before a child's need
        grew: the Pre-train form's right edge went under its scroll bar after F5); the room above the needs is
        shared as it was."""
        if self.orientation() != Qt.Orientation.Horizontal or self.count() < 2:
            return
        sizes = self.sizes()
        needs = [_min_width(self.widget(i)) if not self.widget(i).isHidden() else 0 for i in range(self.count())]
        if all(size >= need for size, need in zip(sizes, needs)):
            return
        spare = sum(sizes) - sum(needs)
        if spare < 0:
            return  # it does not fit: the next resize folds it
        slack = [max(size - need, 0) for size, need in zip(sizes, needs)]
        total = sum(slack)
        shares = [spare * s // total for s in slack] if total else [spare // len(sizes)] * len(sizes)
        shares[-1] += spare - sum(shares)
        self.setSizes([need + share for need, share in zip(needs, shares)])

    def _share(self) -> None:
        """After turning: side by side, each child an even share of the width; folded, each child the height
        it asks, what is left to the last."""
        count = self.count()
        if self.orientation() == Qt.Orientation.Horizontal:
            self.setSizes([self.width() // max(count, 1)] * count)
            return
        heights = [_folded_height(self.widget(i)) if not self.widget(i).isHidden() else 0 for i in range(count)]
        spare = self.height() - sum(heights) - self.handleWidth() * max(len(self._kids()) - 1, 0)
        if heights and spare > 0:
            heights[-1] += spare
        self.setSizes(heights)


def _folded_height(widget: QWidget) -> int:
    """How tall ``widget`` asks to be one above the other: a scroll area as tall as its content at its width."""
    if isinstance(widget, QScrollArea) and widget.widget() is not None:
        inner = widget.widget()
        width = max(widget.viewport().width(), inner.minimumSizeHint().width())
        height = inner.heightForWidth(width) if inner.hasHeightForWidth() else -1
        if height <= 0:
            height = inner.sizeHint().height()
        return max(height, inner.minimumSizeHint().height()) + 2 * widget.frameWidth()
    return max(widget.minimumSizeHint().height(), widget.sizeHint().height())


def _min_width(widget: QWidget) -> int:
    return max(widget.minimumSizeHint().width(), widget.minimumWidth())


class ColumnScroll(QScrollArea):
    """A column that scrolls up and down only: never narrower than what it holds needs (plus the scroll bar),
    nor than ``least(metrics)`` when given (a theme token)."""

    def __init__(self, parent: QWidget | None = None, least: Callable[[Metrics], int] | None = None):
        super().__init__(parent)
        self._least = least
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def setWidget(self, widget: QWidget) -> None:  # noqa: N802
        super().setWidget(widget)
        widget.installEventFilter(self)  # its minimum width changes (a font swap): so does this column's

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        hint = super().minimumSizeHint()
        least = self._least(theme.current().metrics) if self._least is not None else 0
        inner = self.widget()
        need = 0 if inner is None else (_min_width(inner) + self.verticalScrollBar().sizeHint().width()
                                         + 2 * self.frameWidth())
        return QSize(max(hint.width(), need, least), hint.height())
