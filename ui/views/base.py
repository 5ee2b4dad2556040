"""What every analysis view shares with the view host.

A ``ModelView`` is a tab that needs the model run on the current text. It
does not run anything itself: ``computation(inputs)`` returns a
``Computation`` (a key saying what the result depends on, a job function,
a handler and optionally handlers for progress and partial results), and
``ui.view_host.ViewHost`` runs it through the view's ``ViewContext`` when the
tab is visible and the key differs from what is shown. Views say when one of
their own inputs (a target text, k) changed with ``inputs_changed``; the host
then asks again. A view that needs a computation outside that cycle (a button
press) hands it to ``compute``.

``Notice`` is the inline line a view uses for hints and for the engine's
one-line messages (e.g. a model without the head a view needs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Hashable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QWidget

from engine.progress import CancelToken, Progress
from ui import theme

if TYPE_CHECKING:
    from ui.view_context import ViewContext

_LEVELS = {"info": theme.INFO, "warning": theme.WARNING, "error": theme.ERROR}


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
    fn: Callable[[CancelToken], Any]  # runs on the worker thread: a value, or a generator of Progress/Partial
    on_done: Callable[[Any], None]  # runs on the GUI thread
    label: str | None = None  # status-bar text while it runs (None: a quick, quiet job)
    on_progress: Callable[[Progress], None] | None = None  # GUI thread, this request's reports only
    on_partial: Callable[[Any], None] | None = None  # GUI thread, each ``Partial`` value it yields


class Notice(QLabel):
    """A one-line (wrapping) hint or message inside a view."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("viewNotice")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._level = ""
        self.hide()

    def show_message(self, text: str, level: str = "info") -> None:
        fill, border, ink = _LEVELS.get(level, theme.INFO)
        self.setStyleSheet(
            f"QLabel#viewNotice {{ background: {fill}; border: 1px solid {border}; color: {ink};"
            " border-radius: 4px; padding: 6px 9px; }"
        )
        self._level = level
        self.setText(text)
        self.show()

    def clear_message(self) -> None:
        self._level = ""
        self.setText("")
        self.hide()

    def level(self) -> str:
        return self._level if not self.isHidden() else ""


class ModelView(QWidget):
    """Base of the tabs that run the model; see the module docstring."""

    inputs_changed = Signal()
    no_model_hint = "Load a model (left) to use this view."
    empty_hint = "Type a sentence above."

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx: ViewContext | None = None
        self._compute: Callable[[Computation], None] | None = None

    def attach(self, ctx: ViewContext, compute: Callable[[Computation], None]) -> None:
        """Called once by the host: the view's context and how to run a computation now."""
        self.ctx, self._compute = ctx, compute

    def compute(self, comp: Computation) -> None:
        """Run ``comp`` now (e.g. on a button press); a newer request replaces it."""
        if self._compute is not None:
            self._compute(comp)

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
