"""What every analysis view shares with the view host.

A ``ModelView`` is a tab that needs the model run on the current text. It
does not run anything itself: ``computation(inputs)`` returns a
``Computation`` (a key saying what the result depends on, a job function,
a handler and optionally handlers for progress and partial results), and
``lm_workbench.ui.window.view_host.ViewHost`` runs it through the view's ``ViewContext`` when the
tab is visible and the key differs from what is shown. Views say when one of
their own inputs (a target text, k) changed with ``inputs_changed``; the host
then asks again. A view that needs a computation outside that cycle (a button
press) hands it to ``compute``.

Views show hints and the engine's one-line messages in a
``lm_workbench.ui.widgets.notice.Notice``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generator, Hashable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from lm_workbench.engine.progress import CancelToken, Progress
from lm_workbench.ui import qt_refcount_fix

if TYPE_CHECKING:
    from lm_workbench.ui.view_kit.view_context import ViewContext

qt_refcount_fix.apply()  # model views paint thousands of shapes a frame: see that module


@dataclass(frozen=True)
class Inputs:
    """The window's state a view computes from.

    ``tokens`` is the encoding the window made of this text and pair with this model (an
    ``lm_workbench.engine.tokens.TokenizedText``, cut at the model's window), so a view need not tokenize the text again;
    None when the window has none for exactly these inputs. A view that needs another tokenization (its own
    length cap, a decoder's target, another model's tokenizer) says why where it makes it.
    """

    loaded: Any  # lm_workbench.engine.models.loading.LoadedModel
    text: str
    pair: str | None
    tokens: Any = None  # the window's TokenizedText of (text, pair), or None

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


def paired(comp: Computation, model_b: Any, fn_b: Callable[[CancelToken], Any],
           on_done_b: Callable[[Any], None]) -> Computation:
    """``comp`` for model A followed, in the same job, by ``fn_b`` for model B (``compared``); B's result goes
    to ``on_done_b``. Without a model B, ``comp`` itself."""
    if model_b is None:
        return comp

    def both(cancel: CancelToken) -> Any:
        a = comp.fn(cancel)
        if isinstance(a, Generator):
            a = yield from a
        cancel.check()
        b = fn_b(cancel)
        if isinstance(b, Generator):
            b = yield from b
        return a, b

    def done(result: tuple[Any, Any]) -> None:
        comp.on_done(result[0])
        on_done_b(result[1])

    return Computation(key=(comp.key, "B", id(model_b), model_b.info.spec), fn=both, on_done=done,
                       label=comp.label, on_progress=comp.on_progress, on_partial=comp.on_partial)


class ModelView(QWidget):
    """Base of the tabs that run the model; see the module docstring."""

    inputs_changed = Signal()
    no_model_hint = "Load a model (left) to use this view."
    empty_hint = "Type a sentence above."

    def __init__(self, ctx: ViewContext | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx: ViewContext | None = ctx
        self._compute: Callable[[Computation], None] | None = None

    def attach(self, ctx: ViewContext, compute: Callable[[Computation], None]) -> None:
        """Called once by the host: the view's context and how to run a computation now."""
        self.ctx, self._compute = ctx, compute
        ctx.model_b_changed.connect(self.inputs_changed)  # model B came or went: ask again (the key says)

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
