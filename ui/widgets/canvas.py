"""What every painted widget sets up the same way: the theme's base colour behind it, how it grows, and the small
font its labels use (``theme.fonts.small_delta`` points below the widget's); ``SmallFontCanvas`` does all three and
follows theme changes."""

from __future__ import annotations

from typing import Any

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


class SmallFontCanvas:
    """Mixin (listed before ``QWidget``) for a painted widget that labels in the theme's small font:
    ``_set_up_canvas()`` puts it on the base colour (``on_base``'s arguments) and keeps the font in ``_font`` and
    its metrics in ``_fm``; after a theme change the font is read again and ``_after_theme()`` runs (a repaint
    unless a subclass redoes more)."""

    def _set_up_canvas(self, *args: Any, **kwargs: Any) -> None:
        on_base(self, *args, **kwargs)
        self._set_font()
        theme.follow(self, self._apply_tokens)

    def _set_font(self) -> None:
        self._font, self._fm = small_font(self)

    def _apply_tokens(self) -> None:
        self._set_font()
        self._after_theme()

    def _after_theme(self) -> None:
        self.update()
