"""The model panel: choose a model and see what it is.

A field for a hub id or folder with a Load button, "Open folder…", the
default model, the precision models load in (bfloat16 halves the memory, on a
CPU too), for a word-level model (ELMo) whether it takes the words as typed
(saved in that model's settings), the recent models (a click loads one), and the loaded model's facts
from ``ModelInfo``: family, size, heads, vocabulary, window, device.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox, QFileDialog, QFormLayout, QGroupBox, QLabel, QListWidget, QListWidgetItem, QSizePolicy, QWidget,
)

from lm_workbench.models.for_views import format_bytes

from lm_workbench.ui import theme
from lm_workbench.ui.view_kit.model_label import format_count, spec_label
from lm_workbench.ui.widgets.boxes import column, row
from lm_workbench.ui.widgets.controls import button, combo_box, line_edit

if TYPE_CHECKING:
    from lm_workbench.models.for_views import ModelInfo

FIELDS = (
    ("model", "Model"),
    ("family", "Family"),
    ("layers", "Layers"),
    ("heads", "Heads"),
    ("hidden", "Hidden size"),
    ("parameters", "Parameters"),
    ("vocab", "Vocabulary"),
    ("mlm_head", "MLM head"),
    ("lm_head", "LM head"),
    ("window", "Window"),
    ("device", "Device"),
    ("dtype", "Precision"),
    ("memory", "Memory"),
)


def info_values(info: ModelInfo) -> dict[str, str]:
    layers = str(info.layers)
    if info.decoder_layers is not None:
        layers = f"{info.layers} encoder + {info.decoder_layers} decoder"
    yes_no = {True: "yes", False: "no"}
    return {
        "model": spec_label(info.spec),
        "family": f"{info.family} ({info.model_type})" if info.model_type else info.family,
        "layers": layers,
        "heads": str(info.heads),
        "hidden": str(info.hidden_size),
        "parameters": format_count(info.parameters),
        "vocab": f"{info.vocab_size:,}",
        "mlm_head": yes_no[info.has_mlm_head],
        "lm_head": yes_no[info.has_lm_head],
        "window": f"{info.max_positions:,} tokens" if info.max_positions else "unlimited",
        "device": info.device,
        "dtype": info.dtype,
        "memory": format_bytes(info.memory_bytes),
    }


# (settings value, label, tooltip) of the precisions a model loads in
PRECISION_CHOICES = (
    ("auto", "Precision: auto", "float32 on a CPU; bfloat16 (or float16) on a CUDA GPU"),
    ("float32", "float32", "Full precision: 4 bytes per weight"),
    ("bfloat16", "bfloat16 (half the memory)",
     "2 bytes per weight: half the memory of float32, with float32's range (probabilities are still computed in "
     "float32). On a CPU its speed depends on the processor: BERT-base on 128 tokens took 138 ms against 177 ms "
     "in float32 on a 2-core test machine; older CPUs without bfloat16 instructions run it slower"),
    ("float16", "float16 (CUDA only)", "2 bytes per weight, on CUDA GPUs only; a CPU loads float32 instead"),
)


class ModelPanel(QWidget):
    load_requested = Signal(str)
    precision_changed = Signal(str)  # a PRECISION_CHOICES value: the window saves it and reloads the model
    words_changed = Signal(str)  # an ELMo's words mode ("as-given" or "split"): the window saves it and reloads

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model_edit = line_edit("Hub id or folder path",
                                    tip="A Hugging Face hub id (org/name), a local folder, or 'minilm' (Ctrl+L)")
        self.model_edit.setObjectName("modelField")
        self.model_edit.setClearButtonEnabled(True)
        self.model_edit.returnPressed.connect(self._load_typed)
        self.load_button = button("Load", clicked=self._load_typed, default=True)
        self.open_button = button("Open folder…", tip="Open a local model folder (Ctrl+O)", clicked=self.open_folder)
        self.default_button = button("Default (MiniLM)",
                                     tip="all-MiniLM-L6-v2, shipped with the workbench (works offline)",
                                     clicked=lambda: self.load_requested.emit("minilm"))
        self.precision_combo = combo_box([(label, value) for value, label, _tip in PRECISION_CHOICES],
                                         tip="The number format models load in (the next load, and the model now)")
        self.precision_combo.setObjectName("precision")
        for index, (_value, _label, tip) in enumerate(PRECISION_CHOICES):
            self.precision_combo.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
        self.precision_combo.currentIndexChanged.connect(
            lambda i: self.precision_changed.emit(self.precision_combo.itemData(i)))
        self.words_check = QCheckBox("Words as typed")
        self.words_check.setObjectName("wordsAsTyped")
        self.words_check.setToolTip(
            "On: the words are the whitespace-separated pieces of the text exactly as typed ('U.S.' is one word), "
            "as a published ELMo was trained on tokenized text. Off: punctuation is split off ('U . S .'), as the "
            "workbench's own ELMo training splits. Saved for this model; it is loaded again")
        self.words_check.setVisible(False)  # only a word-level model (ELMo) reads words
        self.words_check.toggled.connect(
            lambda on: self.words_changed.emit("as-given" if on else "split"))

        field_row = row((self.model_edit, 1), self.load_button, spacing="row_spacing")
        buttons = row(self.open_button, self.default_button, spacing="row_spacing")

        self._values: dict[str, QLabel] = {}
        info_box = QGroupBox("Loaded model")
        form = QFormLayout(info_box)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft)
        theme.bind(form, lambda w, m: w.setHorizontalSpacing(m.wide_spacing))
        theme.bind(form, lambda w, m: w.setVerticalSpacing(m.compact_spacing))
        for key, label in FIELDS:
            value = QLabel("—")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            value.setWordWrap(True)  # "encoder-decoder (bart)" wraps in a narrow dock, not cut (issue 49)
            self._values[key] = value
            name = QLabel(label)
            name.setStyleSheet(f"color: {theme.current().colours.muted_ink};")
            form.addRow(name, value)

        self.recent_list = QListWidget()
        self.recent_list.setObjectName("recentModels")
        self.recent_list.itemClicked.connect(self._load_item)
        recent_box = QGroupBox("Recent models")
        column(recent_box, self.recent_list, margins="inset_margins", spacing=None)
        theme.bind(self, lambda w, m: w.recent_list.setMaximumHeight(m.recent_list_max_h))

        self._info_box = info_box
        column(self, field_row, buttons, self.precision_combo, self.words_check, info_box, recent_box, 1,
               margins="dock_margins")

    def add_model_note(self, widget: QWidget) -> None:
        """Add a line under the loaded model's facts (the course models' rebuild offer)."""
        layout = self.layout()
        layout.insertWidget(layout.indexOf(self._info_box) + 1, widget)

    def add_section(self, widget: QWidget) -> None:
        """Add a box under the recent models (the window's "Compare with…")."""
        self.layout().insertWidget(self.layout().count() - 1, widget)

    # ----------------------------------------------------------------- API
    def open_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a model folder (with config.json)")
        if folder:
            self.model_edit.setText(folder)
            self.load_requested.emit(folder)

    def focus_field(self) -> None:
        self.model_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.model_edit.selectAll()

    def set_info(self, info: ModelInfo | None) -> None:
        values = info_values(info) if info is not None else {}
        for key, label in self._values.items():
            text = values.get(key, "—")
            label.setText(text)
            label.setToolTip(info.folder if (info is not None and key == "model") else text)
        words = info.words if info is not None else None
        self.words_check.blockSignals(True)  # showing the model's mode is no change to reload for
        self.words_check.setChecked(words == "as-given")
        self.words_check.blockSignals(False)
        self.words_check.setVisible(words is not None)

    def set_precision(self, value: str) -> None:
        """Show the settings' precision (no signal: nothing to reload)."""
        index = self.precision_combo.findData(value)
        self.precision_combo.blockSignals(True)
        self.precision_combo.setCurrentIndex(max(0, index))
        self.precision_combo.blockSignals(False)

    def set_loading(self, spec: str) -> None:
        """``spec`` is loading: the box shows it (a lecture or a recent model loads what the box no longer says
        otherwise), the facts are blank until it is loaded (they were the previous model's)."""
        if self.model_edit.text().strip() != spec:
            self.model_edit.setText(spec)
        for key, label in self._values.items():
            label.setText(f"loading {spec_label(spec)}…" if key == "model" else "—")
            label.setToolTip("")

    def value(self, key: str) -> str:
        """The shown value of a field (see ``FIELDS``)."""
        return self._values[key].text()

    def set_recent(self, specs: list[str]) -> None:
        self.recent_list.clear()
        for spec in specs:
            item = QListWidgetItem(spec_label(spec))
            item.setData(Qt.ItemDataRole.UserRole, spec)
            item.setToolTip(spec)
            self.recent_list.addItem(item)

    def recent(self) -> list[str]:
        return [self.recent_list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.recent_list.count())]

    # -------------------------------------------------------------- helpers
    def _load_typed(self) -> None:
        spec = self.model_edit.text().strip()
        if spec:
            self.load_requested.emit(spec)

    def _load_item(self, item: QListWidgetItem) -> None:
        self.load_requested.emit(item.data(Qt.ItemDataRole.UserRole))
