"""The Runs tab's Studies list: built-in and user studies, the cost before Start, the live table and figure, and
one click (a double-click on a row) to a cell's run.

Start queues the study as a ``study`` run on the window's long-run lane (``lm_workbench.studies.runs``), so it
is recorded, cancellable and resumable like any long run; the panel polls the study's state file and the run
store every second and fills the table and the figure as cells finish. "Cell k of n" and the running cell's own
"step s of t" come from the store. The cost (runs to make, time on this machine) is computed off the Qt thread
when a study or a scale is chosen. Export writes the whole study (table, CSV, figure PNG/SVG, each cell's
settings) as one folder.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QFileDialog, QHeaderView, QLabel, QListWidget, QListWidgetItem, QSizePolicy, QSplitter, QTableWidget,
    QTableWidgetItem, QWidget,
)

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui import theme
from lm_workbench.faults import user_line
from lm_workbench.ui.widgets import boxes
from lm_workbench.ui.widgets.controls import button, combo_box, label
from lm_workbench.ui.widgets.boxes import flush_column
from lm_workbench.ui.widgets.interval_timer import interval_timer

REFRESH_MS = 1000
log = logging.getLogger(__name__)


class _Bridge(QObject):
    """Carries a worker thread's result to the Qt thread."""

    estimated = Signal(object, object)  # (key, estimate dict or an exception)


def _number(value: Any) -> str:
    if value is None:
        return "–"
    return f"{value:.4g}"


class StudiesPanel(QWidget):
    """The Studies list with its cost, Start / Cancel, the live table and the figure."""

    open_run = Signal(int)  # a cell's run, to select in the runs table

    def __init__(self, services: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        self.study: Any = None  # the chosen study, read (lm_workbench.studies.file.Study)
        self.out_dir: Path | None = None
        self.spec: Any = None
        self.study_run_id: int | None = None
        self.last_table: dict[str, Any] | None = None
        self._figure_key: Any = None
        self._bridge = _Bridge()
        self._bridge.estimated.connect(self._estimated)
        self._estimate_key: Any = None

        self.list = QListWidget()
        self.list.setObjectName("studiesList")
        self.list.setWordWrap(True)  # a long title wraps in a narrow column (1024 with F5) instead of scrolling sideways
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setResizeMode(QListWidget.ResizeMode.Adjust)
        theme.bind(self.list, lambda w, m: w.setMinimumWidth(m.study_list_min_w))
        self.list.currentItemChanged.connect(lambda *_: self.choose())
        self.scale = combo_box(["tiny", "lecture"])
        self.scale.setCurrentText("lecture")
        self.scale.currentTextChanged.connect(lambda *_: self.choose())
        self.open_button = button("Open study file…", clicked=lambda: self.open_file())
        self.start_button = button("Start", clicked=lambda: self.start())
        self.cancel_button = button("Cancel", clicked=lambda: self.cancel())
        self.export_button = button("Export study…", tip="Write the table, CSV, figure (PNG and SVG) and each cell's "
                                                         "settings to a folder", clicked=lambda: self.export())
        self.about = label("Choose a study.", name="summary", wrap=True)
        self.cost = label(wrap=True)
        self.progress = label(wrap=True)
        self.progress.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.cellDoubleClicked.connect(lambda row, _col: self.open_cell_run(row))
        self.table.setToolTip("Double-click a row to select its run in the runs table")
        self.figure = QLabel()
        self.figure.setAlignment(Qt.AlignmentFlag.AlignCenter)
        theme.bind(self.figure, lambda w, m: (w.setMinimumHeight(m.study_figure_min), w.setMinimumWidth(m.study_figure_min)))
        self._pixmap: Any = None
        self.notes = label(name="summary", wrap=True)
        self._build_layout()
        self.timer = interval_timer(self, REFRESH_MS, self.refresh)
        self._fill_list()
        self._update_buttons()

    def _build_layout(self) -> None:
        left = QWidget()
        scale = boxes.row(QLabel("scale"), (self.scale, 1))
        flush_column(left, QLabel("Studies"), (self.list, 1), scale, self.open_button)
        results = QSplitter(Qt.Orientation.Vertical)
        results.addWidget(self.table)
        results.addWidget(self.figure)
        results.setStretchFactor(0, 2)
        results.setStretchFactor(1, 3)
        results.splitterMoved.connect(lambda *_: self._fit_figure())
        right = QWidget()
        buttons = boxes.row(self.start_button, self.cancel_button, self.export_button, 1)
        flush_column(right, self.about, self.cost, buttons, self.progress, (results, 1), self.notes)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 4)
        flush_column(self, split)

    # ---------------------------------------------------------------- choosing
    def _fill_list(self) -> None:
        from lm_workbench.studies.catalogue import catalogue

        for entry in catalogue():
            item = QListWidgetItem(entry["title"])
            item.setData(Qt.ItemDataRole.UserRole, entry["name"])
            item.setToolTip(entry["description"])
            self.list.addItem(item)

    def open_file(self, path: str | Path | None = None) -> None:
        """Add a user's study file to the list and choose it (a dialog when no path is given)."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Open a study file", "", "Study files (*.json)")
            if not path:
                return
        item = QListWidgetItem(f"{Path(path).stem} (file)")
        item.setData(Qt.ItemDataRole.UserRole, str(path))
        item.setToolTip(str(path))
        self.list.addItem(item)
        self.list.setCurrentItem(item)

    def show_study(self, study: str, scale: str = "lecture") -> bool:
        """Choose ``study`` (a built-in's name or a study file) at ``scale`` and show its table from the runs made
        so far (a lecture step's ``{"study": ..., "scale": ...}``); with no finished cell, say how to run it.
        False (said in the panel) when it cannot be read."""
        self.scale.blockSignals(True)
        self.scale.setCurrentText(scale)
        self.scale.blockSignals(False)
        item = next((self.list.item(i) for i in range(self.list.count())
                     if self.list.item(i).data(Qt.ItemDataRole.UserRole) == study), None)
        if item is None and (Path(study).suffix == ".json" or Path(study).is_file()):
            self.open_file(study)  # adds it, chooses it
        elif item is None:
            self.about.setText(f"No study named {study!r} here.")
            return False
        elif self.list.currentItem() is item:
            self.choose()
        else:
            self.list.setCurrentItem(item)
        if self.study is None:
            return False
        from lm_workbench.studies.runner import load_state

        if not load_state(self.study, self.out_dir).done():
            from lm_workbench.studies.file import builtin_names

            name = study if study in builtin_names() else f'"{study}"'
            self.progress.setText(f"No cell of this study has run yet at the {scale} scale: press Start (its cost "
                                  f"is above), or run `lm-workbench study run {name} --scale {scale}`.")
        return True

    def choose(self) -> None:
        """Read the chosen study at the chosen scale; state its cost (off the Qt thread) and show its table."""
        from lm_workbench.studies.runs import StudySpec

        item = self.list.currentItem()
        if item is None:
            return
        source = item.data(Qt.ItemDataRole.UserRole)
        try:
            spec = StudySpec(study=source, scale=self.scale.currentText()).checked()
            study, out = spec.load()
        except WorkbenchError as exc:
            self.study = self.spec = None
            self.about.setText(f"This study cannot be read: {exc}")
            self.cost.setText("")
            self._update_buttons()
            return
        self.spec = StudySpec(**{**spec.to_dict(), "out_dir": str(out)})
        self.study, self.out_dir = study, out
        self.study_run_id = None
        self._figure_key = None
        self.about.setText(f"<b>{study.title}</b> ({study.scale} scale): {study.description}")
        self.cost.setText("Working out the cost…")
        self._estimate(study, out)
        self.refresh()
        self._update_buttons()

    def _estimate(self, study: Any, out: Path) -> None:
        key = (study.source, study.scale)
        self._estimate_key = key
        path = self.services.path

        def work() -> None:
            from lm_workbench.store import RunStore
            from lm_workbench.studies.estimate import estimate

            try:
                with RunStore(path) as store:
                    result: Any = estimate(study, store, out)
            except Exception as exc:  # noqa: BLE001 - said in the panel
                result = exc
            self._bridge.estimated.emit(key, result)

        threading.Thread(target=work, name="study-estimate", daemon=True).start()

    def _estimated(self, key: Any, result: Any) -> None:
        if key != self._estimate_key:
            return
        if isinstance(result, BaseException):
            self.cost.setText(f"Cost unknown: {user_line(result)}")
        else:
            self.cost.setText(f"Before Start: {result['text']}.")

    # ---------------------------------------------------------------- running
    def start(self) -> int | None:
        """Queue the chosen study on the long-run lane; its run id."""
        from lm_workbench.studies.runs import STUDY

        if self.spec is None:
            return None
        params = self.spec.to_dict()
        try:
            self.study_run_id = self.services.lane.submit(
                STUDY.target, params, kind=STUDY.kind, name=f"study {self.study.name} ({self.study.scale})",
                method="study", cli_command=self.spec.cli_command())
        except (WorkbenchError, RuntimeError, OSError) as exc:
            self.progress.setText(f"Could not start: {user_line(exc)}")
            return None
        self.progress.setText(f"Queued as run #{self.study_run_id}.")
        self.timer.start()
        self._update_buttons()
        return self.study_run_id

    def cancel(self) -> None:
        if self.study_run_id is not None and self.services.has_lane:
            self.services.lane.cancel(self.study_run_id)
            self.progress.setText("Cancelling… (Start again resumes at the first unfinished cell)")

    def _running(self) -> bool:
        if self.study_run_id is None:
            return False
        try:
            return self.services.store.status(self.study_run_id) in ("queued", "running")
        except KeyError:
            return False

    def refresh(self) -> None:
        """Re-read the state file and the store: the table, the figure and the progress line."""
        if self.study is None or self.services.closed:
            return
        from lm_workbench.studies.runner import load_state
        from lm_workbench.studies.table import build_table

        store = self.services.store
        running = self._running()  # asked before reading: a study that ends meanwhile is read once more, whole
        state = load_state(self.study, self.out_dir)
        try:
            table = build_table(self.study, state.cells, store)
        except Exception as exc:  # noqa: BLE001 - the store's fault: said, polling goes on
            self.progress.setText(f"Cannot read the runs: {user_line(exc)}")
            return
        self.last_table = table
        self._show_table(table)
        self._show_progress(state, store)
        self._show_figure(table)
        if not running and self.timer.isActive() and self.study_run_id is not None:
            self.timer.stop()
            status = store.status(self.study_run_id)
            self.progress.setText(f"Study run #{self.study_run_id} {status}: {state.done()} of "
                                  f"{len(self.study.cells)} cells done.")
        self._update_buttons()

    def _show_progress(self, state: Any, store: Any) -> None:
        if not self._running():
            return
        total = len(self.study.cells)
        for index, cell in enumerate(self.study.cells, start=1):
            entry = state.cells.get(cell.id) or {}
            if entry.get("status") == "running":
                text = f"cell {index} of {total}: {cell.id} ({cell.kind})"
                run_id = entry.get("run_id")
                if run_id is not None:
                    try:
                        run = store.get_run(int(run_id))
                        steps = [m["step"] for m in store.metrics(int(run_id))]
                        if run.get("total_steps"):
                            text += f", step {max(steps, default=0)} of {run['total_steps']}"
                    except KeyError:
                        pass
                self.progress.setText(text)
                return
        self.progress.setText(f"{state.done()} of {total} cells done")

    def _show_table(self, table: dict[str, Any]) -> None:
        pub = table.get("published") or {}
        pub_cols = list((pub.get("columns") or {}).keys())
        headers = ["row", *table["columns"], *[f"published {c}" for c in pub_cols], "status"]
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setRowCount(len(table["rows"]))
        for i, row in enumerate(table["rows"]):
            cells = [row["row"]]
            for c in table["columns"]:
                value, spread = row["local"].get(c), row["spread"].get(c)
                cells.append(_number(value) + (f" ± {spread:.2g}" if spread is not None else ""))
            cells += [_number(row["published"].get(c)) if c in row["published"] else "" for c in pub_cols]
            cells.append(row["status"])
            for j, text in enumerate(cells):
                item = self.table.item(i, j)
                if item is None:
                    item = QTableWidgetItem()
                    self.table.setItem(i, j, item)
                if item.text() != text:
                    item.setText(text)
            errors = [f"{r['cell']}: {r['error']}" for r in row["runs"] if r.get("error")]
            self.table.item(i, 0).setToolTip("\n".join(errors) or ", ".join(
                f"{r['cell']} run #{r['run_id']}" for r in row["runs"] if r.get("run_id") is not None))
        lines = []
        if pub:
            lines.append(f"Published: {pub.get('source')} ({pub.get('units') or 'as printed'}).")
        if table.get("scale_note"):
            lines.append(f"Scale: {table['scale_note']}")
        lines += [f"Trend: {t['claim'] or t['column']}: {t['said']}." for t in table.get("trends") or []]
        lines += [f"Note: {n}" for n in table.get("notes") or []]
        self.notes.setText("\n".join(lines))

    def _show_figure(self, table: dict[str, Any]) -> None:
        if self.study.figure.get("type") == "none":
            return
        key = [(r["row"], tuple(sorted((k, v) for k, v in r["local"].items() if v is not None))) for r in table["rows"]]
        if key == self._figure_key:
            return
        self._figure_key = key
        import tempfile

        from lm_workbench.studies.figure import draw_figure

        with tempfile.TemporaryDirectory() as folder:
            path = draw_figure(table, self.study.figure, Path(folder) / "figure.png")
            self._pixmap = QPixmap(str(path))
        self._fit_figure()

    def _fit_figure(self) -> None:
        """The figure scaled into its label, its aspect kept."""
        if getattr(self, "_pixmap", None) is None or self._pixmap.isNull():
            return
        size = self.figure.size()
        self.figure.setPixmap(self._pixmap.scaled(max(160, size.width()), max(120, size.height()),
                                                  Qt.AspectRatioMode.KeepAspectRatio,
                                                  Qt.TransformationMode.SmoothTransformation))

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit_figure()

    def row_run_id(self, row: int) -> int | None:
        """The first run of a table row's cells (None: none has run, or it was deleted)."""
        if self.last_table is None or row >= len(self.last_table["rows"]):
            return None
        for run in self.last_table["rows"][row]["runs"]:
            if run.get("run_id") is not None and run["status"] != "missing":
                return int(run["run_id"])
        return None

    def open_cell_run(self, row: int) -> int | None:
        run_id = self.row_run_id(row)
        if run_id is not None:
            self.open_run.emit(run_id)
        return run_id

    def export(self, folder: str | Path | None = None) -> Path | None:
        """The whole study as one folder (a dialog when none is given)."""
        if self.study is None or self.last_table is None:
            return None
        if folder is None:
            folder = QFileDialog.getExistingDirectory(self, "Export the study to a folder")
            if not folder:
                return None
        from lm_workbench.studies.export import export_study
        from lm_workbench.studies.runner import load_state

        try:
            out = export_study(self.study, self.last_table, load_state(self.study, self.out_dir).cells,
                               self.services.store, folder)
        except (OSError, WorkbenchError) as exc:
            self.progress.setText(f"Could not export: {user_line(exc)}")
            return None
        self.progress.setText(f"Exported the study to {out}")
        return out

    def _update_buttons(self) -> None:
        running = self._running()
        self.start_button.setEnabled(self.spec is not None and not running)
        self.cancel_button.setEnabled(running)
        self.export_button.setEnabled(self.last_table is not None)

    def shutdown(self) -> None:
        self.timer.stop()
