"""The "Runs" tab: every run of every kind, their curves overlaid, their settings compared.

The table lists the run store's runs (newest first, sortable on any column)
and refreshes every second while the tab is visible, so active runs show
their steps and losses as they go; failed and interrupted runs say why.
Selecting runs overlays their curves (``CurveOverlay``) and compares the
first two selected runs' settings (``ConfigDiff``). "Run again", "Resume" (a
cancelled, failed or interrupted training run, from its newest checkpoint) and
"Copy as CLI command" go through ``lm_workbench.runs.kinds`` so they work for every
kind the workbench knows. "Merge…" folds one finished fine-tuning run into its base weights or combines
several into one adapter (``MergeDialog``; run as a job with progress and Cancel, recorded as a
``finetune-merge`` run). Delete hides the runs at once and offers Undo for
``UNDO_S`` seconds; only then are they removed from the store (their files
on disk are kept).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView, QFileDialog, QFrame, QHeaderView, QLabel, QSplitter, QTableView, QWidget,
)

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui import theme
from lm_workbench.ui.runs.column_fit import fit_widths
from lm_workbench.ui.widgets.header_lines import title_floors, wrap_header_labels
from lm_workbench.ui.runs.config_diff import ConfigDiff
from lm_workbench.ui.runs.curve_overlay import CurveOverlay
from lm_workbench.ui.runs.run_table import COLUMN_INDEX, COLUMNS, SORT_ROLE, RunTableModel, display, table_row
from lm_workbench.ui.runs.studies_panel import StudiesPanel
from lm_workbench.ui.widgets.export import copy_text_to_clipboard, export_dialog, save_widget
from lm_workbench.ui.widgets.boxes import column, flush_column, row
from lm_workbench.ui.widgets.controls import button, label
from lm_workbench.ui.widgets.message_bar import MessageBar
from lm_workbench.ui.view_kit.view_context import ViewContext
from lm_workbench.ui.widgets.fold import FlowLayout, FoldSplitter
from lm_workbench.ui.widgets.interval_timer import interval_timer
from lm_workbench.export import export_csv, suggest_filename
from lm_workbench.faults import describe, user_line
from lm_workbench.compare.model_b import run_model_folder
from lm_workbench.runs.kinds import resume_params, run_kind
from lm_workbench.runs.state import RunsState

REFRESH_MS = 1000
UNDO_S = 10

log = logging.getLogger(__name__)


NO_RUNS_HINT = ("No runs yet. Pre-train a model in the Pre-train tab (Ctrl+Shift+P) or with "
                "'lm-workbench pretrain'; every run appears here with its curves and settings.")

class RunSortProxy(QSortFilterProxyModel):
    """Sorts by ``SORT_ROLE``: numbers as numbers, text case-blind, empty cells last."""

    def lessThan(self, left: QModelIndex, right: QModelIndex) -> bool:  # noqa: N802
        a, b = left.data(SORT_ROLE), right.data(SORT_ROLE)
        if a is None or b is None:
            ascending = self.sortOrder() == Qt.SortOrder.AscendingOrder
            return (a is not None) if ascending else (a is None and b is not None)
        if isinstance(a, str) or isinstance(b, str):
            return str(a).casefold() < str(b).casefold()
        return a < b


def fresh_params(params: dict[str, Any]) -> dict[str, Any]:
    """The params of a run to repeat: the same, but a new output folder when the run had one."""
    params = dict(params)
    out = params.get("out_dir")
    if out:
        base = Path(str(out))
        stem = base.name.split("-again-")[0]
        params["out_dir"] = str(base.with_name(f"{stem}-again-{time.strftime('%Y%m%d-%H%M%S')}"))
    return params


class RunsBrowser(QWidget):
    """Browse, compare, repeat and delete runs."""

    run_submitted = Signal(int)

    def __init__(self, ctx: ViewContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = ctx.run_services
        self.compare_with = ctx.compare_with  # load a finished run's model as model B
        self.jobs = ctx.jobs
        self.merge_dialog: Any = None  # the open Merge… dialog, if any
        self.state = RunsState()
        self.message_bar = MessageBar()
        self.model = RunTableModel(self)
        self.proxy = RunSortProxy(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setDynamicSortFilter(True)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(COLUMN_INDEX["id"], Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        theme.bind(self, lambda w, m: w.table.verticalHeader().setDefaultSectionSize(m.table_row_h))
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.resizeColumnsToContents()  # the headers, before any run arrives
        wrap_header_labels(self.table)  # a title too wide for its capped column breaks onto two lines
        theme.follow(self, self._fit_columns)  # F5 on and off: columns for the new type size, not the old one
        self.table.viewport().installEventFilter(self)  # a resized table fits its columns again
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        self.detail = label(name="summary", wrap=True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.overlay = CurveOverlay()
        self.diff = ConfigDiff()
        self.studies = StudiesPanel(self.services)  # the Studies list beside the runs (lm_workbench.studies)
        self.studies.open_run.connect(self.show_run)

        self.again_button = button("Run again", tip="Queue a new run with the selected run's settings (a new "
                                                    "output folder)", clicked=self.run_again)
        self.resume_button = button("Resume", tip="Continue the selected stopped training run from its newest "
                                                  "checkpoint, in its own output folder", clicked=self.resume_run)
        self.cli_button = button("Copy as CLI command", tip="Copy the lm-workbench command line that repeats the "
                                                            "selected run", clicked=self.copy_cli)
        self.compare_button = button("Compare with this", tip="Load the selected finished run's model (pre-training, "
                                                              "or a full fine-tune) as model B beside the loaded model "
                                                              "(A | B in the views)", clicked=self.compare_selected)
        self.merge_button = button("Merge…", tip="Fold the selected fine-tuning run (LoRA, IA³, DoRA) into its base "
                                                 "weights, or combine the selected runs into one adapter (linear, "
                                                 "TIES, DARE)", clicked=lambda: self.open_merge_dialog())
        self.delete_button = button("Delete", tip=f"Remove the selected runs from the list (Undo for {UNDO_S} s; "
                                                  "their files on disk are kept)", clicked=self.delete_selected)
        self.plot_button = button("Export plot…", clicked=lambda: self.export_plot())
        self.csv_button = button("Export table…", tip="Save the table as CSV", clicked=lambda: self.export_table())

        self.undo_bar = QFrame()
        self.undo_bar.setObjectName("undoBar")
        self._style_undo_bar()
        theme.follow(self, self._style_undo_bar)
        self.undo_label = QLabel()
        self.undo_button = button("Undo", clicked=self.undo_delete)
        row((self.undo_label, 1), self.undo_button, owner=self.undo_bar, margins="undo_bar_margins")
        self.undo_bar.hide()
        self.undo_timer = interval_timer(self, UNDO_S * 1000, self.commit_deletes, single_shot=True)
        self.refresh_timer = interval_timer(self, REFRESH_MS, self.refresh)
        self._build_layout()
        self._update_buttons()

    def _style_undo_bar(self) -> None:
        t = theme.current()
        fill, border, _ = t.colours.warning
        m = t.metrics
        self.undo_bar.setStyleSheet(f"QFrame#undoBar {{ background: {fill}; border: {m.hairline}px solid {border}; "
                                    f"border-radius: {m.message_radius}px; }}")

    def _build_layout(self) -> None:
        buttons = FlowLayout()  # wraps to the width (presentation mode on a small screen)
        for b in (self.again_button, self.resume_button, self.cli_button, self.compare_button, self.merge_button,
                  self.delete_button, self.plot_button, self.csv_button):
            buttons.addWidget(b)
        top = QWidget()
        flush_column(top, (self.table, 1), self.detail, spacing="row_spacing")
        bottom = FoldSplitter()  # the config diff under the curves where both do not fit side by side
        bottom.addWidget(self.overlay)
        bottom.addWidget(self.diff)
        bottom.setStretchFactor(0, 3)
        bottom.setStretchFactor(1, 2)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(bottom)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        self._splitters = (splitter, bottom)
        self._sized = False
        runs = QWidget()
        flush_column(runs, buttons, (splitter, 1), spacing="section_spacing")
        beside = FoldSplitter()  # the Studies beside the runs, under them where both do not fit (1024 px): the runs
        beside.addWidget(runs)  # are the tab's main content, first in view
        beside.addWidget(self.studies)
        beside.setStretchFactor(0, 3)
        beside.setStretchFactor(1, 1)
        self._beside = beside
        column(self, self.message_bar, self.undo_bar, (beside, 1), margins="panel_margins")

    # --------------------------------------------------------------- timing
    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._sized:  # first show: table 40% of the height, curves 60% of the width
            self._sized = True
            vertical, horizontal = self._splitters
            vertical.setSizes([int(self.height() * 0.4), int(self.height() * 0.6)])
            horizontal.setSizes([int(self.width() * 0.6), int(self.width() * 0.4)])
            if self._beside.orientation() == Qt.Orientation.Horizontal:  # the Studies: 30% of the width, right
                self._beside.setSizes([int(self.width() * 0.7), int(self.width() * 0.3)])
        if not self.services.closed:
            self.refresh()
            self.refresh_timer.start()

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802
        self.refresh_timer.stop()
        super().hideEvent(event)

    # what a lecture step or a workspace may set here: a study whose table the Studies list shows
    preset_settings = frozenset({"study", "scale"})

    def apply_preset_step(self, settings: dict[str, Any], inputs: dict[str, Any]) -> None:
        """``{"study": name or file, "scale": "tiny" | "lecture"}``: choose the study in the Studies list and show
        its table from the runs made so far (or say how to run it)."""
        if settings.get("study"):
            self.studies.show_study(str(settings["study"]), str(settings.get("scale") or "lecture"))

    def preset_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The chosen study and scale (nothing when no study is chosen)."""
        item = self.studies.list.currentItem()
        if item is None or self.studies.study is None:
            return {}, {}
        return {"study": item.data(Qt.ItemDataRole.UserRole), "scale": self.studies.scale.currentText()}, {}

    def shutdown(self) -> None:
        """The window is closing: stop polling and carry out pending deletions."""
        self.refresh_timer.stop()
        self.studies.shutdown()
        self.commit_deletes()

    # ----------------------------------------------------------------- data
    def refresh(self) -> None:
        """Re-read the runs (new rows only for the curves); keeps the selection and sort."""
        if self.services.closed:
            return
        try:
            store, reader = self.services.store, self.services.reader
            runs = self.state.visible(store.list_runs())
        except (OSError, sqlite3.Error, WorkbenchError) as exc:  # the store's fault: one line, polling stops
            self.refresh_timer.stop()
            log.warning("the Runs tab cannot read the run store", exc_info=exc)
            self.message_bar.show_error(user_line(exc), source="store")
            return
        if self.state.take_notice(store.notice):  # set aside and rebuilt, or read-only: said once
            self.message_bar.show_warning(store.notice, source="store")
        elif self.message_bar.source() == "store" and self.message_bar.level() == "error":
            self.message_bar.clear("store")
        now = time.time()
        rows = [table_row(run, summary, now) for run, summary in self.state.update(runs, reader.summaries)]
        selected = self.selected_run_ids()
        if self.model.set_runs(rows):
            self._fit_columns()
            self.select_runs([i for i in selected if i in self.state.runs])
        else:
            self.overlay.update_data(reader)
            self._show_detail()
        self._update_buttons()

    def _fit_columns(self) -> None:
        """Columns sized to their contents, the widest capped so the table does not scroll sideways, none
        narrower than its title needs on two lines (a cut title, "jective / meth", says nothing)."""
        self.table.resizeColumnsToContents()
        header = self.table.horizontalHeader()
        widths = [header.sectionSize(i) for i in range(header.count())]
        floors = title_floors(self.table)
        if len(floors) != len(widths):
            floors = [48] * len(widths)
        for i, width in enumerate(fit_widths(widths, self.table.viewport().width(), floors)):
            if width != widths[i]:
                header.resizeSection(i, width)
        header.setStretchLastSection(False)  # sized to its contents above: let it take the room left again
        header.setStretchLastSection(True)

    def eventFilter(self, watched: Any, event: Any) -> bool:
        if watched is self.table.viewport() and event.type() == event.Type.Resize:
            QTimer.singleShot(0, self, self._fit_columns)
        return super().eventFilter(watched, event)

    def selected_run_ids(self) -> list[int]:
        """The selected runs, top to bottom as the table shows them."""
        rows = sorted(self.table.selectionModel().selectedRows(), key=lambda i: i.row())
        return [int(self.proxy.mapToSource(i).siblingAtColumn(0).data(SORT_ROLE)) for i in rows]

    def select_runs(self, run_ids: list[int]) -> None:
        selection = self.table.selectionModel()
        selection.clearSelection()
        for run_id in run_ids:
            row = self.model.row_of(run_id)
            if row >= 0:
                index = self.proxy.mapFromSource(self.model.index(row, 0))
                selection.select(index, QItemSelectionModel.SelectionFlag.Select
                                 | QItemSelectionModel.SelectionFlag.Rows)
        self._selection_changed()

    def run(self, run_id: int) -> dict[str, Any]:
        return self.state.runs[run_id]

    def show_run(self, run_id: int) -> None:
        """Show one run (a study cell's, chosen in the Studies list) selected, after reading the store."""
        self.refresh()
        self.select_runs([run_id])
        row = self.model.row_of(run_id)
        if row >= 0:
            self.table.scrollTo(self.proxy.mapFromSource(self.model.index(row, 0)))

    def _selection_changed(self) -> None:
        ids = self.selected_run_ids()
        labels = [(i, self.state.runs[i].get("name") or self.state.runs[i].get("kind") or "") for i in ids if i in self.state.runs]
        self.overlay.set_runs(labels, self.services.reader)
        pair = [self.state.runs[i] for i in ids[:2] if i in self.state.runs]
        if len(pair) == 2:
            self.diff.show_pair(pair[0], pair[1])
        else:
            self.diff.show_pair(None, None)
        self._show_detail()
        self._update_buttons()

    def _show_detail(self) -> None:
        ids = self.selected_run_ids()
        if not self.state.runs:
            self.detail.setText(NO_RUNS_HINT)
            return
        if len(ids) != 1 or ids[0] not in self.state.runs:
            self.detail.setText(f"{len(ids)} runs selected." if ids else "")
            return
        run = self.state.runs[ids[0]]
        text = f"Run #{run['id']} · {run['kind']} · {run['status']}"
        if run.get("error"):
            text += f" — {run['error']}"
        self.detail.setText(text)

    def _update_buttons(self) -> None:
        ids = self.selected_run_ids()
        one = len(ids) == 1
        self.again_button.setEnabled(one)
        self.resume_button.setEnabled(one and self._resume_params(ids[0]) is not None)
        self.cli_button.setEnabled(one)
        self.compare_button.setEnabled(one and ids[0] in self.state.runs and run_model_folder(self.state.runs[ids[0]]) is not None)
        self.merge_button.setEnabled(bool(ids) and self._merge_folders(ids) is not None)
        self.delete_button.setEnabled(bool(ids))

    # -------------------------------------------------------------- merging
    def _merge_folders(self, ids: list[int]) -> list[str] | None:
        """The output folders of the selected runs when every one is a finished fine-tuning (or merge) run."""
        folders = []
        for run_id in ids:
            run = self.state.runs.get(run_id)
            out = (run.get("params") or {}).get("out_dir") if run else None
            if run is None or run["kind"] not in ("finetune", "finetune-merge") or run["status"] != "finished" \
                    or not out:
                return None
            folders.append(str(out))
        return folders

    def open_merge_dialog(self) -> Any:
        """Ask how to merge the selected runs; the dialog's Merge starts the job. Returns the dialog."""
        from lm_workbench.ui.runs.merge_dialog import MergeDialog

        ids = self.selected_run_ids()
        folders = self._merge_folders(ids) if ids else None
        if folders is None:
            return None
        labels = [f"#{i} {self.state.runs[i].get('name') or ''} — {folder}" for i, folder in zip(ids, folders)]
        dialog = MergeDialog(folders, labels, self)
        dialog.accepted.connect(lambda: self.start_merge(dialog))
        self.merge_dialog = dialog
        dialog.open()
        return dialog

    def start_merge(self, dialog: Any) -> None:
        from lm_workbench.finetune.merge_runs import MergeRun

        try:
            spec = dialog.spec()
        except WorkbenchError as exc:
            self.message_bar.show_error(str(exc), source="merge")
            return
        self.merge_button.setEnabled(False)
        self.message_bar.show_info(f"{spec.title().capitalize()}…", source="merge")
        self.jobs.run(MergeRun(spec).window_job(self.services.path), self._merged, step="merge",
                      label="Merging runs…", on_error=self._merge_failed,
                      on_progress=lambda p: self.message_bar.show_info(p.message, source="merge"),
                      on_cancelled=lambda: self.message_bar.show_warning("Merging cancelled.", source="merge"))

    def _merged(self, summary: Any) -> None:
        self._update_buttons()
        if not summary:
            return
        weights = ", ".join(f"{w:g}" for w in summary["weights"])
        what = ("folded into the base weights" if len(summary["sources"]) == 1 else
                f"combined ({summary['how']}, weights {weights})" + (" and folded" if summary["folded"] else ""))
        notes = " ".join(f"{n[0].upper()}{n[1:]}." for n in summary["notes"])
        self.message_bar.show_info(f"Run #{summary.get('run_id', '?')}: {len(summary['sources'])} run(s) {what} "
                                   f"into {summary['out_dir']}. {notes}", source="merge")
        self.refresh()
        if summary.get("run_id") is not None:
            self.select_runs([summary["run_id"]])

    def _merge_failed(self, exc: BaseException, tb: str) -> None:
        self._update_buttons()
        self.message_bar.show_error(f"Could not merge: {user_line(exc)}", source="merge")

    # -------------------------------------------------------------- actions
    def compare_selected(self) -> str | None:
        """Load the selected finished run's model as model B; its folder, or None."""
        ids = self.selected_run_ids()
        folder = run_model_folder(self.state.runs[ids[0]]) if len(ids) == 1 and ids[0] in self.state.runs else None
        if folder is not None:
            self.compare_with(folder)
        return folder

    def cli_command(self, run_id: int) -> str:
        """The command line that repeats a run: from its kind, else (an unknown kind, or settings this version
        cannot read) the one stored with it."""
        run = self.state.runs[run_id]
        kind = run_kind(run["kind"])
        if kind is not None:
            try:
                return kind.cli_command(run.get("params") or {})
            except WorkbenchError:
                if not run.get("cli_command"):
                    raise
        if run.get("cli_command"):
            return str(run["cli_command"])
        raise WorkbenchError(f"run #{run_id} ({run['kind']}) has no command line: this version does not know "
                             "that kind of run")

    def copy_cli(self) -> str | None:
        ids = self.selected_run_ids()
        if len(ids) != 1:
            return None
        try:
            text = self.cli_command(ids[0])
        except WorkbenchError as exc:
            self.message_bar.show_error(str(exc), source="cli")
            return None
        copy_text_to_clipboard(text)
        self.message_bar.show_info(f"Copied the command line of run #{ids[0]}: {text}", source="cli")
        return text

    def run_again(self) -> int | None:
        """Queue a new run of the selected run's kind with its settings (a new output folder)."""
        ids = self.selected_run_ids()
        if len(ids) != 1:
            return None
        run = self.state.runs[ids[0]]
        kind = run_kind(run["kind"])
        if kind is None:
            self.message_bar.show_error(f"This version cannot run a {run['kind']!r} run again.", source="again")
            return None
        params = fresh_params(run.get("params") or {})
        return self._queue(run, kind, params, "Could not queue the run",
                           lambda new_id: f"Queued run #{new_id}, a repeat of run #{run['id']}.")

    def _resume_params(self, run_id: int) -> dict[str, Any] | None:
        run = self.state.runs.get(run_id)
        kind = run_kind(run["kind"]) if run else None
        return resume_params(kind, run) if kind is not None else None

    def resume_run(self) -> int | None:
        """Queue the selected stopped run's continuation from its newest checkpoint (same output folder)."""
        ids = self.selected_run_ids()
        params = self._resume_params(ids[0]) if len(ids) == 1 else None
        if params is None:
            return None
        run = self.state.runs[ids[0]]
        return self._queue(run, run_kind(run["kind"]), params, "Could not resume the run",
                           lambda new_id: f"Queued run #{new_id}: run #{run['id']} continues from its last "
                                          f"checkpoint in {params['out_dir']}.")

    def _queue(self, run: dict[str, Any], kind: Any, params: dict[str, Any], failed: str,
               queued: Callable[[int], str]) -> int | None:
        """Submit ``params`` to the lane as a new run of ``kind`` with ``run``'s name, model and method, then
        select it; returns its id, or None when the lane refused it (the message bar says ``failed``: why)."""
        try:
            new_id = self.services.lane.submit(kind.target, params, kind=kind.kind, name=run.get("name"),
                                               model=run.get("model"), method=run.get("method"),
                                               cli_command=kind.cli_command(params))
        except (WorkbenchError, RuntimeError, OSError, sqlite3.Error) as exc:
            self.message_bar.show_error(f"{failed}: {describe(exc) or exc}", source="again")
            return None
        self.message_bar.show_info(queued(new_id), source="again")
        self.refresh()
        self.select_runs([new_id])
        self.run_submitted.emit(new_id)
        return new_id

    def delete_selected(self) -> list[int]:
        """Hide the selected runs now; delete them from the store when Undo is not pressed in time."""
        ids = self.selected_run_ids()
        active = self.state.first_active(ids)
        if active is not None:
            self.message_bar.show_error(f"Run #{active} is still {self.state.runs[active]['status']}: cancel it "
                                        "in the Pre-train tab first.", source="delete")
            return []
        if not ids:
            return []
        self.commit_deletes()  # an earlier deletion is final once another starts
        self.state.hide(ids)
        names = ", ".join(f"#{i}" for i in ids)
        self.undo_label.setText(f"Deleted run{'s' if len(ids) > 1 else ''} {names} (files on disk are kept).")
        self.undo_bar.show()
        self.undo_timer.start()
        self.refresh()
        return ids

    def undo_delete(self) -> None:
        self.undo_timer.stop()
        restored = self.state.undo()
        self.undo_bar.hide()
        self.refresh()
        self.select_runs(restored)

    def commit_deletes(self) -> None:
        """Remove the hidden runs from the store now."""
        self.undo_timer.stop()
        ids = self.state.take_deletes()
        self.undo_bar.hide()
        if ids and not self.services.closed:
            try:
                for run_id in ids:
                    self.services.store.delete_run(run_id)
                    self.state.forget(run_id)
            except (WorkbenchError, OSError, sqlite3.Error) as exc:  # a read-only or failing store
                log.warning("could not delete runs %s", ids, exc_info=exc)
                self.message_bar.show_error(f"Could not delete the runs: {user_line(exc)}", source="store")

    def export_plot(self, path: str | Path | None = None) -> Path | None:
        """The overlaid curves as PNG or SVG (asks where when ``path`` is None)."""
        try:
            if path is None:
                return export_dialog(self, self.overlay.export_widget,
                                     str(Path.home() / suggest_filename("runs", self.overlay.metric, "png")))
            return save_widget(self.overlay.export_widget, path)
        except WorkbenchError as exc:
            self.message_bar.show_error(str(exc), source="export")
            return None

    def table_rows(self) -> tuple[list[str], list[list[str]]]:
        """The table as shown (sorted), with the error message of each run."""
        header = [c.title for c in COLUMNS] + ["Error"]
        rows = []
        for r in range(self.proxy.rowCount()):
            source = self.proxy.mapToSource(self.proxy.index(r, 0)).row()
            row = self.model.rows[source]
            rows.append([display(c.key, row.get(c.key)) for c in COLUMNS] + [row["error"]])
        return header, rows

    def export_table(self, path: str | Path | None = None) -> Path | None:
        if path is None:
            name, _ = QFileDialog.getSaveFileName(self, "Export runs table", str(Path.home() / "runs.csv"),
                                                  "CSV (*.csv)")
            if not name:
                return None
            path = name
        try:
            return export_csv(path, self.table_rows())
        except OSError as exc:
            self.message_bar.show_error(f"could not write {path}: {exc}", source="export")
            return None
