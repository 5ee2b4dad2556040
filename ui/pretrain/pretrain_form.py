"""The pre-training form: family, objective and its settings, architecture, data, training, output.

Everything a ``PretrainSpec`` holds, built from the configs themselves: the
objectives come from the ``ObjectiveRegistry`` (those for the chosen family
whose tokens its tokenizer has), their settings form from the objective's
``Config`` fields, the training settings from ``TrainingConfig``'s fields with
their help texts as tooltips, the presets from ``lm_workbench.engine.pretrain``'s
``PRESETS``. Finding the plugins and counting parameters import torch and
transformers, so they run on the form's own worker thread (a ``JobBridge``),
never on the Qt thread; the parameter count follows each edit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QSpinBox, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.pretrain.for_views import TrainingConfig, training_config_fields, with_article
from lm_workbench.ui import theme
from lm_workbench.ui.view_kit.job_bridge import JobBridge
from lm_workbench.ui.pretrain.corpus_list import CorpusList
from lm_workbench.ui.pretrain.field_form import FieldForm
from lm_workbench.ui.widgets.config_form import ConfigForm
from lm_workbench.pretrain.family_objectives import FAMILIES, PREFERRED_OBJECTIVE, fits_family, missing_tokens
from lm_workbench.pretrain.spec import PretrainSpec
from lm_workbench.runs.summary import default_out_dir
from lm_workbench.pretrain.view_tasks import count_architecture, discover_choices
from lm_workbench.ui.widgets.boxes import column, row, themed
from lm_workbench.ui.widgets.controls import button, combo_box, label, line_edit, spin_box
from lm_workbench.ui.widgets.interval_timer import interval_timer

FAMILY_LABELS = {"bert": "BERT (encoder)", "gpt2": "GPT-2 (decoder)", "bart": "BART (encoder-decoder)",
                 "t5": "T5 (encoder-decoder)", "elmo": "ELMo (biLM: LSTMs)"}
LAYERS_TIP = "Transformer layers (in each stack of an encoder-decoder)."
HIDDEN_TIP = "Hidden size (model width); the feed-forward layer is 4x wider."
HEADS_TIP = "Attention heads; the hidden size must be a multiple of it (the preset uses hidden / 64)."
PRIMARY_TRAINING = ("steps", "batch_size", "lr", "warmup_steps", "schedule", "eval_every", "log_every", "seed",
                    "device")
COUNT_DELAY_MS = 150


def format_parameters(n: int) -> str:
    short = f"{n / 1e6:.2f} M" if n >= 1e6 else f"{n / 1e3:.1f} k"
    return f"{n:,} parameters ({short})"


class TrainingForm(QWidget):
    """The settings of one pre-training run; ``spec()`` returns them as a ``PretrainSpec``."""

    changed = Signal()
    ready_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.registry: Any = None
        self.presets: dict[str, tuple[int, int]] = {}
        self.elmo_presets: dict[str, tuple[int, int]] = {}  # (LSTM layers, projection width)
        self._presets_for = ""  # the family kind the preset menu lists: "elmo" or "transformer"
        self._counter: Any = None
        self._bridge: JobBridge | None = None
        self.parameter_count: int | None = None
        self._count_key: Any = None
        self._counts: dict[Any, int] = {}  # count key -> parameters, so going back shows at once
        self._last_hidden = 128
        self._count_timer = interval_timer(self, COUNT_DELAY_MS, self._request_count, single_shot=True)

        self.name_edit = line_edit("optional: a name for the runs table")
        self.family_combo = combo_box([(FAMILY_LABELS.get(family, family), family) for family in FAMILIES])
        self.family_combo.setCurrentIndex(self.family_combo.findData("bert"))
        self.objective_combo = combo_box([("finding objectives…", None)])
        self.objective_note = label(name="summary", wrap=True)
        self.objective_form = ConfigForm()

        self.preset_combo = combo_box()
        self.layers_spin = self._spin(1, 48, LAYERS_TIP)
        self.hidden_spin = self._spin(8, 4096, HIDDEN_TIP, 8)
        self.heads_spin = self._spin(1, 64, HEADS_TIP)
        self.params_label = label("counting parameters…", name="paramsLabel",
                                  tip="Counted on the 'meta' device (no memory used): embeddings, every layer and "
                                      "the objective's heads, with the vocabulary size below.")

        self.corpus = CorpusList()
        self.corpus.add_python_docs()  # a corpus every machine has: Start works out of the box
        self.vocab_spin = self._spin(300, 250_000, "Vocabulary size of the tokenizer trained on the corpus.", 100)
        self.vocab_spin.setValue(8000)
        self.seq_spin = self._spin(8, 4096, "Sequence length examples are packed to (tokens, with the special "
                                            "tokens); also the model's number of positions.", 8)
        self.seq_spin.setValue(128)

        self.training = FieldForm(training_config_fields(), primary=PRIMARY_TRAINING)
        self.out_edit = line_edit("automatic: <data folder>/pretrained/<family>-<objective>-<time>",
                                  tip="The run writes checkpoints and the finished model (in its 'model' subfolder) "
                                      "here.")
        self.out_browse = button("Browse…", clicked=self._browse_out)
        self.error_label = label(name="formError", wrap=True)
        self.error_label.setStyleSheet(f"QLabel#formError {{ color: {theme.current().colours.error.ink}; }}")
        self.error_label.hide()
        self._build_layout()

        self.family_combo.currentIndexChanged.connect(self._family_changed)
        self.objective_combo.currentIndexChanged.connect(self._objective_changed)
        self.objective_form.changed.connect(self._edited)
        self.preset_combo.currentIndexChanged.connect(self._preset_changed)
        self.hidden_spin.valueChanged.connect(self._hidden_changed)
        for spin in (self.layers_spin, self.heads_spin, self.vocab_spin, self.seq_spin):
            spin.valueChanged.connect(self._edited)
        self.corpus.changed.connect(self.changed)
        self.training.changed.connect(self.changed)

    # --------------------------------------------------------------- layout
    @staticmethod
    def _spin(lo: int, hi: int, tip: str, step: int = 1) -> QSpinBox:
        spin = spin_box(lo, hi, lo, tip=tip, step=step)  # Qt's 0 clamped to ``lo`` by the range
        spin.setKeyboardTracking(False)
        return spin

    @staticmethod
    def _group(title: str) -> tuple[QGroupBox, QFormLayout]:
        box = QGroupBox(title)
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        themed(form, margins="form_margins")
        return box, form

    def _build_layout(self) -> None:
        model_box, model = self._group("Model")
        model.addRow("Name", self.name_edit)
        model.addRow("Family", self.family_combo)
        model.addRow("Objective", self.objective_combo)
        model.addRow(self.objective_note)
        model.addRow(self.objective_form)
        arch_box, arch = self._group("Architecture")
        arch.addRow("Preset", self.preset_combo)
        sizes = QHBoxLayout()
        for text, spin in (("layers", self.layers_spin), ("hidden", self.hidden_spin), ("heads", self.heads_spin)):
            sizes.addWidget(QLabel(text))
            sizes.addWidget(spin, 1)
        arch.addRow(sizes)
        arch.addRow(self.params_label)
        data_box, data = self._group("Data")
        data.addRow(self.corpus)
        data.addRow("Vocabulary", self.vocab_spin)
        data.addRow("Sequence length", self.seq_spin)
        train_box = QGroupBox("Training")
        column(train_box, self.training, margins="form_margins", spacing=None)
        out_box, out = self._group("Output folder")
        out.addRow(row((self.out_edit, 1), self.out_browse))
        column(self, model_box, arch_box, data_box, train_box, out_box, self.error_label, 1,
               margins="form_scroll_margins")

    # ------------------------------------------------------------- workers
    def start(self) -> None:
        """Find the objectives and presets (once, in the background)."""
        if self.registry is not None or self._bridge is not None:
            return
        self._bridge = JobBridge(self, lane_name="pretrain-form")
        self._bridge.run(discover_choices, name="discover", on_done=self._discovered,
                         on_error=lambda exc, tb: self._show_error(f"Could not find the objectives: {exc}"))

    def shutdown(self) -> None:
        """Stop the form's worker thread (the window is closing)."""
        self._count_timer.stop()
        if self._bridge is not None:
            self._bridge.shutdown()

    @property
    def ready(self) -> bool:
        return self.registry is not None

    def _discovered(self, result: tuple[Any, dict, Any, dict]) -> None:
        self.registry, self.presets, self._counter, self.elmo_presets = result
        self._fill_presets()
        self._family_changed()
        self.ready_changed.emit(True)

    def _is_elmo(self) -> bool:
        return self.family() == "elmo"

    def _family_presets(self) -> dict[str, tuple[int, int]]:
        return self.elmo_presets if self._is_elmo() else self.presets

    def _fill_presets(self) -> None:
        """List the family's presets (ELMo has its own); keep the chosen name when the new list has it."""
        kind = "elmo" if self._is_elmo() else "transformer"
        if kind == self._presets_for:
            return
        self._presets_for = kind
        current = self.preset_combo.currentData() or "tiny"
        self.preset_combo.blockSignals(True)
        self.preset_combo.clear()
        for name, (layers, hidden) in self._family_presets().items():
            self.preset_combo.addItem(f"{name}  (L{layers} / H{hidden})", name)
        index = self.preset_combo.findData(current)
        self.preset_combo.setCurrentIndex(index if index >= 0 else max(0, self.preset_combo.findData("tiny")))
        self.preset_combo.blockSignals(False)
        elmo = kind == "elmo"
        self.heads_spin.setEnabled(not elmo)
        self.heads_spin.setToolTip("ELMo has no attention heads." if elmo else HEADS_TIP)
        self.layers_spin.setToolTip("LSTM layers per direction." if elmo else LAYERS_TIP)
        self.hidden_spin.setToolTip("Width of the word vectors and of each LSTM's projected output (each layer "
                                    "is twice as wide: forward and backward)." if elmo else HIDDEN_TIP)
        self._preset_changed()

    def _current_count_key(self) -> tuple:
        """What the count depends on; ``WorkbenchError`` for sizes that cannot be built."""
        arch, head = self._arch_dict(), self._head()
        return (tuple(sorted(arch.items())), self.vocab_spin.value(), head)

    def _refresh_count(self) -> None:
        """After an edit: show a known count at once, else mark it pending and count after a pause."""
        try:
            key = self._current_count_key()
        except WorkbenchError as exc:
            self._count_key, self.parameter_count = None, None
            self.params_label.setText(str(exc))
            self._count_timer.stop()
            return
        if key in self._counts:
            self._count_key = key
            self._counted(key, self._counts[key])
            self._count_timer.stop()
            return
        self._count_key, self.parameter_count = key, None
        self.params_label.setText("counting parameters…")
        self._count_timer.start()

    def _request_count(self) -> None:
        if self._counter is None or self._bridge is None or self._bridge.closed or self._count_key is None:
            return
        key = self._count_key
        arch, vocab, head = dict(key[0]), key[1], key[2]
        counter = self._counter
        self._bridge.run(lambda cancel: count_architecture(counter, arch, vocab, head, cancel), name="count",
                         on_done=lambda n: self._counted(key, n),
                         on_error=lambda exc, tb: self._count_failed(key, exc))

    def _counted(self, key: Any, n: int) -> None:
        self._counts[key] = n
        if key == self._count_key:
            self.parameter_count = n
            self.params_label.setText(format_parameters(n))

    def _count_failed(self, key: Any, exc: BaseException) -> None:
        if key == self._count_key:
            self.parameter_count = None
            self.params_label.setText(f"cannot build this architecture: {exc}")

    # -------------------------------------------------------------- values
    def family(self) -> str:
        return str(self.family_combo.currentData())

    def objective_name(self) -> str | None:
        return self.objective_combo.currentData()

    def _head(self) -> str:
        objective = self.objective_form.objective
        if objective is None:
            raise WorkbenchError("choose an objective")
        config = self.objective_form.config()
        return objective.requirements(config if config is not None else objective.default_config()).head

    def _preset_sizes(self) -> tuple[int, int, int]:
        layers, hidden = self._family_presets().get(self.preset_combo.currentData() or "tiny", (2, 128))
        return layers, hidden, max(1, hidden // 64)

    def _arch_dict(self) -> dict[str, Any]:
        """The ArchitectureSpec fields: preset values left as None, edits given."""
        layers, hidden, heads = self._preset_sizes()
        spec = {"family": self.family(), "preset": self.preset_combo.currentData() or "tiny",
                "layers": None, "hidden": None, "heads": None, "max_positions": self.seq_spin.value()}
        if self.layers_spin.value() != layers:
            spec["layers"] = self.layers_spin.value()
        if self.hidden_spin.value() != hidden:
            spec["hidden"] = self.hidden_spin.value()
        if self._is_elmo():  # no attention heads
            return spec
        auto_heads = max(1, self.hidden_spin.value() // 64)
        if self.heads_spin.value() != auto_heads:
            spec["heads"] = self.heads_spin.value()
        if self.hidden_spin.value() % self.heads_spin.value():
            raise WorkbenchError(f"the hidden size {self.hidden_spin.value()} is not a multiple of "
                                 f"{self.heads_spin.value()} heads")
        return spec

    def objective_config(self) -> dict[str, str]:
        """The objective's settings that differ from its defaults, as strings (as the CLI's --set takes)."""
        defaults = {f.name: f.default for f in self.objective_form.fields}
        return {k: str(v) for k, v in self.objective_form.values().items() if v != defaults.get(k)}

    def spec(self) -> PretrainSpec:
        """The run these settings describe; ``WorkbenchError`` (shown under the form) when incomplete."""
        try:
            spec = self._spec()
        except WorkbenchError as exc:
            self._show_error(str(exc))
            raise
        self._show_error("")
        return spec

    def _spec(self) -> PretrainSpec:
        if not self.ready:
            raise WorkbenchError("the objectives are still being found; try again in a moment")
        objective = self.objective_name()
        if not objective:
            raise WorkbenchError(f"no objective applies to {self.family()} here")
        if self.objective_form.config() is None:
            raise WorkbenchError(f"objective settings: {self.objective_form.error()}")
        arch = self._arch_dict()
        if not self.corpus.entries():
            raise WorkbenchError("add at least one corpus file (or the built-in Python docs)")
        training = self.training.changed_values()
        try:
            TrainingConfig.from_dict(self.training.values())
        except TypeError as exc:
            raise WorkbenchError(f"training settings: {exc}") from None
        out_dir = self.out_edit.text().strip() or str(
            default_out_dir("pretrained", f"{self.family()}-{objective}-{arch['preset']}"))
        spec = PretrainSpec(
            family=self.family(), objective=objective, corpus=self.corpus.resolved_paths(), out_dir=out_dir,
            preset=arch["preset"], layers=arch["layers"], hidden=arch["hidden"], heads=arch["heads"],
            max_positions=self.seq_spin.value(), vocab_size=self.vocab_spin.value(),
            objective_config=self.objective_config(), training=training,
            name=self.name_edit.text().strip() or None)
        spec.check()
        return spec

    def total_steps(self) -> int:
        return int(self.training.values()["steps"])

    # ------------------------------------------------------------ reactions
    def _family_changed(self, *_: Any) -> None:
        if self.registry is None:
            return
        self._fill_presets()
        family = self.family()
        current = self.objective_name()
        combo = self.objective_combo
        combo.blockSignals(True)
        combo.clear()
        usable: list[str] = []
        for record in sorted(self.registry.records, key=lambda r: (r.status != "ok", r.name)):
            if not fits_family(family, record.families):
                continue
            if record.status != "ok":
                why, label = record.error or "not enabled", f"{record.name} ({record.status})"
            else:
                why = self._missing_tokens(record.name)
                label = f"{record.name} (not for {family})" if why else record.name
            combo.addItem(label, record.name)
            if why:
                combo.model().item(combo.count() - 1).setEnabled(False)
                combo.setItemData(combo.count() - 1, why, Qt.ItemDataRole.ToolTipRole)
            else:
                usable.append(record.name)
        pick = current if current in usable else PREFERRED_OBJECTIVE.get(family)
        pick = pick if pick in usable else (usable[0] if usable else None)
        combo.setCurrentIndex(combo.findData(pick) if pick else -1)
        combo.blockSignals(False)
        self._objective_changed()

    def _missing_tokens(self, name: str) -> str:
        """Why the family's tokenizer cannot serve this objective ("" when it can)."""
        try:
            objective = self.registry.objective(name)
            needs = objective.requirements(objective.default_config()).tokens
        except Exception as exc:  # a broken plugin: say so in the tooltip
            return str(exc)
        missing = missing_tokens(self.family(), needs)
        if not missing:
            return ""
        return f"needs {', '.join(missing)}, which {with_article(self.family())} tokenizer does not have"

    def _objective_changed(self, *_: Any) -> None:
        name = self.objective_name()
        objective = self.registry.objective(name) if (self.registry is not None and name) else None
        if objective is not self.objective_form.objective:
            self.objective_form.set_objective(objective)
        self.objective_note.setText(objective.description if objective is not None else
                                    "No objective applies to this family.")
        if objective is not None:
            self.objective_combo.setToolTip(objective.paper)
        self._edited()

    def _preset_changed(self, *_: Any) -> None:
        layers, hidden, heads = self._preset_sizes()
        for spin, value in ((self.layers_spin, layers), (self.hidden_spin, hidden), (self.heads_spin, heads)):
            spin.blockSignals(True)
            spin.setValue(value)
            spin.blockSignals(False)
        self._last_hidden = hidden
        self._edited()

    def _hidden_changed(self, value: int) -> None:
        """Keep heads at hidden / 64 (as the presets do) unless the user set them otherwise."""
        if self.heads_spin.value() == max(1, self._last_hidden // 64):
            self.heads_spin.blockSignals(True)
            self.heads_spin.setValue(max(1, value // 64))
            self.heads_spin.blockSignals(False)
        self._last_hidden = value
        self._edited()

    def _edited(self, *_: Any) -> None:
        if self.registry is not None:
            self._refresh_count()
        self.changed.emit()

    def _browse_out(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Output folder", str(Path.home()))
        if folder:
            self.out_edit.setText(folder)

    def _show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))
