"""What every analysis view shares with the view host.

A ``ModelView`` is a tab that needs the model run on the current text. It
does not run anything itself: ``computation(inputs)`` returns a
``Computation`` (a key saying what the result depends on, a job function and
a handler), and ``ui.view_host.ViewHost`` runs it on the window's job bridge
when the tab is visible and the key differs from what is shown. Views say
when one of their own inputs (a target text, k) changed with
``inputs_changed``; the host then asks again.

``Notice`` is the inline line a view uses for hints and for the engine's
one-line messages (e.g. a model without the head a view needs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Hashable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QWidget

from engine.progress import CancelToken
from ui import theme

if TYPE_CHECKING:
    from ui.view_host import ViewHost


@dataclass(frozen=True)
class Inputs:
    """The window's state a view computes from."""

    loaded: Any  # engine.loading.LoadedModel
    text: str
    pair: str | None

    @property
    def model_key(self) -> tuple[int, str]:
        return id(self.loaded), self.loaded.info.spec


@dataclass
class Computation:
    key: Hashable  # equal keys: the shown result is still right
    fn: Callable[[CancelToken], Any]  # runs on the worker thread
    on_done: Callable[[Any], None]  # runs on the GUI thread
    label: str | None = None  # status-bar text while it runs (None: a quick, quiet job)


class Notice(QLabel):
    """A one-line (wrapping) hint or message inside a view."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("viewNotice")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._level = ""
        theme.follow(self, self._restyle)  # a token swap re-colours a shown notice
        self.hide()

    def show_message(self, text: str, level: str = "info") -> None:
        self._level = level
        self._restyle()
        self.setText(text)
        self.show()

    def clear_message(self) -> None:
        self._level = ""
        self.setText("")
        self.hide()

    def level(self) -> str:
        return self._level if not self.isHidden() else ""

    def _restyle(self) -> None:
        t = theme.current()
        chip = t.colours.message(self._level)
        self.setStyleSheet(theme.banner_css("QLabel#viewNotice", chip, t.metrics.notice_padding))


class ModelView(QWidget):
    """Base of the tabs that run the model; see the module docstring."""

    inputs_changed = Signal()
    job_name = "view"
    no_model_hint = "Load a model (left) to use this view."
    empty_hint = "Type a sentence above."

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.host: ViewHost | None = None

    def attach(self, host: ViewHost) -> None:
        self.host = host

    # ------------------------------------------------- called by the host
    def computation(self, inputs: Inputs) -> Computation | None:
        raise NotImplementedError

    def show_hint(self, text: str) -> None:
        """Nothing to compute (no model, no text): show ``text`` instead of results."""
        raise NotImplementedError

    def show_failure(self, message: str) -> None:
        """The engine refused the input (a one-line ``WorkbenchError``)."""
        self.show_hint(message)

    def set_busy(self, busy: bool) -> None:
        """A computation started (True) or ended (False)."""

    def export_widget(self) -> QWidget:
        return self
