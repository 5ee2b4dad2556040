"""The "About this view" panel: the current view's formula and paper.

A collapsible section (a header button and a ``QTextBrowser``). Views give
their text through ``set_view(title, html)``; the main window calls it when
the current view changes, so a new view only provides HTML. The window puts
the panel under the views in a splitter, so its height can be dragged;
collapsed, it is only its header line.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QTextBrowser, QToolButton, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import flush_column

QWIDGETSIZE_MAX = (1 << 24) - 1  # Qt's "no maximum"


class AboutPanel(QWidget):
    toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._title = ""
        self._html = ""
        self._header = QToolButton()
        self._header.setCheckable(True)
        self._header.setChecked(True)
        self._header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self._header.setAutoRaise(True)
        self._header.setStyleSheet(theme.ABOUT_HEADER_CSS)
        self._header.toggled.connect(self.set_expanded)
        self._browser = QTextBrowser()
        self._browser.setOpenExternalLinks(True)
        theme.bind(self, lambda w, m: w._browser.setMinimumHeight(m.about_min_h))
        self._browser.document().setDefaultStyleSheet(theme.about_css())
        theme.follow(self, self._apply_tokens)
        flush_column(self, self._header, self._browser, spacing="tight_spacing")
        self._update_header()

    # ----------------------------------------------------------------- API
    def set_view(self, title: str, html: str) -> None:
        """Show the explanation of the view called ``title``."""
        self._title, self._html = title, html
        self._browser.setHtml(html)
        self._update_header()

    def title(self) -> str:
        return self._title

    def html(self) -> str:
        return self._html

    def plain_text(self) -> str:
        return self._browser.toPlainText()

    def is_expanded(self) -> bool:
        return self._header.isChecked()

    def set_expanded(self, expanded: bool) -> None:
        if self._header.isChecked() != expanded:
            self._header.setChecked(expanded)  # re-enters through toggled
            return
        self._browser.setVisible(expanded)
        # collapsed: no taller than the header, so a splitter gives the views the rest
        self.setMaximumHeight(QWIDGETSIZE_MAX if expanded else self._header.sizeHint().height())
        self._update_header()
        self.toggled.emit(expanded)

    @property
    def browser(self) -> QTextBrowser:
        return self._browser

    def _apply_tokens(self) -> None:
        self._browser.document().setDefaultStyleSheet(theme.about_css())
        self._browser.setHtml(self._html)

    def _update_header(self) -> None:
        arrow = Qt.ArrowType.DownArrow if self._header.isChecked() else Qt.ArrowType.RightArrow
        self._header.setArrowType(arrow)
        suffix = f": {self._title}" if self._title else ""
        self._header.setText(f"About this view{suffix}")
