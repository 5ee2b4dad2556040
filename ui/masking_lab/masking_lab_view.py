"""The masking & noising lab: what a pre-training objective does to the text, position by position.

Inputs: the window's text and a tokenizer (the loaded model's, or another
model's loaded with ``load_tokenizer`` in a job), an objective from the
``ObjectiveRegistry`` (those for the tokenizer's family when it is known),
its settings as a form generated from ``config_fields``, and a seed. The
preview (``PreviewGrid``) shows the original, the corrupted input and the
labels coloured by ``PositionKind``; the statistics panel draws N samples; the
reconstruction panel shows what the loaded model guesses back. Everything runs
as jobs through the view host (registry discovery, tokenizer loading,
corrupting, sampling), never on the window's thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QGroupBox, QHBoxLayout, QLabel, QMenu, QSizePolicy, QWidget

from lm_workbench.pretrain.for_views import config_fields
from lm_workbench.ui import theme
from lm_workbench.ui.view_kit.view_base import Computation, Inputs, ModelView
from lm_workbench.ui.widgets.boxes import column, form_rows, row
from lm_workbench.ui.widgets.controls import button, combo_box, label, line_edit, menu_button, spin_box
from lm_workbench.ui.widgets.notice import Notice
from lm_workbench.ui.widgets.scroll_area import scroll_area
from lm_workbench.ui.masking_lab.grid import Legend, PreviewGrid
from lm_workbench.ui.masking_lab.panels import ReconstructionPanel, StatsPanel
from lm_workbench.masking_lab.rows import rows_table
from lm_workbench.masking_lab.state import MAX_SEED, MaskingLabState
from lm_workbench.ui.widgets.config_form import ConfigForm
from lm_workbench.ui.widgets.export import export_dialog
from lm_workbench.ui.view_kit.view_context import ViewContext
from lm_workbench.ui.widgets.fold import ColumnScroll, FoldRow
from lm_workbench.export import export_csv, suggest_filename
from lm_workbench.masking_lab import view_tasks

MODEL_TOKENIZER, OTHER_TOKENIZER = 0, 1


class MaskingLabView(ModelView):
    no_model_hint = "Load a model (left): the lab uses its tokenizer, or another one you name."
    empty_hint = "Type a sentence above to see what the objective does to it."

    def __init__(self, ctx: ViewContext | None = None, parent: QWidget | None = None):
        super().__init__(ctx, parent)
        self.state = MaskingLabState()

        self.tokenizer_combo = combo_box(
            ["the loaded model's", "another model's:"],
            tip="Whose tokenizer splits the text (only the tokenizer is loaded, no weights)")
        self.tokenizer_edit = line_edit("folder, hub id or minilm")
        self.tokenizer_edit.setEnabled(False)
        self.objective_combo = combo_box()
        self.objective_note = label("", name="summary", wrap=True)
        self.form = ConfigForm()
        self.seed_spin = spin_box(0, MAX_SEED, 0,
                                  tip="The random seed: the same seed and settings give the same output")
        self.resample_button = button("Resample", tip="Draw again with the next seed (seed + 1)", clicked=self.resample)

        controls = QWidget()
        form = form_rows(("Tokenizer", self.tokenizer_combo), ("", self.tokenizer_edit),
                         ("Objective", self.objective_combo))
        settings_box = QGroupBox("Settings")
        column(settings_box, self.form, margins="group_margins", spacing=None)
        seed_row = row(QLabel("Seed"), (self.seed_spin, 1), self.resample_button)
        column(controls, form, self.objective_note, settings_box, seed_row, 1, margins="scroll_column_margins",
               spacing=None)
        # never narrower than its fields need (presentation mode's larger font), at most as wide as it asks
        left = ColumnScroll(least=lambda m: m.lab_column_min_w)
        left.setWidget(controls)
        left.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)

        self.notice = Notice()
        self.grid = PreviewGrid()
        self.grid_scroll = scroll_area(self.grid, sideways=False)
        self.legend = Legend()
        self.export_button = menu_button("Export")
        menu = QMenu(self.export_button)
        menu.addAction("Table as CSV…", self.export_csv_dialog)
        menu.addAction("View as PNG or SVG…", self.export_picture_dialog)
        self.export_button.setMenu(menu)
        self.stats = StatsPanel()
        self.model_panel = ReconstructionPanel()
        bottom = FoldRow()  # the two tables one above the other where they do not fit side by side
        bottom.addWidget(self.stats, 1)
        bottom.addWidget(self.model_panel, 1)
        theme.bind(bottom, lambda w, m: w.setMaximumHeight(m.lab_tables_max_h))
        bottom.folded.connect(lambda folded: bottom.setMaximumHeight(
            theme.current().metrics.lab_tables_max_h * (2 if folded else 1)))
        head = QHBoxLayout()
        head.addWidget(self.legend, 1)
        head.addWidget(self.export_button, 0, Qt.AlignmentFlag.AlignTop)
        right = column(None, self.notice, head, (self.grid_scroll, 1), bottom, margins=None, spacing="row_spacing")
        row(left, (right, 1), owner=self, margins="view_margins")

        self.tokenizer_combo.currentIndexChanged.connect(self._tokenizer_choice_changed)
        self.tokenizer_edit.editingFinished.connect(self.inputs_changed.emit)
        self.objective_combo.currentIndexChanged.connect(self._objective_changed)
        self.form.changed.connect(self.inputs_changed.emit)
        self.seed_spin.valueChanged.connect(lambda _: self.inputs_changed.emit())
        self.stats.draw_requested.connect(self.draw_samples)
        self.state.events.result_changed.connect(self._show_result)

    # ------------------------------------------------------ host interface
    def computation(self, inputs: Inputs) -> Computation | None:
        self.state.loaded = inputs.loaded
        if self.registry is None:
            settings = self.ctx.settings if self.ctx is not None else None
            return Computation(("lab-registry",), lambda cancel: view_tasks.discover_registry(settings, cancel),
                               self._registry_ready)
        spec = self.tokenizer_spec()
        if spec is not None and spec not in self.state.tokenizers:
            trust = bool(getattr(self.ctx.settings if self.ctx else None, "trust_remote_code", False))
            return Computation(("lab-tokenizer", spec), lambda cancel: view_tasks.load_other_tokenizer(spec, trust, cancel),
                               lambda tok: self._tokenizer_ready(spec, tok), label=f"Loading the tokenizer of {spec}…")
        self._refresh_objectives()
        self._apply_preset_objective()
        name = self.objective_name()
        if name is None:
            self.show_hint("No working objective applies to this tokenizer's model family.")
            return None
        config = self.form.config()
        if config is None:
            return None  # the form shows why
        seed, text, loaded = self.seed_spin.value(), inputs.text, inputs.loaded
        tokenizer = self.state.tokenizer(spec)
        registry = self.registry
        key = self.state.request_key(inputs.model_key, text, spec, name, config, seed)
        return Computation(key, lambda cancel: view_tasks.corrupt(registry, name, tokenizer, text, config, seed, loaded,
                                                           spec is None, cancel), lambda r: self._show(key, r))

    def show_hint(self, text: str) -> None:
        self.notice.show_message(text, "info")
        self.state.clear()

    def show_failure(self, message: str) -> None:
        self.show_hint(message)
        self.notice.show_message(message, "warning")

    # ------------------------------------------------------------ presets
    # what a lecture step or a workspace may set here (apply_preset_step takes them, preset_state reports them)
    preset_settings = frozenset({"tokenizer", "objective", "config", "seed", "samples"})

    def apply_preset_step(self, settings: dict[str, Any], inputs: dict[str, Any]) -> None:
        """A lecture step or a workspace: ``tokenizer`` (a model spec, or None for the loaded model's),
        ``objective``, ``config`` (field -> value), ``seed`` and ``samples`` (draw that many once shown).
        The objective and its settings wait until the objectives for the tokenizer are listed."""
        self.state.preset = dict(settings)
        if "tokenizer" in settings:
            spec = settings["tokenizer"] or ""
            self.tokenizer_combo.blockSignals(True)
            self.tokenizer_combo.setCurrentIndex(OTHER_TOKENIZER if spec else MODEL_TOKENIZER)
            self.tokenizer_combo.blockSignals(False)
            self.tokenizer_edit.setText(spec)
            self.tokenizer_edit.setEnabled(bool(spec))
        if "seed" in settings:
            self.seed_spin.blockSignals(True)
            self.seed_spin.setValue(int(settings["seed"]))
            self.seed_spin.blockSignals(False)
        if "samples" in settings:
            self.stats.n_spin.setValue(int(settings["samples"]))
        self.inputs_changed.emit()

    def _apply_preset_objective(self) -> None:
        preset = self.state.preset
        if preset is None or not ("objective" in preset or "config" in preset):
            return
        name = preset.pop("objective", None) or self.objective_name()
        config = preset.pop("config", None) or {}
        index = self.objective_combo.findData(name)
        if index < 0 or not self.objective_combo.model().item(index).isEnabled():
            self.notice.show_message(f"The objective {name!r} does not apply to this tokenizer.", "warning")
            return
        unknown = sorted(set(config) - {f.name for f in config_fields(type(self.registry.objective(name)
                                                                          .default_config()))})
        if unknown:
            self.notice.show_message(f"{name} has no setting {', '.join(unknown)}; the rest was applied.", "warning")
        self.objective_combo.blockSignals(True)
        self.objective_combo.setCurrentIndex(index)
        self.objective_combo.blockSignals(False)
        self.blockSignals(True)  # computing already: no inputs_changed from here
        self.form.blockSignals(True)
        self.form.set_objective(self.registry.objective(name))  # the defaults, then the step's values
        self.form.set_values({k: v for k, v in config.items() if k not in unknown})
        self._objective_changed()
        self.form.blockSignals(False)
        self.blockSignals(False)

    def preset_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """What ``apply_preset_step`` needs to show this again (settings, no inputs of its own)."""
        settings: dict[str, Any] = {"tokenizer": self.tokenizer_spec(), "seed": self.seed_spin.value()}
        if self.objective_name() is not None:
            settings["objective"] = self.objective_name()
            settings["config"] = self.form.values()
        return settings, {}

    # -------------------------------------------------------------- inputs
    def tokenizer_spec(self) -> str | None:
        """None for the loaded model's tokenizer, else the typed model spec."""
        if self.tokenizer_combo.currentIndex() == OTHER_TOKENIZER and self.tokenizer_edit.text().strip():
            return self.tokenizer_edit.text().strip()
        return None

    def objective_name(self) -> str | None:
        index = self.objective_combo.currentIndex()
        return self.objective_combo.itemData(index) if index >= 0 else None

    def set_objective(self, name: str) -> None:
        self.objective_combo.setCurrentIndex(self.objective_combo.findData(name))

    def resample(self) -> None:
        self.seed_spin.setValue(min(self.seed_spin.value() + 1, MAX_SEED))

    def _tokenizer_choice_changed(self, index: int) -> None:
        self.tokenizer_edit.setEnabled(index == OTHER_TOKENIZER)
        self.inputs_changed.emit()

    # the state's, by the names tests and the export read
    registry = property(lambda self: self.state.registry)
    result = property(lambda self: self.state.result)
    shown_key = property(lambda self: self.state.shown_key)
    bands = property(lambda self: self.state.bands)

    def _registry_ready(self, registry: Any) -> None:
        self.state.registry = registry
        self.inputs_changed.emit()

    def _tokenizer_ready(self, spec: str, tokenizer: Any) -> None:
        self.state.tokenizers[spec] = tokenizer
        self.inputs_changed.emit()

    def _refresh_objectives(self) -> None:
        """List the objectives for the tokenizer's family (all, with a note, when it is unknown)."""
        family = self.state.family(self.tokenizer_spec())
        if family == self.state.family_key:
            return
        self.state.family_key = family
        current = self.objective_name()
        choices = self.state.objective_choices(family)
        combo = self.objective_combo
        combo.blockSignals(True)
        combo.clear()
        for choice in choices:
            combo.addItem(choice.label, choice.name)
            if not choice.enabled:
                combo.model().item(combo.count() - 1).setEnabled(False)
                combo.setItemData(combo.count() - 1, choice.reason, Qt.ItemDataRole.ToolTipRole)
        pick = self.state.pick(current, choices, family)
        combo.setCurrentIndex(combo.findData(pick) if pick else -1)
        combo.blockSignals(False)
        self._family_note = self.state.family_note(family)
        self._objective_changed()

    def _objective_changed(self, *_: Any) -> None:
        name = self.objective_name()
        objective = self.registry.objective(name) if (self.registry is not None and name) else None
        if objective is not self.form.objective:
            self.form.set_objective(objective)
        note = getattr(self, "_family_note", "")
        if objective is not None:
            note = f"{objective.description} {note}".strip()
            self.objective_combo.setToolTip(objective.paper)
        self.objective_note.setText(note)
        self.inputs_changed.emit()

    # ------------------------------------------------------------- results
    def _show(self, key: Any, result: dict[str, Any]) -> None:
        if self.state.show(key, result):
            self.stats.clear()
        samples = self.state.take_preset_samples()
        if samples:
            self.draw_samples(samples)

    def _show_result(self) -> None:
        self.grid.set_bands(self.state.bands)
        if self.state.result is None:
            return
        self.grid_scroll.setMinimumHeight(min(self.grid.minimumHeight() + 4, theme.current().metrics.lab_grid_max_h))
        note = self.state.cut_note()
        if note:
            self.notice.show_message(note, "info")
        else:
            self.notice.clear_message()
        self.model_panel.set_result(self.state.result)

    def draw_samples(self, n: int) -> None:
        if self.ctx is None or self.result is None or self.registry is None:
            return
        config = self.form.config()
        if config is None:
            return
        spec, name, seed = self.tokenizer_spec(), self.objective_name(), self.seed_spin.value()
        tokenizer = self.state.tokenizer(spec)
        text, registry = self.ctx.current_text(), self.registry
        self.compute(Computation(
            self.state.stats_request_key(spec, name, config, seed, n, text),
            lambda cancel: view_tasks.statistics(registry, name, tokenizer, text, config, seed, n, cancel),
            self.stats.set_rates, label=f"Drawing {n} samples…"))

    # -------------------------------------------------------------- export
    def table(self) -> tuple[list[str], list[list[Any]]]:
        return rows_table(self.bands)

    def export_csv(self, path: str | Path) -> Path:
        return export_csv(path, self.table())

    def _suggest(self, ext: str) -> str:
        spec = self.ctx.model_spec() if self.ctx is not None else "model"
        return str(Path.home() / suggest_filename(f"lab-{self.objective_name() or 'objective'}", spec, ext))

    def export_csv_dialog(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Export the preview as CSV", self._suggest("csv"),
                                              "CSV table (*.csv)")
        if name:
            self._try(lambda: self.export_csv(name))

    def export_picture_dialog(self) -> None:
        self._try(lambda: export_dialog(self, self, self._suggest("png")))

    def _try(self, fn: Any) -> None:
        try:
            fn()
        except Exception as exc:  # a bad path, a full disk: one line in the message bar
            if self.ctx is not None:
                self.ctx.show_error(exc)
