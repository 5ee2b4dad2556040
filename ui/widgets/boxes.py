"""Box and form layouts in one call: the items in order, and the theme's margins and spacing bound by name (they
follow a theme change, as ``theme.bind`` does). An item is a widget or a layout, ``(item, stretch)``, a number:
that much stretch, or a ``Gap``: a fixed gap of the theme's size."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import (
    QBoxLayout, QFormLayout, QHBoxLayout, QLayout, QSizePolicy, QSpacerItem, QVBoxLayout, QWidget,
)

from lm_workbench.ui import theme


def themed(layout: Any, margins: str | None = None, spacing: str | None = None) -> Any:
    """``layout`` with the theme's ``margins`` (a ``Metrics`` field name, e.g. ``view_margins``) and ``spacing``
    (e.g. ``section_spacing``), kept up to date on theme changes; None leaves Qt's. Returns ``layout``."""
    if margins is not None:
        theme.bind(layout, lambda w, m: w.setContentsMargins(*getattr(m, margins)))
    if spacing is not None:
        theme.bind(layout, lambda w, m: w.setSpacing(getattr(m, spacing)))
    return layout


@dataclass(frozen=True)
class Gap:
    """A fixed gap in a box, as wide (in a row) or as high (in a column) as the theme's ``spacing`` (a ``Metrics``
    field name, e.g. ``wide_spacing``)."""

    spacing: str


def add_gap(layout: QBoxLayout, spacing: str) -> QSpacerItem:
    """A ``Gap(spacing)`` at the end of ``layout``: one spacer, resized in place on a theme change (``addSpacing``
    in a theme binding would add another gap at the end of the box on every change)."""
    gap = QSpacerItem(0, 0)
    layout.addItem(gap)
    along = layout.direction() in (QBoxLayout.Direction.LeftToRight, QBoxLayout.Direction.RightToLeft)
    fixed, free = QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Minimum

    def resize(box: QBoxLayout, metrics: Any) -> None:
        size = getattr(metrics, spacing)
        if along:
            gap.changeSize(size, 0, fixed, free)
        else:
            gap.changeSize(0, size, free, fixed)
        box.invalidate()

    theme.bind(layout, resize)
    return gap


def add_items(layout: QBoxLayout, items: tuple[Any, ...]) -> QBoxLayout:
    """Add ``items`` to ``layout`` in order (see the module's docstring). Returns ``layout``."""
    for item in items:
        stretch = 0
        if isinstance(item, tuple):
            item, stretch = item
        if isinstance(item, Gap):
            add_gap(layout, item.spacing)
        elif isinstance(item, int):
            layout.addStretch(item)
        elif isinstance(item, QLayout):
            layout.addLayout(item, stretch)
        elif isinstance(item, QWidget):
            layout.addWidget(item, stretch)
        else:
            raise TypeError(f"not a widget, layout or stretch: {item!r}")
    return layout


def column(owner: QWidget | None, *items: Any, margins: str | None = "view_margins",
           spacing: str | None = "section_spacing") -> QVBoxLayout:
    """A vertical box of ``items`` (installed on ``owner`` when given), a view's margins and section spacing by
    default."""
    return add_items(themed(QVBoxLayout(owner) if owner is not None else QVBoxLayout(), margins, spacing), items)


def row(*items: Any, owner: QWidget | None = None, margins: str | None = None,
        spacing: str | None = None) -> QHBoxLayout:
    """A horizontal box of ``items``: no margins (a row inside a column) unless ``margins`` names them."""
    layout = QHBoxLayout(owner) if owner is not None else QHBoxLayout()
    if margins is None:
        layout.setContentsMargins(0, 0, 0, 0)
    return add_items(themed(layout, margins, spacing), items)


def flush_column(owner: QWidget | None, *items: Any, spacing: str | None = None) -> QVBoxLayout:
    """A ``QVBoxLayout`` of ``items`` (as ``boxes.column`` takes them) on ``owner``, with zero margins and the
    theme's ``spacing`` (a ``Metrics`` field name; None leaves Qt's). Returns the layout."""
    layout = column(owner, *items, margins=None, spacing=spacing)
    layout.setContentsMargins(0, 0, 0, 0)
    return layout


def form_rows(*rows: tuple[str, Any], owner: QWidget | None = None, margins: str | None = None,
              spacing: str | None = None) -> QFormLayout:
    """A ``QFormLayout`` (installed on ``owner`` when given) with ``rows``: ``(label, field)`` each, added with
    ``addRow``. Returns the layout, for rows added later."""
    form = QFormLayout(owner) if owner is not None else QFormLayout()
    if margins is None:
        form.setContentsMargins(0, 0, 0, 0)
    themed(form, margins, spacing)
    for text, field in rows:
        form.addRow(text, field)
    return form
