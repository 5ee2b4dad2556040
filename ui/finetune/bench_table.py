"""The comparison bench's table: one row per finished run, from its ``summary.json``.

Method, trainable share, best validation metric, wall time, tokens/s, training
memory (CUDA's peak, or the CPU's counted parameter + gradient + AdamW bytes,
the header says which), the checkpoint's size on disk and forgetting (the
base's LM loss after − before, with the method in place): the table a teacher
shows. Numbers sort as numbers.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from lm_workbench.engine.finetune.footprint import CPU_ESTIMATE, CUDA_PEAK
from lm_workbench.ui.widgets.header_lines import fit_header_labels, wrap_header_labels

HEADERS = ("Method", "Trainable %", "Best {metric}", "Time (s)", "Tokens/s", "{memory}", "Checkpoint MB",
           "Forgetting")
TOOLTIPS = ("The fine-tuning method", "Trainable parameters as a share of all parameters",
            "The best validation value of the task's main metric over the evaluations",
            "Wall-clock time of the training", "Training tokens per second (the loop's own count over its time)",
            "Training memory: on a GPU the peak of torch.cuda.max_memory_allocated; on the CPU the parameter + "
            "gradient + AdamW-state bytes, counted (activations left out), not the resident set",
            "Size on disk of the saved checkpoint: the adapter folder (the whole model for full fine-tuning)",
            "Forgetting: the base model's masked-LM or next-token loss on a held-out text, after − before "
            "fine-tuning, with the method in place (nats per token; positive = worse). Methods that leave the base "
            "weights untouched forget nothing once their adapter is removed. A base without an LM head (MiniLM) "
            "cannot be scored.")
MEMORY_HEADERS = {CUDA_PEAK: "Peak MB (CUDA)", CPU_ESTIMATE: "Train state MB (est.)"}


def _rounded(value: Any, digits: int, scale: float = 1.0) -> float | None:
    return None if value is None else round(float(value) / scale, digits)


def bench_cells(row: dict[str, Any]) -> list[Any]:
    """A bench row (``FineTuneState.bench_rows``) as the table's cells (numbers stay numbers)."""
    forgetting = None if row.get("forgetting") is None else float(f"{float(row['forgetting']):.3g}")
    if forgetting is None and "no LM head" in str(row.get("forgetting_note") or ""):
        forgetting = "no LM head"
    return [row.get("method", ""), _rounded(row.get("trainable_percent"), 4), _rounded(row.get("best_value"), 4),
            _rounded(row.get("wall_s"), 1), _rounded(row.get("tokens_per_s"), 0),
            _rounded(row.get("training_memory_mb"), 1), _rounded(row.get("checkpoint_bytes"), 3, 1e6), forgetting]


def memory_header(rows: list[dict[str, Any]]) -> str:
    """The memory column's title: what its numbers are (one kind), or a mix."""
    kinds = {r.get("memory_kind") for r in rows if r.get("memory_kind")}
    return MEMORY_HEADERS.get(next(iter(kinds)), "Memory MB") if len(kinds) == 1 else "Memory MB (see tips)"


class BenchTable(QTableWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(0, len(HEADERS), parent)
        self._set_headers("validation", "Memory MB")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.verticalHeader().setVisible(False)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        wrap_header_labels(self)  # a title too long for its column takes two lines, never cut
        self._height_limit = 1 << 16

    def set_height_limit(self, pixels: int) -> None:
        """The most the table may take (a theme size); it takes less when its rows need less, so the curves
        below get the room."""
        self._height_limit = pixels
        self._fit_height()

    def _fit_height(self) -> None:
        row = self.verticalHeader().defaultSectionSize()
        needed = self.horizontalHeader().sizeHint().height() + row * max(2, self.rowCount()) + 2 * self.frameWidth()
        height = min(self._height_limit, needed + 2)
        self.setMaximumHeight(height)
        self.setMinimumHeight(height)  # every row shows; the curves below take the rest

    def _set_headers(self, metric: str, memory: str) -> None:
        self.setHorizontalHeaderLabels([h.format(metric=metric, memory=memory) for h in HEADERS])
        for column, tip in enumerate(TOOLTIPS):
            self.horizontalHeaderItem(column).setToolTip(tip)
        fit_header_labels(self)

    def show_rows(self, rows: list[dict[str, Any]]) -> None:
        self._set_headers(next((r["best_metric"] for r in rows if r.get("best_metric")), "validation"),
                          memory_header(rows))
        self.setSortingEnabled(False)
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, value in enumerate(bench_cells(row)):
                item = QTableWidgetItem()
                if isinstance(value, (int, float)):
                    item.setData(Qt.ItemDataRole.DisplayRole, value)
                else:
                    item.setText("—" if value is None else str(value))
                tip = {5: row.get("memory_kind"), 7: row.get("forgetting_note")}.get(c)
                if tip:
                    item.setToolTip(str(tip))
                self.setItem(r, c, item)
        self.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # keep this order until a click
        self.setSortingEnabled(True)
        self._fit_height()

    def cells(self) -> list[list[str]]:
        return [[self.item(r, c).text() for c in range(self.columnCount())] for r in range(self.rowCount())]
