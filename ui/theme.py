"""The current theme tokens, how to swap them, and the application style built from them.

Widgets read ``current()`` when they paint or build a style, never a copy
made at import. ``set_tokens`` makes another set current, re-styles the
application and emits ``changes.tokens_changed``; a widget that caches
anything built from tokens (fonts, pens, images, style sheets, plot items)
subscribes with ``follow(self, self._apply_tokens)`` in its constructor;
a size set once (margins, spacing, fixed widths, row heights) is set through
``bind(owner, lambda w, m: ...)``, which applies it now and after each swap.
Custom-painted widgets that read ``current()`` in ``paintEvent`` need
nothing: the swap repaints every widget.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any, Callable

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QWidget

from lm_workbench.ui.theme_tokens import DEFAULT, Chip, Metrics, Tokens

class ThemeChanges(QObject):
    tokens_changed = Signal(object)  # the new Tokens


changes = ThemeChanges()
_current: Tokens = DEFAULT


def current() -> Tokens:
    return _current


def set_tokens(tokens: Tokens) -> None:
    """Make ``tokens`` current: re-style the application, tell every follower, repaint every widget."""
    global _current
    _current = tokens
    app = QApplication.instance()
    if isinstance(app, QApplication):
        _style_application(app, tokens)
        # Widgets take a new application font from a posted event: deliver it now, so followers read it.
        QApplication.sendPostedEvents(None, QEvent.Type.ApplicationFontChange)
        _refont_top_down(app)
    changes.tokens_changed.emit(tokens)
    if isinstance(app, QApplication):
        for widget in app.allWidgets():
            widget.update()


def _refont_top_down(app: QApplication) -> None:
    """Have every widget take its font again, parents before children.

    Qt delivers the application font change in no particular order, and under an application style
    sheet a parent does not pass its new font on: a child that resolved before its parent kept the old
    size (a window's views stayed small). Sending it again from the top of each tree fixes the order.
    """

    def depth(widget: QWidget) -> int:
        n, parent = 0, widget.parentWidget()
        while parent is not None:
            n, parent = n + 1, parent.parentWidget()
        return n

    for widget in sorted(app.allWidgets(), key=depth):
        QApplication.sendEvent(widget, QEvent(QEvent.Type.ApplicationFontChange))


def follow(widget: QObject, slot: Callable[[], None]) -> None:
    """Call ``slot()`` after every token swap while ``widget`` lives."""

    method = weakref.WeakMethod(slot) if hasattr(slot, "__self__") else None

    def on_change(_tokens: Tokens) -> None:
        target = method() if method is not None else slot
        if target is not None:
            target()

    def forget(*_args) -> None:
        try:
            changes.tokens_changed.disconnect(on_change)
        except (RuntimeError, TypeError):  # already gone (interpreter shutdown)
            pass

    changes.tokens_changed.connect(on_change)
    widget.destroyed.connect(forget)


def bind(owner: QObject, apply: Callable[[Any, Metrics], None]) -> None:
    """``apply(owner, metrics)`` now and after every token swap while ``owner`` lives.

    For sizes set once on a widget or layout (margins, spacing, fixed widths,
    row heights): ``theme.bind(self, lambda w, m: w.table.verticalHeader().setDefaultSectionSize(m.table_row_h))``.
    The owner reaches ``apply`` as an argument, so the binding does not keep it alive.
    """
    apply(owner, _current.metrics)
    ref = weakref.ref(owner)

    def again() -> None:
        target = ref()
        if target is not None:
            apply(target, _current.metrics)

    follow(owner, again)


def _luminance(colour: QColor) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""
    def linear(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) + 0.0722 * linear(colour.blueF())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21)."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def readable_ink(fill: QColor) -> QColor:
    """The current ink or ink_on_dark, whichever contrasts more with ``fill`` (text on a coloured cell)."""
    c = current().colours
    ink, light = QColor(c.ink), QColor(c.ink_on_dark)
    return ink if contrast(ink, fill) >= contrast(light, fill) else light


def sized_font(base: QFont, delta: float) -> QFont:
    """``base`` (usually a widget's font) ``delta`` points larger."""
    font = QFont(base)
    font.setPointSizeF(base.pointSizeF() + delta)
    return font


def banner_css(selector: str, chip: Chip, padding: tuple[int, int]) -> str:
    """A filled, outlined box in a chip's colours (notices, banners, form errors)."""
    m = current().metrics
    return (f"{selector} {{ background: {chip.fill}; border: {m.hairline}px solid {chip.border}; color: {chip.ink};"
            f" border-radius: {m.radius}px; padding: {padding[0]}px {padding[1]}px; }}")


def head_button_css(color: str) -> str:
    """A head's toggle: outlined in its colour, filled with it when checked; its number in the colour where
    that is readable on the background (≥ 4.5:1), else in ink, and in the readable ink on the fill."""
    c, m = current().colours, current().metrics
    text = color if contrast(QColor(color), QColor(c.base_bg)) >= 4.5 else c.ink
    on_fill = readable_ink(QColor(color)).name()
    return (f"QToolButton {{ border: {m.head_button_border}px solid {color}; border-radius: {m.radius}px;"
            f" color: {text}; background: {c.base_bg}; min-width: 18px; padding: 1px 3px; font-weight: 600; }}"
            f"QToolButton:checked {{ background: {color}; color: {on_fill}; }}")


def infill_css() -> str:
    """The infilled sentence: a white box in a larger font."""
    c, f, m = current().colours, current().fonts, current().metrics
    return (f"QLabel#infillOutput {{ background: {c.base_bg}; border: {m.hairline}px solid {c.splitter};"
            f" border-radius: {m.radius}px; padding: {m.infill_padding}px; font-size: {f.pt(f.infill_delta):g}pt; }}")


def about_css() -> str:
    """The About panel's document style (``class="k-masked"`` etc. paint a masking-lab colour)."""
    c, f = current().colours, current().fonts
    return f"""
body {{ font-size: {f.base_pt:g}pt; color: {c.about_ink}; }}
h3 {{ margin: 0 0 4px 0; }}
code, .f {{ font-family: 'DejaVu Sans Mono', monospace; background: {c.code_bg}; }}
.f {{ padding: 2px 6px; }}
p {{ margin: 4px 0; }}
.ref {{ color: {c.muted_ink}; }}
""" + "".join(f".k-{k.name} {{ background-color: {getattr(c.mask_kinds, k.name).fill}; }}\n"
              for k in dataclasses.fields(c.mask_kinds))


ABOUT_HEADER_CSS = "QToolButton { font-weight: 600; border: none; padding: 3px 2px; }"


def hover_context_css() -> str:
    """The Embeddings map's hover line: a white box."""
    c, m = current().colours, current().metrics
    pad = m.box_padding
    return (f"QLabel#hoverContext {{ background: {c.base_bg}; border: {m.hairline}px solid {c.group_border};"
            f" border-radius: {m.radius}px; padding: {pad[0]}px {pad[1]}px; }}")


def style_sheet(tokens: Tokens) -> str:
    c, m = tokens.colours, tokens.metrics
    return f"""
QMainWindow::separator {{ width: {m.hairline}px; height: {m.hairline}px; background: {c.splitter}; }}
QDockWidget::title {{ padding: 6px 8px; background: {c.dock_title_bg}; font-weight: 600; }}
QGroupBox {{ font-weight: 600; border: {m.hairline}px solid {c.group_border}; border-radius: {m.group_radius}px;
  margin-top: 10px; padding-top: 6px; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 8px; padding: 0 4px; }}
QTabWidget::pane {{ border: {m.hairline}px solid {c.splitter}; border-radius: {m.radius}px; top: -1px; }}
QTabBar::tab {{ padding: {m.tab_padding[0]}px {m.tab_padding[1]}px; }}
QLabel#sectionTitle {{ font-weight: 600; color: {c.section_title_ink}; }}
QLabel#summary {{ color: {c.summary_ink}; }}
QCheckBox::indicator, QRadioButton::indicator, QGroupBox::indicator {{ width: {m.check_indicator}px;
  height: {m.check_indicator}px; }}
"""


def _style_application(app: QApplication, tokens: Tokens) -> None:
    c = tokens.colours
    pal = app.palette()
    pal.setColor(QPalette.ColorRole.Window, QColor(c.window_bg))
    pal.setColor(QPalette.ColorRole.Base, QColor(c.base_bg))
    pal.setColor(QPalette.ColorRole.AlternateBase, QColor(c.alternate_bg))
    pal.setColor(QPalette.ColorRole.Highlight, QColor(c.highlight))
    pal.setColor(QPalette.ColorRole.ToolTipBase, QColor(c.tooltip_bg))
    pal.setColor(QPalette.ColorRole.ToolTipText, QColor(c.tooltip_ink))
    app.setPalette(pal)
    font = app.font()
    system_pt = app.property("systemFontPt")
    if system_pt is None:  # the first styling: remember the system's size, so a swap can go back to it
        system_pt = font.pointSizeF()
        app.setProperty("systemFontPt", system_pt)
    font.setPointSizeF(max(float(system_pt), tokens.fonts.base_pt))
    font.setStyleHint(QFont.StyleHint.SansSerif)
    app.setFont(font)
    app.setStyleSheet(style_sheet(tokens))


def apply_theme(app: QApplication) -> None:
    """Fusion style, the current tokens' palette, font and style sheet."""
    app.setStyle("Fusion")
    _style_application(app, _current)

