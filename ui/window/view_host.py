"""Builds the window's tabs from the view registry and runs what the visible view needs.

Each ``ViewEntry`` becomes a tab: the host makes the view's ``ViewContext``
(never the window) and calls the entry's view class with it when the view is first shown or asked for (a
preset step, a workspace, an export, ``window.view(id)``); a view made then is told the loaded model, model B and
the text box's tokens, as the views made earlier were. What a view can do besides (presets, export,
shutdown) is checked with ``isinstance`` against ``lm_workbench.ui.view_kit.view_abilities``. A view that is a
``ModelView`` (it computes from the text box) is driven by the host: the main
window tokenizes after each pause in typing and then calls ``text_ready``;
the host asks the current tab for a ``Computation`` and runs it through the
view's own ``ViewJobs`` unless the view already shows that result. So a view
computes only while visible, once per pause, after tokenizing and never
instead of it (a load or a tokenization in flight is left alone and calls
back here when it ends). A newer request cancels the stale one, and whatever
the stale job still reports (progress, partial results, result) is dropped.
A computation that needs a course model not built here (``CourseModelMissing``;
"building, 2 of 5 done" while the window's build makes it) is asked again
whenever a build starts or moves on (``course_models_changed``), so it says
the model is on its way and computes once it arrives. Other views run their own jobs through their context.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFrame, QScrollArea, QTabWidget, QVBoxLayout, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.pretrain.course_build import CourseModelMissing
from lm_workbench.result_origin import model_identity, short_model_name
from lm_workbench.ui.view_kit.view_abilities import ClosableView, ExportableView, PresetView
from lm_workbench.ui.view_kit.view_context import Shell, ViewContext
from lm_workbench.ui.view_kit.view_entry import ViewEntry
from lm_workbench.ui.window.view_registry import ViewRegistry
from lm_workbench.ui.view_kit.view_base import Computation, Inputs, ModelView

_UPSTREAM_JOBS = ("load", "tokenize")


class ViewHost(QObject):
    def __init__(self, tabs: QTabWidget, shell: Shell, registry: ViewRegistry, *,
                 settling: Callable[[], bool], pair: Callable[[], str | None]):
        super().__init__(tabs)
        self._tabs = tabs
        self._shell = shell
        self._settling = settling  # a model load or a typing pause is under way: its end comes back here
        self._pair = pair
        self._entries: dict[str, ViewEntry] = {}
        self._widgets: dict[str, QWidget] = {}
        self._pages: dict[str, QWidget] = {}  # the tab of each view: room for the text box above the view
        self._scrollers: dict[str, QScrollArea] = {}  # what the tab widget holds: the page, scrolled when too big
        self._contexts: dict[str, ViewContext] = {}
        self._shown: dict[str, Hashable] = {}  # view id -> key of the result it shows
        self._shown_model: dict[str, Any] = {}  # view id -> model_identity of the model that result came from
        self._pending: dict[str, Hashable] = {}  # view id -> key of the request running for it
        self._waiting: set[str] = set()  # views whose result waits for a course model being built
        self._tokens: Any = _NOTHING  # the last value show_tokens gave the views (replayed to a view made later)
        self.on_created: Callable[[QWidget], None] | None = None  # the window's restyle of a view made later
        for entry in registry:
            self._add(entry)
        current = self.current_entry()
        if current is not None:
            self._create(current.id)
        tabs.currentChanged.connect(lambda _index: self._show_current())

    def _add(self, entry: ViewEntry) -> None:
        """The view's tab, its context and an empty scroller: the view itself is made when it is first shown or
        asked for (``widget``), so opening the window builds one view, not every one (0.8 of its 1.0 s)."""
        ctx = ViewContext(self._shell, entry, parent=self)
        self._entries[entry.id], self._contexts[entry.id] = entry, ctx
        # A view wider or taller than the window (presentation mode's 20 pt on a 1080p screen) scrolls
        # inside its tab instead of pushing the window past the screen's edge.
        scroller = QScrollArea()
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        scroller.setObjectName(entry.id)  # the status bar keeps each view's messages by it
        self._scrollers[entry.id] = scroller
        self._tabs.addTab(scroller, entry.title)

    def _show_current(self) -> None:
        entry = self.current_entry()
        if entry is not None:
            self._create(entry.id)
        self.update()

    def _create(self, view_id: str) -> QWidget:
        """The view of ``view_id``, made now if it was not yet: placed in its tab, then told what the views made
        earlier were told (the loaded model, model B, the text box's tokens), so it starts where they are."""
        widget = self._widgets.get(view_id)
        if widget is not None:
            return widget
        entry, ctx = self._entries[view_id], self._contexts[view_id]
        widget = entry.create(ctx)
        self._widgets[view_id] = widget
        if isinstance(widget, ModelView):
            widget.attach(ctx, lambda comp, view=widget: self.run(view, comp))
            widget.inputs_changed.connect(self.update)
        page = QWidget()
        column = QVBoxLayout(page)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(widget, 1)
        self._pages[view_id] = page
        self._scrollers[view_id].setWidget(page)
        if self.on_created is not None:
            self.on_created(widget)
        loaded, model_b = self._shell.loaded(), self._shell.model_b()
        if loaded is not None:
            ctx.model_changed.emit(loaded)
        if model_b is not None:
            ctx.model_b_changed.emit(model_b)
        if entry.reads_text() and self._tokens is not _NOTHING:
            ctx.tokens_changed.emit(self._tokens)
        return widget

    def created(self, view_id: str) -> bool:
        """Whether the view of ``view_id`` has been made (shown or asked for) yet."""
        return view_id in self._widgets

    # --------------------------------------------------------------- views
    def widget(self, view_id: str) -> QWidget:
        """The view of ``view_id`` (made now if it was not yet)."""
        return self._create(view_id)

    def context(self, view_id: str) -> ViewContext:
        return self._contexts[view_id]

    def entries(self) -> list[ViewEntry]:
        return list(self._entries.values())

    def show(self, view_id: str) -> None:
        self._tabs.setCurrentWidget(self._scrollers[view_id])

    def current_entry(self) -> ViewEntry | None:
        page = self._tabs.currentWidget()
        for view_id, p in self._scrollers.items():
            if p is page:
                return self._entries[view_id]
        return None

    def place_text_box(self, text_box: QWidget) -> None:
        """Put the window's text box at the top of the current tab if its view reads text, else hide it.

        The box sits under the tab bar, so switching tabs never moves the tab bar.
        """
        entry = self.current_entry()
        if entry is None or not entry.reads_text():
            text_box.hide()
            return
        self._create(entry.id)
        column = self._pages[entry.id].layout()
        if column.indexOf(text_box) != 0:
            column.insertWidget(0, text_box)
        text_box.show()

    def apply_preset_step(self, view_id: str, settings: dict[str, Any], inputs: dict[str, Any]) -> None:
        """Give the view a lecture step's (or a workspace's) settings and corpus; only the keys its entry
        declares in ``preset_settings`` (the preset's availability check refused the others)."""
        entry = self._entries[view_id]
        unknown = sorted(set(settings) - entry.preset_settings)
        if unknown:
            raise ValueError(f"the {view_id!r} view cannot apply {', '.join(unknown)}")
        view = self._create(view_id)
        if isinstance(view, PresetView):
            view.apply_preset_step(dict(settings), dict(inputs))
        self.update()

    def preset_state(self, view_id: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """(settings, inputs) that ``apply_preset_step`` takes to show the view as it is now, or None for a view
        with nothing of its own to keep."""
        if not self._entries[view_id].preset_settings:
            return None
        view = self._create(view_id)
        return view.preset_state() if isinstance(view, PresetView) and view.preset_settings else None

    def export_widget(self, view_id: str) -> QWidget:
        widget = self._create(view_id)
        return widget.export_widget() if isinstance(widget, ExportableView) else widget

    # ------------------------------------------------------ window's events
    def model_loaded(self, loaded: Any) -> None:
        """Tell every view made so far about a newly loaded model (one made later is told when it is made)."""
        for view_id in list(self._widgets):
            self._contexts[view_id].model_changed.emit(loaded)

    def model_b_changed(self, model_b: Any) -> None:
        """Tell every view made so far that model B was loaded (or dropped: None)."""
        for view_id in list(self._widgets):
            self._contexts[view_id].model_b_changed.emit(model_b)

    def show_tokens(self, value: Any) -> None:
        """The text box's tokens (a ``TokenizedText``) or a hint, for the views that show them (kept for a view
        made later)."""
        self._tokens = value
        for view_id in list(self._widgets):
            if self._entries[view_id].reads_text():
                self._contexts[view_id].tokens_changed.emit(value)

    def course_models_changed(self) -> None:
        """A course-model build started or moved on (a model arrived, the build ended): views that lacked a course
        model ask again (the current one now; the others when they are shown)."""
        if not self._waiting:
            return
        for view_id in self._waiting:
            self._shown.pop(view_id, None)
        self._waiting.clear()
        self.update()

    def text_ready(self) -> None:
        """The window finished tokenizing (or has nothing to tokenize): refresh the visible view."""
        self.update(upstream_done=True)

    def shutdown(self) -> None:
        """Cancel the views' jobs and let views that own threads or timers stop them."""
        for view_id, ctx in self._contexts.items():
            ctx.jobs.cancel()
            view = self._widgets.get(view_id)
            if isinstance(view, ClosableView):
                view.shutdown()

    # ------------------------------------------------------ text-box views
    def update(self, upstream_done: bool = False) -> None:
        """Compute for the current view if it is a ``ModelView`` whose result is out of date."""
        entry = self.current_entry()
        view = self._widgets.get(entry.id) if entry is not None else None
        bridge = self._shell.bridge
        if not isinstance(view, ModelView) or bridge.closed:
            return
        now = self._shell.loaded()
        if now is not None and self._shown_model.get(entry.id, model_identity(now)) != model_identity(now):
            # the result shown is another model's (the view was hidden while a model loaded): cleared at once, also
            # while the load settles, not left up under the new model's name while its own computes (issue 49.5)
            self._shown_model.pop(entry.id, None)
            self._shown.pop(entry.id, None)
            view.show_hint(f"Computing with {short_model_name(str(now.info.spec))}…")
        if self._settling():
            return  # the load's end or the typing pause comes back here
        if not upstream_done and bridge.current_name in _UPSTREAM_JOBS:
            return  # tokenizing: text_ready follows
        loaded = self._shell.loaded()
        if loaded is None:
            self._forget(entry.id)
            view.show_hint(view.no_model_hint)
            return
        text = self._shell.text()
        if not text.strip():
            self._forget(entry.id)
            view.show_hint(view.empty_hint)
            return
        pair = self._pair() if "pair" in entry.inputs else None
        comp = view.computation(Inputs(loaded, text, pair, tokens=self._window_tokens(loaded, text, pair)))
        if comp is None:
            return
        pending = self._pending.get(entry.id, _NOTHING)
        if pending == comp.key:
            return  # already running
        if self._shown.get(entry.id, _NOTHING) == comp.key and pending is _NOTHING:
            return  # shown (a pending request for other inputs would overwrite it: then run again)
        if self._shown_model.get(entry.id, model_identity(loaded)) != model_identity(loaded):
            # the result shown is another model's (the view was hidden while a model loaded): cleared now, not
            # left up under the new model's name while its own computes (issue 49.5)
            self._shown_model.pop(entry.id, None)
            view.show_hint(f"Computing with {short_model_name(str(loaded.info.spec))}…")
        self.run(view, comp)

    def _window_tokens(self, loaded: Any, text: str, pair: str | None) -> Any:
        """The window's tokens when they are of exactly this model, text and pair (a view that reads no pair gets
        none while the pair line has text), else None."""
        tokens = self._shell.tokenized()
        if tokens is None or self._shell.loaded() is not loaded or tokens.text != text or tokens.pair != pair:
            return None
        return tokens

    def run(self, view: ModelView, comp: Computation) -> None:
        """Run ``comp`` for ``view`` now (a newer request replaces it)."""
        view_id = view.ctx.entry.id
        self._pending[view_id] = comp.key
        model = model_identity(self._shell.loaded())
        view.set_busy(True)

        def finish() -> None:
            self._pending.pop(view_id, None)
            view.set_busy(False)

        def done(value: Any) -> None:
            finish()
            self._shown[view_id] = comp.key
            self._shown_model[view_id] = model
            view.ctx.clear_message()
            comp.on_done(value)

        def failed(exc: BaseException, tb: str) -> None:
            finish()
            self._shown[view_id] = comp.key  # the same input fails the same way: do not retry it
            self._shown_model.pop(view_id, None)  # the view shows the failure, no result
            if isinstance(exc, CourseModelMissing):
                self._waiting.add(view_id)  # ... unless a course-model build starts or moves on: asked again then
            if isinstance(exc, WorkbenchError) and not tb:
                view.show_failure(str(exc))
            else:
                view.show_failure("This view could not be computed (see the message above).")
                view.ctx.show_error(exc, tb)

        view.ctx.jobs.run(comp.fn, done, step="compute", label=comp.label, on_progress=comp.on_progress,
                          on_partial=comp.on_partial, on_error=failed, on_cancelled=finish)

    def _forget(self, view_id: str) -> None:
        self._shown.pop(view_id, None)
        self._shown_model.pop(view_id, None)
        if self._pending.pop(view_id, None) is not None:
            self._contexts[view_id].jobs.cancel()


_NOTHING = object()
