"""Model B beside model A: "Compare with…" in the model panel, its load off the Qt thread, "Stop comparing".

``CompareController`` owns the Qt-free ``lm_workbench.compare.model_b.ModelB`` and runs B's load on the
window's interactive lane (the same load job as A's). It emits ``model_b_changed`` (B's ``LoadedModel`` or
None), which the view host passes to every view's context. ``ComparePanel`` is its part of the model panel: a
field for a hub id or folder with a Compare button, the recent models, what B is, and Stop comparing.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QGroupBox, QWidget

from lm_workbench.ui.view_kit.forwarded import forwarded
from lm_workbench.ui.view_kit.model_label import spec_label
from lm_workbench.ui.widgets.boxes import column, row
from lm_workbench.ui.widgets.controls import button, combo_box, label, line_edit
from lm_workbench.models.loader import load_model_job
from lm_workbench.compare.model_b import ModelB


class ComparePanel(QGroupBox):
    """The model panel's "Compare with…" box."""

    compare_requested = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Compare with…", parent)
        self.setObjectName("comparePanel")
        self.field = line_edit("Model B: hub id or folder",
                               tip="A second model shown beside the loaded one (A | B) in the views that support "
                                   "it; a run's output: Runs tab ▸ Compare with this")
        self.field.setObjectName("compareField")
        self.field.setClearButtonEnabled(True)
        self.field.returnPressed.connect(self._compare_typed)
        self.compare_button = button("Compare", clicked=self._compare_typed)
        self.recent = combo_box()
        self.recent.setObjectName("compareRecent")
        self.recent.activated.connect(self._compare_recent)
        self.state_label = label("Not comparing", wrap=True)
        self.stop_button = button("Stop comparing", clicked=self.stop_requested, enabled=False)
        field_row = row((self.field, 1), self.compare_button, spacing="row_spacing")
        column(self, field_row, self.recent, self.state_label, self.stop_button, margins="inset_margins",
               spacing="row_spacing")

    def set_recent(self, specs: list[str]) -> None:
        self.recent.clear()
        self.recent.addItem("Recent models…", None)
        for spec in specs:
            self.recent.addItem(spec_label(spec), spec)
            self.recent.setItemData(self.recent.count() - 1, spec, Qt.ItemDataRole.ToolTipRole)

    def set_state(self, text: str, comparing: bool) -> None:
        self.state_label.setText(text)
        self.stop_button.setEnabled(comparing)

    def _compare_typed(self) -> None:
        spec = self.field.text().strip()
        if spec:
            self.compare_requested.emit(spec)

    def _compare_recent(self, index: int) -> None:
        spec = self.recent.itemData(index)
        self.recent.setCurrentIndex(0)
        if spec:
            self.compare_requested.emit(spec)


class CompareController(QObject):
    model_b_changed = Signal(object)  # model B (a LoadedModel) or None

    def __init__(self, bridge: Any, settings: Any, *, a_loading: Callable[[], bool], status: Callable[[str], None],
                 show_error: Callable[[BaseException, str], None], parent: QObject | None = None):
        super().__init__(parent)
        self._bridge, self._settings, self._a_loading = bridge, settings, a_loading
        self._status, self._show_error = status, show_error
        self._after_a: str | None = None  # a spec to compare with once model A's load ends
        self.state = ModelB()
        self.panel = ComparePanel()
        self.panel.set_recent(settings.recent_models)
        self.panel.compare_requested.connect(self.load)
        self.panel.stop_requested.connect(self.stop)
        self.state.events.model_b_changed.connect(self.model_b_changed.emit)
        self.state.events.loading_changed.connect(lambda _spec: self._show_state())

    loaded = forwarded("state.loaded", "Model B (a ``LoadedModel``), or None.")
    loading = forwarded("state.loading", "Whether model B is loading.")

    def load(self, spec: str) -> None:
        """Load ``spec`` as model B in the background (after model A's load, never instead of it)."""
        spec = spec.strip()
        if self._bridge.closed or not spec:
            return
        if self._a_loading():
            self._status("Model A is loading: compare once it has loaded")
            return
        gen = self.state.begin_load(spec)
        if gen is None:
            return
        self.panel.field.setText(spec)
        settings = self._settings
        self._bridge.run(lambda cancel: load_model_job(spec, settings, cancel), name="compare-load",
                         on_done=lambda loaded: self._loaded(gen, loaded),
                         on_error=lambda exc, tb: self._ended(gen, exc, tb),
                         on_cancelled=lambda: self._ended(gen), label=f"Loading {spec_label(spec)} as model B…")

    def load_after_a(self, spec: str) -> None:
        """``load``, or when model A is loading, once its load has ended (a workspace opens A, then B)."""
        if self._a_loading():
            self._after_a = spec
            self._status(f"Model B ({spec_label(spec)}) loads once model A has loaded")
        else:
            self.load(spec)

    def a_load_ended(self) -> None:
        """Model A's load ended (loaded, failed or cancelled): load the model B that waited for it."""
        spec, self._after_a = self._after_a, None
        if spec:
            self.load(spec)

    def stop(self) -> None:
        self._after_a = None
        loading = self.state.loading
        if self.state.stop():
            if loading and self._bridge.current_name == "compare-load":
                self._bridge.cancel()
            self._status("Stopped comparing")
        self._show_state()

    def set_recent(self, specs: list[str]) -> None:
        self.panel.set_recent(specs)

    def _loaded(self, gen: int, loaded: Any) -> None:
        from lm_workbench.models.view_tasks import settle_heap  # torch is imported by now

        if self.state.finish_load(gen, loaded):
            settle_heap()
            self._status(f"Comparing with {spec_label(loaded.info.spec)} (model B)")

    def _ended(self, gen: int, exc: BaseException | None = None, tb: str = "") -> None:
        if self.state.end_load(gen) and exc is not None:
            self._show_error(exc, tb)

    def _show_state(self) -> None:
        s = self.state
        if s.loading:
            text = f"Loading {spec_label(s.loading_spec)}…"
        elif s.loaded is not None:
            text = f"B: {spec_label(s.loaded.info.spec)} ({s.loaded.info.family}, {s.loaded.info.layers} layers)"
        else:
            text = "Not comparing"
        self.panel.set_state(text, s.loaded is not None or s.loading)
