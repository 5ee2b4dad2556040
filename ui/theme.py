"""Colours and the application style shared by every widget.

One place for the palette so views agree: the token view's chip tints, the
message bar's error and info styles, the truncation banner.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

# Token chips: (fill, border, text) per kind.
SEGMENT_A = ("#e8f0fd", "#8fb2e6", "#17335c")
SEGMENT_B = ("#fdf0e0", "#e0a866", "#5a3610")
SPECIAL = ("#f0f1f3", "#c3c8cf", "#6b727c")
TOKEN_ID = "#7d8794"
HOVER_BORDER = "#2f6fd0"
SEPARATOR = "#b9cbe6"
HINT_TEXT = "#7d8794"

ERROR = ("#fdecea", "#efb4ae", "#8a1c14")
INFO = ("#e9f2fd", "#b5d0f3", "#1b4b8a")
WARNING = ("#fff6db", "#ecd08a", "#6b4e00")

STYLE_SHEET = """
QMainWindow::separator { width: 1px; height: 1px; background: #d5d9de; }
QDockWidget::title { padding: 6px 8px; background: #eef0f3; font-weight: 600; }
QGroupBox { font-weight: 600; border: 1px solid #dcdfe4; border-radius: 6px; margin-top: 10px; padding-top: 6px; }
QGroupBox::title { subcontrol-origin: margin; left: 8px; padding: 0 4px; }
QTabWidget::pane { border: 1px solid #d5d9de; border-radius: 4px; top: -1px; }
QTabBar::tab { padding: 5px 14px; }
QLabel#sectionTitle { font-weight: 600; color: #3b4350; }
QLabel#summary { color: #4a5260; }
"""


def color(value: str) -> QColor:
    return QColor(value)


def apply_theme(app: QApplication) -> None:
    """Fusion style, a light palette and a readable default font."""
    app.setStyle("Fusion")
    pal = app.palette()
    pal.setColor(QPalette.ColorRole.Window, QColor("#f6f7f9"))
    pal.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.AlternateBase, QColor("#f2f4f7"))
    pal.setColor(QPalette.ColorRole.Highlight, QColor("#2f6fd0"))
    pal.setColor(QPalette.ColorRole.ToolTipBase, QColor("#ffffff"))
    pal.setColor(QPalette.ColorRole.ToolTipText, QColor("#1f2329"))
    app.setPalette(pal)
    font = app.font()
    if font.pointSizeF() < 10:
        font.setPointSizeF(10)
    font.setStyleHint(QFont.StyleHint.SansSerif)
    app.setFont(font)
    app.setStyleSheet(STYLE_SHEET)
