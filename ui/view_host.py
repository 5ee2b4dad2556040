"""Runs what the visible analysis view needs when the text, model or its inputs change.

The main window tokenizes after each pause in typing; when that is done (or
there is nothing to tokenize) it calls ``text_ready``. The host then asks the
current tab, if it is a ``ModelView``, for a ``Computation`` and runs it on
the window's job bridge, unless the view already shows that result. So a view
computes only while visible, once per pause, after tokenizing and never
instead of it (a new job cancels the stale one: a load or a tokenization in
flight is left alone and calls back here when it ends). Results of a stale
request are dropped with a generation counter.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Hashable

from PySide6.QtCore import QObject

from engine.errors import WorkbenchError
from ui.views.base import Computation, Inputs, ModelView

if TYPE_CHECKING:
    from ui.main_window import MainWindow

_UPSTREAM_JOBS = ("load", "tokenize")


class ViewHost(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self._window = window
        self._shown: dict[int, Hashable] = {}  # id(view) -> key of the result it shows
        self._pending: tuple[ModelView, Hashable, int] | None = None
        self._gen = 0
        self._started = 0.0
        window.views.currentChanged.connect(lambda _index: self.update())

    # ----------------------------------------------------------------- API
    def add(self, view: ModelView, title: str, about_html: str) -> ModelView:
        view.attach(self)
        view.inputs_changed.connect(self.update)
        self._window.add_view(view, title, about_html, view.export_widget())
        return view

    def add_builtin_views(self) -> tuple[ModelView, ModelView, ModelView, ModelView]:
        """The Attention, Predictions, Logit lens and Masking lab tabs, in that order."""
        from ui.views import about_texts
        from ui.views.attention_view import AttentionView
        from ui.views.lens_view import LensView
        from ui.views.masking_lab import MaskingLabView
        from ui.views.predictions_view import PredictionsView

        return (
            self.add(AttentionView(), about_texts.ATTENTION_TITLE, about_texts.ATTENTION_HTML),
            self.add(PredictionsView(), about_texts.PREDICTIONS_TITLE, about_texts.PREDICTIONS_HTML),
            self.add(LensView(), about_texts.LENS_TITLE, about_texts.LENS_HTML),
            self.add(MaskingLabView(), about_texts.MASKING_LAB_TITLE, about_texts.MASKING_LAB_HTML),
        )

    def add_embedding_view(self) -> Any:
        """The Embeddings tab (a corpus, not the text box: it runs its own jobs on the window's bridge)."""
        from ui.embeddings import about
        from ui.embeddings.explorer_view import EmbeddingExplorerView

        view = EmbeddingExplorerView(self._window)
        self._window.add_view(view, about.TITLE, about.HTML, view.export_widget())
        return view

    def add_training_views(self) -> tuple[Any, Any]:
        """The Pre-train and Runs tabs, sharing the window's ``run_services`` (its long-run lane)."""
        from ui.runs.runs_browser import RunsBrowser
        from ui.training import about_texts
        from ui.training.training_view import TrainingView

        w = self._window
        training = TrainingView(w.run_services, open_model=self.open_model, register_model=self.register_model)
        runs = RunsBrowser(w.run_services)
        w.add_view(training, about_texts.PRETRAIN_TITLE, about_texts.PRETRAIN_HTML, training.plot)
        w.add_view(runs, about_texts.RUNS_TITLE, about_texts.RUNS_HTML, runs.overlay.export_widget)
        training.run_submitted.connect(lambda _id: runs.refresh() if runs.isVisible() else None)
        return training, runs

    def open_model(self, spec: str) -> None:
        """Load ``spec`` in the window and show the Tokens tab (a trained model's "Open in views")."""
        w = self._window
        w.model_panel.model_edit.setText(spec)
        w.load_model(spec)
        w.views.setCurrentIndex(0)

    def register_model(self, folder: str) -> None:
        """Add a model folder to the recent models (course models, when they finish)."""
        w = self._window
        w.settings.add_recent(folder)
        w.model_panel.set_recent(w.settings.recent_models)

    def text_ready(self) -> None:
        """The window finished tokenizing (or has nothing to tokenize): refresh the visible view."""
        self.update(upstream_done=True)

    def update(self, upstream_done: bool = False) -> None:
        """Compute for the current view if what it shows is out of date."""
        w = self._window
        view = w.views.currentWidget()
        if not isinstance(view, ModelView) or w.jobs.closed:
            return
        if w.loading or w.text_input.pending():
            return  # the load's end or the typing pause comes back here
        if not upstream_done and w.jobs.current_name in _UPSTREAM_JOBS:
            return  # tokenizing: text_ready follows
        if w.loaded is None:
            self._forget(view)
            view.show_hint(view.no_model_hint)
            return
        text = w.text_input.text()
        if not text.strip():
            self._forget(view)
            view.show_hint(view.empty_hint)
            return
        comp = view.computation(Inputs(w.loaded, text, w.text_input.pair()))
        if comp is None:
            return
        pending_here = self._pending is not None and self._pending[0] is view
        if pending_here and self._pending[1] == comp.key:
            return  # already running
        if self._shown.get(id(view)) == comp.key and not pending_here:
            return  # shown (a pending request for other inputs would overwrite it: then run again)
        self.run(view, comp)

    def run(self, view: ModelView, comp: Computation) -> None:
        """Run ``comp`` for ``view`` now (a newer request replaces it)."""
        self._gen += 1
        gen = self._gen
        self._pending = (view, comp.key, gen)
        self._started = time.monotonic()
        view.set_busy(True)
        self._window.jobs.run(
            comp.fn,
            name=view.job_name,
            on_done=lambda value: self._done(gen, view, comp, value),
            on_error=lambda exc, tb: self._failed(gen, view, comp, exc, tb),
            on_cancelled=lambda: self._cancelled(gen, view),
            label=comp.label,
        )

    def replace_text(self, text: str) -> None:
        """Put ``text`` in the text box (keeping the pair); the usual pause-then-compute follows."""
        self._window.text_input.set_text(text, self._window.text_input.pair())

    def model_spec(self) -> str:
        loaded = self._window.loaded
        return loaded.info.spec if loaded is not None else "no-model"

    def settings(self) -> Any:
        return self._window.settings

    def current_text(self) -> str:
        return self._window.text_input.text()

    def status(self, message: str) -> None:
        self._window.status.set_message(message)

    def show_error(self, exc: BaseException, source: str) -> None:
        self._window.show_error(exc, source=source)

    # ------------------------------------------------------------ results
    def _forget(self, view: ModelView) -> None:
        self._shown.pop(id(view), None)
        if self._pending is not None and self._pending[0] is view:
            self._pending = None

    def _finish(self, gen: int, view: ModelView) -> bool:
        """True if ``gen`` is still the latest request (and ends it)."""
        if self._pending is None or self._pending[2] != gen:
            return False
        self._pending = None
        view.set_busy(False)
        return True

    def _done(self, gen: int, view: ModelView, comp: Computation, value: Any) -> None:
        if not self._finish(gen, view):
            return
        self._shown[id(view)] = comp.key
        self._window.message_bar.clear(view.job_name)
        comp.on_done(value)
        if comp.label:  # the status bar still shows the label: say it is done
            self.status(f"{comp.label.rstrip('…')}: done in {time.monotonic() - self._started:.2f} s")

    def _failed(self, gen: int, view: ModelView, comp: Computation, exc: BaseException, tb: str) -> None:
        if not self._finish(gen, view):
            return
        self._shown[id(view)] = comp.key  # the same input fails the same way: do not retry it
        if comp.label:
            self.status(f"{comp.label.rstrip('…')}: failed")
        if isinstance(exc, WorkbenchError) and not tb:
            view.show_failure(str(exc))
        else:
            view.show_failure("This view could not be computed (see the message above).")
            self._window.show_error(exc, tb, source=view.job_name)

    def _cancelled(self, gen: int, view: ModelView) -> None:
        if self._finish(gen, view):
            self.status("Cancelled")
