"""The lab's two panels under the preview: sampled statistics and the model's reconstruction."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QGroupBox, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets.boxes import column, row
from lm_workbench.ui.widgets.controls import button, label, spin_box
from lm_workbench.ui.widgets.token_layout import display_label
from lm_workbench.masking_lab.preview import RATE_NAMES

RATE_HELP = {
    "selected": "share of the ordinary (non-special) tokens the objective selected",
    "mask": "share of the selected tokens replaced by the mask token (or a sentinel)",
    "random": "share of the selected tokens replaced by a random token",
    "keep": "share of the selected tokens left as they were (still scored)",
    "deleted": "share of the selected tokens deleted from the input",
    "moved": "share of the ordinary tokens moved to another place",
    "inserted": "inserted tokens per ordinary token",
}


def _table(columns: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(columns)
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    theme.bind(table, lambda w, m: w.verticalHeader().setDefaultSectionSize(m.table_row_h))
    return table


def _item(text: str, tip: str = "", right: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if tip:
        item.setToolTip(tip)
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


class StatsPanel(QGroupBox):
    """"Draw N samples": measured rates over N draws against the configured ones."""

    draw_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Statistics over many draws", parent)
        self.n_spin = spin_box(1, 100_000, 200, prefix="N = ",
                               tip="How many corrupted copies of the text to draw (from the seed above)")
        self.draw_button = button("Draw N samples", clicked=lambda: self.draw_requested.emit(self.n_spin.value()))
        self.summary = label("Measure how often each thing happens over many draws.", name="summary", wrap=True)
        self.table = _table(["rate", "measured", "configured"])
        self.rates: dict[str, float] = {}
        column(self, row(self.n_spin, self.draw_button, 1), self.summary, (self.table, 1), margins="group_margins",
               spacing=None)

    def clear(self) -> None:
        self.rates = {}
        self.table.setRowCount(0)
        self.summary.setText("Measure how often each thing happens over many draws.")

    def set_rates(self, result: dict[str, Any]) -> None:
        measured, configured = result["measured"], result["configured"]
        self.rates = dict(measured)
        names = [k for k in RATE_NAMES if k in configured or measured.get(k, 0.0) > 0.0]
        self.table.setRowCount(len(names))
        for r, name in enumerate(names):
            self.table.setItem(r, 0, _item(name, RATE_HELP.get(name, "")))
            self.table.setItem(r, 1, _item(f"{measured.get(name, 0.0):.4f}", right=True))
            conf = configured.get(name)
            self.table.setItem(r, 2, _item("—" if conf is None else f"{conf:.4f}", right=True))
        self.summary.setText(f"Over {result['n']} draws from seed {result['seed']} (the first is the one shown).")

    def shown_rates(self) -> dict[str, str]:
        return {self.table.item(r, 0).text(): self.table.item(r, 1).text() for r in range(self.table.rowCount())}


class ReconstructionPanel(QGroupBox):
    """The model's guesses at the corrupted positions next to the truth, or why there are none."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__("What the model reconstructs", parent)
        self.note = label("", name="summary", wrap=True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.table = _table(["position", "input", "truth", "model (top-1)", "p"])
        column(self, self.note, (self.table, 1), 0, margins="group_margins", spacing=None)

    def set_note(self, text: str) -> None:
        self.note.setText(text)
        self.table.setRowCount(0)
        self.table.hide()

    def set_result(self, result: dict[str, Any]) -> None:
        preds, p = result.get("predictions"), result["preview"]
        if not preds:
            self.set_note(result.get("note") or "")
            return
        self.table.show()
        if preds["kind"] == "mlm":
            rows = []
            for pos, id_, tok, prob in zip(preds["positions"], preds["ids"], preds["tokens"], preds["probs"]):
                truth = result["label_tokens"][pos] or ""
                rows.append((str(pos), result["input_tokens"][pos], truth, tok, prob, id_ == int(p.labels[pos])))
            hits = sum(r[5] for r in rows)
            self.note.setText(f"Top-1 at the {len(rows)} scored positions: {hits} of {len(rows)} right.")
        else:
            target = [t or "" for t in result["label_tokens"]]
            rows = [(str(k), "", target[k] if k < len(target) else "", tok, prob,
                     k < len(target) and id_ == int(p.labels[k]))
                    for k, (id_, tok, prob) in enumerate(zip(preds["ids"], preds["tokens"], preds["probs"]))]
            self.note.setText("Greedy decoding of the corrupted input, step by step, against the target.")
        self.table.setRowCount(len(rows))
        for r, (pos, inp, truth, tok, prob, ok) in enumerate(rows):
            self.table.setItem(r, 0, _item(pos, right=True))
            self.table.setItem(r, 1, _item(display_label(inp) if inp else ""))
            self.table.setItem(r, 2, _item(display_label(truth) if truth else ""))
            item = _item(display_label(tok), "right" if ok else "wrong")
            item.setForeground(Qt.GlobalColor.darkGreen if ok else Qt.GlobalColor.darkRed)
            self.table.setItem(r, 3, item)
            self.table.setItem(r, 4, _item(f"{prob:.4f}", right=True))
