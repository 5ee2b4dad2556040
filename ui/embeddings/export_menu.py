"""Export from every panel of the Embeddings tab, through the shared helpers.

Pictures go through ``lm_workbench.ui.widgets.export`` (PNG or SVG by suffix), tables through
``lm_workbench.export.export_csv`` and vectors through ``export_npy``. Each
function takes an optional path (tests and scripts pass one; the menu asks
with a file dialog) and returns the path written, or None when there was
nothing to export (the tab's notice says so) or the dialog was cancelled.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui.widgets.export import export_dialog, save_widget
from lm_workbench.export import export_csv, export_npy, suggest_filename

from lm_workbench.ui.embeddings.explorer_parts import ExplorerParts

COORD_HEADER = ["point", "occurrence", "line", "word_index", "word", "label", "x", "y", "representation", "sentence"]


def _model(view: ExplorerParts) -> str:
    return view.ctx.model_spec()


def _ask(view: ExplorerParts, title: str, stem: str, ext: str, pattern: str) -> Path | None:
    start = str(Path.home() / suggest_filename(stem, _model(view), ext))
    name, _ = QFileDialog.getSaveFileName(view, title, start, pattern)
    return Path(name) if name else None


def _done(view: ExplorerParts, path: Path | None) -> Path | None:
    if path is not None:
        view.ctx.status(f"Saved {path}")
    return path


def _guard(view: ExplorerParts, fn: Callable[[], Path | None]) -> Path | None:
    try:
        return _done(view, fn())
    except (WorkbenchError, OSError) as exc:
        view.notice.show_message(f"Export failed: {exc}", "warning")
        return None


def _nothing(view: ExplorerParts, what: str) -> None:
    view.notice.show_message(f"Nothing to export yet: {what}", "info")


CSV = ("csv", "CSV (*.csv)")
NPY = ("npy", "NumPy array (*.npy)")


def _save(view: ExplorerParts, missing: str | None, title: str, stem: str, kind: tuple[str, str],
          path: str | Path | None, write: Callable[[Any], Path]) -> Path | None:
    """``write(path)`` to ``path``, or to a file of ``kind`` (suffix, dialog filter) the user picks (None if
    cancelled); when ``missing`` says what to do first, there is nothing to export yet and the notice says so."""
    if missing is not None:
        _nothing(view, missing)
        return None
    path = path or _ask(view, title, stem, *kind)
    return _guard(view, lambda: write(path)) if path else None


def export_picture(view: ExplorerParts, widget: QWidget, stem: str, path: str | Path | None = None
                   ) -> Path | None:
    if path is None:
        return _guard(view, lambda: export_dialog(view, widget, str(Path.home() / suggest_filename(
            stem, _model(view), "png"))))
    return _guard(view, lambda: save_widget(widget, path))


def coordinates_table(view: ExplorerParts) -> tuple[list[str], list[list[Any]]]:
    st = view.state
    t, coords = st.table, st.coords
    rows = []
    label = st.spec.text if st.spec is not None else ""
    for point, occ_row in enumerate(st.map_rows):
        occ = t.occurrences[occ_row]
        sentence, start, end = t.context(occ_row)
        rows.append([point, int(occ_row), t.line_numbers[occ.line], occ.word_index, occ.word,
                     (t.labels[occ_row] or "") if t.labels is not None else "",
                     float(coords[point, 0]), float(coords[point, 1]), label,
                     f"{sentence[:start]}[{sentence[start:end]}]{sentence[end:]}"])
    return COORD_HEADER, rows


def export_coordinates(view: ExplorerParts, path: str | Path | None = None) -> Path | None:
    """The map's coordinates with each occurrence's metadata, as CSV."""
    missing = "embed a corpus first" if view.state.coords is None else None
    return _save(view, missing, "Export map coordinates", "embedding-map", CSV, path,
                 lambda to: export_csv(to, coordinates_table(view)))


def export_vectors(view: ExplorerParts, path: str | Path | None = None) -> Path | None:
    """The current representation's vectors [occurrences, hidden] as .npy (row i = occurrence i of the CSV)."""
    vectors = view.state.vectors
    missing = "embed a corpus first" if vectors is None else None
    return _save(view, missing, "Export vectors", "embedding-vectors", NPY, path,
                 lambda to: export_npy(to, np.asarray(vectors, dtype=np.float32)))


def export_table(view: ExplorerParts, table: Callable[[], Any], stem: str, what: str,
                 path: str | Path | None = None) -> Path | None:
    header, rows = table()
    return _save(view, None if rows else what, "Export table", stem, CSV, path,
                 lambda to: export_csv(to, (header, rows)))


def neighbours_table(view: ExplorerParts) -> tuple[list[str], list[list[Any]]]:
    """Both neighbour lists in one table, with a column saying which."""
    header, contextual = view.neighbours.contextual.table()
    _, static = view.neighbours.static.table()
    label = view.state.spec.text if view.state.spec is not None else "contextual"
    rows = [[label, *r] for r in contextual] + [["static", *r] for r in static]
    return ["representation", *header], rows


def build_export_menu(view: ExplorerParts) -> QMenu:
    menu = QMenu(view)
    menu.addAction("Map as PNG or SVG…", lambda: export_picture(view, view.map.figure, "embedding-map"))
    menu.addAction("Map coordinates + metadata (CSV)…", lambda: export_coordinates(view))
    menu.addAction("Vectors of the representation (NPY)…", lambda: export_vectors(view))
    menu.addSeparator()
    menu.addAction("Neighbours (CSV)…", lambda: export_table(
        view, lambda: neighbours_table(view), "embedding-neighbours", "click a point first"))
    menu.addAction("Neighbours as PNG or SVG…", lambda: export_picture(view, view.neighbours, "embedding-neighbours"))
    menu.addAction("Selection (CSV)…", lambda: export_table(
        view, view.selection_list.table, "embedding-selection", "select points with the box or lasso first"))
    menu.addSeparator()
    menu.addAction("Layer sweep as PNG or SVG…", lambda: export_picture(view, view.sweep_panel.plot,
                                                                         "embedding-layer-sweep"))
    menu.addAction("Layer sweep (CSV)…", lambda: export_table(
        view, view.sweep_panel.table, "embedding-layer-sweep", "run the layer sweep first"))
    menu.addSeparator()
    menu.addAction("Sentence panel as PNG or SVG…", lambda: export_picture(view, view.sentence_panel,
                                                                            "embedding-sentences"))
    menu.addAction("Similarity matrix (CSV)…", lambda: export_table(
        view, lambda: view.sentence_panel.matrix_table() if view.sentence_panel.matrix is not None else ([], []),
        "embedding-similarity", "compute sentence vectors first"))
    menu.addAction("Sentence vectors (NPY)…", lambda: _sentence_vectors(view))
    menu.addAction("Anisotropy per layer (CSV)…", lambda: export_table(
        view, view.sentence_panel.anisotropy_table, "embedding-anisotropy", "compute sentence vectors first"))
    return menu


def _sentence_vectors(view: ExplorerParts, path: str | Path | None = None) -> Path | None:
    vectors = view.sentence_panel.vectors
    missing = "compute sentence vectors first" if vectors is None else None
    return _save(view, missing, "Export sentence vectors", "sentence-vectors", NPY, path,
                 lambda to: export_npy(to, vectors))
