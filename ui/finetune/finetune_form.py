"""The Fine-tune tab's form: task, data files, method (its config as a form), learning rate and schedule.

Every edit goes into the tab's ``FineTuneState``. Choosing a task puts its
offline demo set in the training file box, so a fresh machine can press
Start. Choosing a method rebuilds its config form from the method's
``Config`` dataclass, sets the learning rate to the method's own default and
shows why (``lr_reason``), and redraws the attachment diagram (which follows
the settings too: ``attachment_for(config)``, e.g. LoRA's target matrices) and, under it, the method's
row in He et al.'s unified view (``unified_for(config)``, formula typeset); "All methods side by side…"
opens the table of every method's row (exportable). The number
and share of trainable parameters are counted off the Qt thread whenever
the model, the task, the training file, the method or its config change
(``lm_workbench.finetune.train.parameter_counts``: the method applied to the task
model the run would train, after the run's own checks, so a bad file or
setting shows here before Start).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QFormLayout, QGridLayout, QLabel, QMenu, QToolButton, QWidget,
)

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.demo import demo_path, demo_validation_path
from lm_workbench.engine.finetune.names import LABELLED_TASKS, SENTENCE_TASK, TRIPLET_MARGIN
from lm_workbench.ui import theme
from lm_workbench.ui.finetune.attachment_diagram import AttachmentDiagram
from lm_workbench.ui.finetune.unified_row import UnifiedRowLabel
from lm_workbench.ui.widgets import boxes, controls
from lm_workbench.ui.widgets.config_form import ConfigForm
from lm_workbench.ui.widgets.file_choice import file_or_ask
from lm_workbench.ui.widgets.boxes import form_rows
from lm_workbench.ui.widgets.dataset_picker import choose_cached_dataset
from lm_workbench.finetune.state import FineTuneState
from lm_workbench.finetune.view_tasks import count_job

TASK_TITLES = {
    "seq-cls": "Sentence classification",
    "token-cls": "Token classification (BIO tags)",
    "qa": "Extractive question answering",
    "seq2seq": "Sequence to sequence",
    "sentence-embedding": "Sentence embedding (S-BERT)",
    "instruct": "Instruction tuning (loss on the answers)",
    "preference": "Preference tuning (DPO)",
}
LOSS_TITLES = {"": "by the data (cosine for scored pairs, triplet for triplets)",
               "cosine": "cosine: cos(u, v) regressed to score / max", "cosent": "CoSENT: ranks the pairs by score",
               "triplet": "triplet: max(‖a − p‖ − ‖a − n‖ + ε, 0)", "mnrl": "in-batch negatives (MNRL)"}
POOLING_TITLES = {"mean": "mean of the tokens", "cls": "first token ([CLS])", "max": "maximum over the tokens"}
MIN_COMBO_CHARS = 16  # characters, not pixels
FILE_FILTER = "Task files (*.tsv *.csv *.jsonl *.json *.conll *.txt);;All files (*)"


def as_strings(values: dict[str, Any]) -> dict[str, str]:
    """Config values as the strings ``FineTuneSpec.method_config`` holds (bools as true/false)."""
    return {k: (("true" if v else "false") if isinstance(v, bool) else str(v)) for k, v in values.items()}


class FineTuneForm(QWidget):
    """The form; ``count`` is the last trainable-parameter count (None while unknown)."""

    def __init__(self, ctx: Any, state: FineTuneState, methods: dict[str, Any], parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx, self.state, self.methods = ctx, state, methods
        self.count: Any = None

        self.task_combo = controls.combo_box([(title, task) for task, title in TASK_TITLES.items()])
        self.train_edit = controls.line_edit("training file")
        self.validation_edit = controls.line_edit("none: 10% of the training file, seeded")
        self.keep_unseen_check = QCheckBox("Leave out validation labels that training lacks")
        self.keep_unseen_check.setToolTip(
            "Classification: a validation example whose label never appears in training is refused (the run does "
            "not start, the message says which labels); ticked, such examples are left out of validation and "
            "counted in the run's notes (--keep-unseen-labels)")
        self.train_browse, self.validation_browse = QToolButton(), QToolButton()
        for button, which in ((self.train_browse, "train"), (self.validation_browse, "validation")):
            button.setText("Browse…")
            button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)  # the arrow: the datasets cache
            button.setToolTip("Choose a file; the arrow offers a split of a dataset already in the local Hugging "
                              "Face datasets cache, e.g. glue/sst2:train (the box also takes such a name)")
            menu = QMenu(button)
            menu.addAction("From the datasets cache…", lambda which=which: self.from_cache(which))
            button.setMenu(menu)
        self.method_combo = QComboBox()
        for name, method in methods.items():
            self.method_combo.addItem(method.title or name, name)
            self.method_combo.setItemData(self.method_combo.count() - 1, method.description,
                                       Qt.ItemDataRole.ToolTipRole)
        self.method_help = controls.label(name="summary", wrap=True)
        self.config_form = ConfigForm()
        # the spin boxes start at their least value until the state fills them in (_fill_from_state)
        self.lr_spin = controls.double_spin_box(1e-6, 1.0, 1e-6, decimals=6, step=1e-5)
        self.lr_reason = controls.label(name="summary", wrap=True)
        self.epochs_spin = controls.double_spin_box(0.1, 1000, 0.1, decimals=1)
        self.batch_spin = controls.spin_box(1, 4096, 1)
        self.length_spin = controls.spin_box(8, 8192, 8)
        self.seed_spin = controls.spin_box(0, 2**31 - 1, 0)
        # preference tuning's β (shown for that task only)
        self.beta_spin = controls.double_spin_box(
            0.001, 10.0, 0.001, decimals=3, step=0.05,
            tip="DPO's β: the loss is −log σ(β·[(log π(chosen) − log π_ref(chosen)) − (log π(rejected) − "
                "log π_ref(rejected))]); a small β lets the model move further from the reference (Rafailov et al. "
                "2023 used 0.1 to 0.5)")
        self.beta_label = controls.label("β (DPO)")
        for combo in (self.task_combo, self.method_combo):  # long titles must not widen the form column
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(MIN_COMBO_CHARS)
        self.sentence_box = QWidget()  # the sentence task's loss, pooling and margin (shown for that task only)
        self.loss_combo = controls.combo_box([(title, loss) for loss, title in LOSS_TITLES.items()])
        self.pooling_combo = controls.combo_box([(title, pooling) for pooling, title in POOLING_TITLES.items()])
        self.margin_spin = controls.double_spin_box(0.01, 100.0, TRIPLET_MARGIN, decimals=2, tip="ε of the triplet "
                                                    "loss: the negative must be at least ε farther from the anchor "
                                                    "than the positive (Euclidean)")
        self.sentence_help = controls.label("Scored pairs (sentence1, sentence2, score, as GLUE's STS-B) validate by "
                                            "Spearman's rho each epoch; triplets alone give the loss curve only.",
                                            name="summary", wrap=True)
        for combo in (self.loss_combo, self.pooling_combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(MIN_COMBO_CHARS)
        self.params_label = controls.label("Load a model to count the trainable parameters.", name="sectionTitle",
                                           wrap=True)
        self.diagram = AttachmentDiagram()
        self.unified_row = UnifiedRowLabel()  # the method's row in He et al.'s unified view, formula typeset
        self.unified_button = controls.button("All methods side by side…", tip="Every method as its row of He et "
                                              "al. (2022)'s unified view, exportable as CSV or a picture",
                                              clicked=lambda: self.show_unified_table())
        self.unified_dialog: Any = None
        self._build_layout()
        self._fill_from_state()

        self.task_combo.currentIndexChanged.connect(self._task_chosen)
        self.train_edit.editingFinished.connect(lambda: self._set(train=self.train_edit.text().strip()))
        self.validation_edit.editingFinished.connect(
            lambda: self._set(validation=self.validation_edit.text().strip()))
        self.train_browse.clicked.connect(lambda: self.browse("train"))
        self.validation_browse.clicked.connect(lambda: self.browse("validation"))
        # a recount checks the files again, so a refusal shown under the form goes once this is ticked
        self.keep_unseen_check.toggled.connect(lambda on: self._set(keep_unseen_labels=bool(on)))
        self.method_combo.currentIndexChanged.connect(lambda *_: self.choose_method(self.method_combo.currentData()))
        self.config_form.changed.connect(self._config_edited)
        self.lr_spin.valueChanged.connect(self._lr_edited)
        self.epochs_spin.valueChanged.connect(lambda v: self._set(epochs=float(v), recount=False))
        self.batch_spin.valueChanged.connect(lambda v: self._set(batch_size=int(v), recount=False))
        self.length_spin.valueChanged.connect(lambda v: self._set(max_length=int(v), recount=False))
        self.seed_spin.valueChanged.connect(lambda v: self._set(seed=int(v), recount=False))
        self.loss_combo.currentIndexChanged.connect(self._sentence_edited)
        self.pooling_combo.currentIndexChanged.connect(self._sentence_edited)
        self.margin_spin.valueChanged.connect(self._sentence_edited)
        self.beta_spin.valueChanged.connect(lambda v: self._set(beta=float(v), recount=False))
        ctx.model_changed.connect(lambda *_: self._model_changed())

    def _build_layout(self) -> None:
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Task", self.task_combo)
        for label, edit, button in (("Training", self.train_edit, self.train_browse),
                                    ("Validation", self.validation_edit, self.validation_browse)):
            form.addRow(label, boxes.row((edit, 1), button))
        form.addRow(self.keep_unseen_check)
        sentence = form_rows(("Loss", self.loss_combo), ("Pooling", self.pooling_combo),
                             ("Margin ε", self.margin_spin), owner=self.sentence_box)
        sentence.addRow(self.sentence_help)
        form.addRow(self.sentence_box)
        form.addRow("Method", self.method_combo)
        form.addRow(self.method_help)
        form.addRow(self.config_form)
        form.addRow(self.beta_label, self.beta_spin)
        form.addRow("Learning rate", self.lr_spin)
        form.addRow(self.lr_reason)
        schedule = QGridLayout()
        for i, (label, spin) in enumerate((("Epochs", self.epochs_spin), ("Batch size", self.batch_spin),
                                           ("Max length", self.length_spin), ("Seed", self.seed_spin))):
            schedule.addWidget(QLabel(label), i // 2, 2 * (i % 2))
            schedule.addWidget(spin, i // 2, 2 * (i % 2) + 1)
        form.addRow(schedule)
        boxes.column(self, form, self.params_label, (self.diagram, 1), self.unified_row,
                     boxes.row(self.unified_button, 1), margins="form_margins")

    def _fill_from_state(self) -> None:
        s = self.state
        self.task_combo.setCurrentIndex(self.task_combo.findData(s.task))
        if not s.train:
            s.train = self._demo(s.task)
        self.train_edit.setText(s.train)
        self.validation_edit.setText(s.validation)
        self.keep_unseen_check.setChecked(s.keep_unseen_labels)
        self.epochs_spin.setValue(s.epochs)
        self.batch_spin.setValue(s.batch_size)
        self.length_spin.setValue(s.max_length)
        self.seed_spin.setValue(s.seed)
        self.loss_combo.setCurrentIndex(max(0, self.loss_combo.findData(s.loss or "")))
        self.pooling_combo.setCurrentIndex(max(0, self.pooling_combo.findData(s.pooling or "mean")))
        self.beta_spin.setValue(s.beta)
        self._show_task_rows()
        self._show_sentence_box()
        method = s.method if s.method in self.methods else next(iter(self.methods), None)
        if method is not None:
            self.method_combo.setCurrentIndex(self.method_combo.findData(method))
            self.choose_method(method, recount=False)

    @staticmethod
    def _demo(task: str) -> str:
        try:
            return str(demo_path(task))
        except WorkbenchError:
            return ""

    # ----------------------------------------------------------------- API
    def method(self) -> Any:
        return self.methods.get(self.state.method)

    def choose_method(self, name: str, recount: bool = True) -> None:
        """Show ``name``'s config form (its defaults), its learning rate and why, and its attachment."""
        method = self.methods.get(name)
        if method is None:
            return
        if self.method_combo.currentData() != name:
            self.method_combo.setCurrentIndex(self.method_combo.findData(name))  # comes back here
            return
        self.config_form.set_objective(method)
        self.updateGeometry()  # new rows: the scroll area makes room for them
        self.lr_spin.blockSignals(True)
        self.lr_spin.setValue(float(method.default_lr))
        self.lr_spin.blockSignals(False)
        self.lr_reason.setText(f"Default {method.default_lr:g} for {method.title or name}: {method.lr_reason}")
        self.show_attachment(method, method.default_config())
        self.unified_row.show_row(method.unified_for(method.default_config()), method.title or name)
        self._set(method=name, method_config={}, lr=None, recount=recount)
        if self.unified_dialog is not None and self.unified_dialog.isVisible():
            self.show_unified_table()
        self._show_method_help()

    def show_unified_table(self) -> Any:
        """Open (or refresh) the table of every method's He et al. row; the chosen method's row is selected and
        shows its current settings. Returns the dialog."""
        from lm_workbench.ui.finetune.unified_table import UnifiedTableDialog

        if self.unified_dialog is None:
            self.unified_dialog = UnifiedTableDialog(self.ctx, self)
            self.unified_dialog.method_clicked.connect(self.choose_method)  # a row lights its diagram
            theme.bind(self.unified_dialog, lambda w, m: w.resize(m.diagram_min_w * 4, m.diagram_min_w * 2))
        method, config = self.method(), self.config_form.config()
        configs = {self.state.method: config} if method is not None and config is not None else {}
        self.unified_dialog.show_methods(self.methods, configs, self.state.method)
        self.unified_dialog.show()
        self.unified_dialog.raise_()
        return self.unified_dialog

    def browse(self, which: str, path: str | None = None) -> None:
        path = file_or_ask(self, path, f"{which.title()} file", FILE_FILTER,
                           start=self.train_edit.text() or str(Path.home()))
        if path is None:
            return
        (self.train_edit if which == "train" else self.validation_edit).setText(path)
        self._set(**{which: path})

    def from_cache(self, which: str) -> None:
        """A split in the datasets cache as the training or validation data."""
        reference = choose_cached_dataset(self)
        if reference:
            self.browse(which, reference)

    def set_values(self, *, task: str | None = None, epochs: float | None = None, seed: int | None = None,
                   loss: str | None = None, pooling: str | None = None, lr: float | None = None) -> None:
        """Set fields through their widgets, as a user would (a new task takes its demo file)."""
        if task is not None:
            index = self.task_combo.findData(task)
            if index < 0:
                raise WorkbenchError(f"unknown task {task!r}")
            self.task_combo.setCurrentIndex(index)
        if epochs is not None:
            self.epochs_spin.setValue(float(epochs))
        if seed is not None:
            self.seed_spin.setValue(int(seed))
        if loss is not None:
            self.loss_combo.setCurrentIndex(self.loss_combo.findData(loss))
        if pooling is not None:
            self.pooling_combo.setCurrentIndex(self.pooling_combo.findData(pooling))
        if lr is not None:
            self.lr_spin.setValue(float(lr))

    def show_attachment(self, method: Any, config: Any) -> None:
        """Draw where ``method`` attaches with ``config``, corrected for the task and the loaded model (no head
        for the sentence task, GPT-2's fused Q/K/V) with the sizes it takes on this model (MAM's scaled
        bottleneck)."""
        from lm_workbench.finetune.diagram_sites import diagram_sites

        loaded = self.ctx.loaded
        attachment = method.attachment_for(config)
        shown = diagram_sites(attachment.sites, self.state.task, loaded.info.model_type if loaded else None)
        notes = list(shown.notes)
        sizes = method.sizes_for(config, loaded.info.hidden_size) if loaded is not None else None
        if sizes:
            notes.insert(0, f"On this model: {sizes}.")
        self.diagram.set_attachment(attachment, method.title or method.name, sites=shown.sites, notes=notes)

    def _redraw_attachment(self) -> None:
        method = self.method()
        if method is not None:
            config = self.config_form.config()
            self.show_attachment(method, config if config is not None else method.default_config())

    def _model_changed(self) -> None:
        """Count at once when shown; a hidden form forgets its count (the tab recounts when it is shown)."""
        self._redraw_attachment()
        if self.isVisible():
            self.recount()
        else:
            self.count = None
            self.params_label.setText("Trainable parameters: counted when this tab is shown.")

    def recount(self) -> None:
        """Count the trainable parameters for the current choices (off the Qt thread)."""
        loaded, method = self.ctx.loaded, self.method()
        if loaded is None or method is None:
            self.count = None
            self.params_label.setText("Load a model to count the trainable parameters.")
            return
        config = self.config_form.config()
        if config is None:
            self.params_label.setText("Fix the method's settings to count the trainable parameters.")
            return
        self.params_label.setText("Trainable parameters: counting…")
        self.count = None
        self.ctx.jobs.run(count_job(self.state.spec(loaded.info.spec, out_dir="")),
                          self._show_count, step="count",
                          on_error=self._count_failed, when_idle=True)

    # ------------------------------------------------------------ internal
    def _show_count(self, count: Any) -> None:
        self.count = count
        self.params_label.setText(f"Trainable parameters: {count.trainable:,} of {count.total:,} "
                                  f"({count.percent:.3g}%)")

    def _count_failed(self, exc: BaseException, tb: str) -> None:
        self.count = None
        text = str(exc) if isinstance(exc, WorkbenchError) else f"{type(exc).__name__}: {exc}"
        self.params_label.setText(f"Cannot count: {text}")

    def _task_chosen(self, *_: Any) -> None:
        task = self.task_combo.currentData()
        old_demo = self._demo(self.state.task)
        changes: dict[str, Any] = {"task": task}
        if not self.state.train or self.state.train == old_demo:  # keep a file the user chose
            changes["train"] = self._demo(task)
            self.train_edit.setText(changes["train"])
        old_held = demo_validation_path(self.state.task)
        if not self.state.validation or (old_held is not None and self.state.validation == str(old_held)):
            held = demo_validation_path(task)  # a demo set with its own held-out file brings it along
            changes["validation"] = str(held) if held is not None and changes.get("train") else ""
            self.validation_edit.setText(changes["validation"])
        self._set(**changes)
        self._redraw_attachment()  # the task decides whether a head is trained
        self._show_task_rows()
        self._show_method_help()
        self._show_sentence_box()

    def _show_sentence_box(self) -> None:
        self.sentence_box.setVisible(self.state.task == SENTENCE_TASK)
        self.margin_spin.setEnabled(self.state.loss in (None, "triplet"))

    def _sentence_edited(self, *_: Any) -> None:
        loss = self.loss_combo.currentData() or None
        pooling = self.pooling_combo.currentData()
        margin = float(self.margin_spin.value())
        self._set(loss=loss, pooling=None if pooling == "mean" else pooling,
                  margin=None if abs(margin - TRIPLET_MARGIN) < 1e-12 else margin, recount=False)
        self._show_sentence_box()

    def _show_task_rows(self) -> None:
        """The task's own settings show for that task only (β for preference tuning)."""
        preference = self.state.task == "preference"
        self.beta_label.setVisible(preference)
        self.beta_spin.setVisible(preference)
        self.keep_unseen_check.setVisible(self.state.task in LABELLED_TASKS)

    def _show_method_help(self) -> None:
        method = self.method()
        if method is not None:
            task_ok = self.state.task in method.tasks
            self.method_help.setText(method.description if task_ok else
                                     f"{method.description} It does not support {self.state.task}.")

    def _config_edited(self) -> None:
        method = self.method()
        if method is None:
            return
        config = self.config_form.config()
        if config is not None:
            self.show_attachment(method, config)
            self.unified_row.show_row(method.unified_for(config), method.title or method.name)
        values = self.config_form.values()
        defaults = dataclasses.asdict(method.default_config())
        changed = {k: v for k, v in values.items() if defaults.get(k) != v}
        self._set(method_config=as_strings(changed))

    def _lr_edited(self, value: float) -> None:
        method = self.method()
        default = float(method.default_lr) if method is not None else None
        self._set(lr=None if default is not None and abs(value - default) <= 1e-12 else float(value), recount=False)

    def _set(self, recount: bool = True, **values: Any) -> None:
        self.state.set_form(**values)
        if recount:
            self.recount()
