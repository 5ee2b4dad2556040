"""What every painted widget sets up the same way: the theme's base colour behind it, how it grows, and the small
font its labels use (``theme.fonts.small_delta`` points below the widget's)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetricsF, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

from lm_workbench.ui import theme

Policy = QSizePolicy.Policy


def on_base(widget: QWidget, horizontal: Policy = Policy.Expanding, vertical: Policy = Policy.Expanding, *,
            height_for_width: bool = False) -> None:
    """``widget`` painted on the palette's base colour, with this size policy (and height for width)."""
    widget.setAutoFillBackground(True)
    widget.setBackgroundRole(QPalette.ColorRole.Base)
    policy = QSizePolicy(horizontal, vertical)
    policy.setHeightForWidth(height_for_width)
    widget.setSizePolicy(policy)


def small_font(widget: QWidget) -> tuple[QFont, QFontMetricsF]:
    """The theme's small font for ``widget``'s labels and its metrics (read again when the theme changes)."""
    font = theme.sized_font(widget.font(), theme.current().fonts.small_delta)
    return font, QFontMetricsF(font)
