"""The one line every view shows above a result it keeps: whose result it is, greyed with Run again when the
inputs changed, cleared when the model changed (issue 49.5; the rule: ``lm_workbench.result_origin``).

    line = ResultOriginLine(self.hits_a, self.hits_bm25, clear=self._clear_results, run_again=self.search)
    line.set_origin(ResultOrigin.of(loaded, key, "query “dogs”, demo corpus"))  # a result was shown
    line.check(ctx.loaded, current_key)  # inputs or model changed: greys, or calls ``clear``

While the result is current the line names it ("From tiny-bert, query “dogs”, run 12."); once stale, the result
widgets are veiled in the window's colour (greyed) and the line reads "Stale (the inputs changed): from <model>,
<input>." beside a Run again button; when the model changes, ``clear`` is called and the line hides.
``set_running(text)`` says what is computing instead.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QSplitter, QWidget

from lm_workbench.result_origin import CURRENT, GONE, STALE, ResultOrigin
from lm_workbench.ui.widgets.boxes import row
from lm_workbench.ui.widgets.controls import button, label

STALE_VEIL_ALPHA = 160  # of 255: how much of the window's colour lies over a stale result


class StaleVeil(QWidget):
    """A sheet of the window's colour over a stale result, so it reads greyed (text, tables, plots alike) while
    the mouse and the wheel still reach it (it scrolls, its rows can be read). A child of the result, kept at
    its size. (An opacity effect composites over black in ``QWidget.grab``: a screenshot showed it dark.)"""

    def __init__(self, result: QWidget):
        if isinstance(result, QSplitter):  # a splitter takes every child widget in as a pane
            raise TypeError("veil a splitter's panes, not the splitter")
        super().__init__(result)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setObjectName("staleVeil")
        result.installEventFilter(self)
        self.setGeometry(result.rect())
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Resize:
            self.setGeometry(watched.rect())
        return False

    def paintEvent(self, _event) -> None:  # noqa: N802
        colour = QColor(self.palette().window().color())
        colour.setAlpha(STALE_VEIL_ALPHA)
        QPainter(self).fillRect(self.rect(), colour)


class ResultOriginLine(QWidget):
    """See the module docstring. ``results``: the widgets greyed while stale; ``clear``: empties them (model
    changed); ``run_again``: computes the current inputs' result (None: no button); ``stale_reason``: the
    words in "Stale (…)" ("the inputs changed", "another run started")."""

    def __init__(self, *results: QWidget, clear: Callable[[], None], run_again: Callable[[], None] | None = None,
                 stale_reason: str = "the inputs changed", parent: QWidget | None = None):
        super().__init__(parent)
        self._stale_reason = stale_reason  # why a result is stale, as this view says it
        self.setObjectName("resultOrigin")
        self._veils = [StaleVeil(widget) for widget in results]
        self._clear = clear
        self.origin: ResultOrigin | None = None
        self._state = GONE
        self.label = label(name="summary", wrap=True)
        self.again_button = button("Run again", tip="Compute the result for the current model and inputs",
                                   clicked=(lambda: run_again()) if run_again is not None else None)
        self._has_again = run_again is not None
        row((self.label, 1), self.again_button, owner=self)
        self.hide()

    # ---------------------------------------------------------------- API
    def set_origin(self, origin: ResultOrigin | None) -> None:
        """A result was shown (``origin``), or the result is gone (None)."""
        self.origin = origin
        self._show(CURRENT if origin is not None else GONE)

    def check(self, loaded: Any, inputs: Hashable) -> str:
        """Compare the shown result's origin with the current model and inputs: greys it (stale) or clears it (another
        model). Returns the state: ``"current"``, ``"stale"`` or ``"gone"``."""
        if self.origin is None:
            return GONE
        state = self.origin.state(loaded, inputs)
        if state == GONE:
            self.origin = None
            self._clear()
        self._show(state)
        return state

    def set_running(self, text: str) -> None:
        """A new result is being computed: the line says ``text`` ("Ablating every head…"), no button."""
        for veil in self._veils:  # what shows now is the new result coming in
            veil.hide()
        self._state = CURRENT
        self.label.setText(text)
        self.again_button.setVisible(False)
        self.setVisible(bool(text))

    def stale(self) -> bool:
        return self._state == STALE

    def greyed(self, widget: QWidget) -> bool:
        """Whether ``widget`` (one of the results) is drawn greyed now."""
        return any(veil.parentWidget() is widget and not veil.isHidden() for veil in self._veils)

    def text(self) -> str:
        """What the line says ("" while hidden)."""
        return "" if self.isHidden() else self.label.text()

    # ------------------------------------------------------------ showing
    def _show(self, state: str) -> None:
        self._state = state
        for veil in self._veils:
            veil.setVisible(state == STALE)
            if state == STALE:
                veil.raise_()
        self.again_button.setEnabled(True)
        self.again_button.setVisible(self._has_again and state == STALE)
        if self.origin is None or state == GONE:
            self.label.setText("")
            self.setVisible(False)
            return
        what = self.origin.label()
        stale = f"Stale ({self._stale_reason}): {what}."
        self.label.setText(stale if state == STALE else what[0].upper() + what[1:] + ".")
        self.setVisible(True)
