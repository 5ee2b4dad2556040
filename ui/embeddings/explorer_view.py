"""The Embeddings tab: a corpus, one vector per word occurrence, a map, neighbours, layers, sentences.

Unlike the text-box tabs it works on a corpus, so it is not a
``ModelView``: it gets a ``ViewContext`` (the loaded model and its changes,
jobs, messages) and runs its jobs through ``ctx.jobs`` on the one interactive
lane (the model is never used by two threads at once). Its jobs wait until
the lane is idle rather than cancel another view's job or the window's
tokenizing, and a newer request replaces the tab's own stale one. What the
tab shows lives in a Qt-free ``lm_workbench.embeddings.state.EmbeddingsState``
(corpus, occurrence table, representation, map, selection with undo); the
widgets observe it.

Flow: corpus (paste / file / drop / demo) -> extraction (every layer and the
static baseline, cached on disk) -> representation (picker; no model run) ->
map (PCA at once; UMAP / t-SNE on request) -> hover, click, box/lasso ->
neighbours. The layer sweep and the sentence panel run on request. While a
model B is compared, B's neighbours of the same occurrence show under A's
(``lm_workbench.ui.embeddings.model_b_neighbours``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QGroupBox, QLabel, QMessageBox, QScrollArea, QSplitter, QTabWidget, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.ui import theme
from lm_workbench.ui.embeddings.model_b_neighbours import ModelBNeighbours, describe_occurrence
from lm_workbench.ui.embeddings.corpus_panel import CorpusPanel
from lm_workbench.ui.embeddings.export_menu import build_export_menu
from lm_workbench.ui.embeddings.job_strip import JobStrip
from lm_workbench.ui.embeddings.layer_sweep_panel import LayerSweepPanel
from lm_workbench.ui.embeddings.method_controls import MethodControls
from lm_workbench.ui.embeddings.neighbours_panel import NeighboursPanel
from lm_workbench.ui.embeddings.occurrence_list import OccurrenceList, context_html
from lm_workbench.ui.embeddings.representation_picker import RepresentationPicker
from lm_workbench.ui.embeddings.scatter_map import ScatterMap
from lm_workbench.ui.embeddings.sentence_panel import SentencePanel
from lm_workbench.ui.widgets import boxes
from lm_workbench.ui.widgets.controls import button, combo_box, menu_button
from lm_workbench.ui.widgets.boxes import flush_column, form_rows
from lm_workbench.ui.widgets.notice import Notice
from lm_workbench.ui.embeddings.map_origin import MapOrigin
from lm_workbench.ui.embeddings.explorer_presets import ExplorerPresets
from lm_workbench.ui.view_kit.result_origin_line import ResultOriginLine
from lm_workbench.result_origin import ResultOrigin
from lm_workbench.ui.widgets.fold import ColumnScroll
from lm_workbench.embeddings import view_tasks
from lm_workbench.embeddings.state import COLOUR_BY, EmbeddingsState

if TYPE_CHECKING:
    from lm_workbench.ui.view_kit.view_context import ViewContext
SELECTION_HEADER = ["#", "word", "label", "line", "sentence"]
MAX_SELECTION_ROWS = 2000


class EmbeddingExplorerView(ExplorerPresets, MapOrigin, QWidget):
    def __init__(self, ctx: ViewContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self.state = EmbeddingsState()
        self._model_id: int | None = None
        self._projections = None
        self._sized = False

        self.corpus_panel = CorpusPanel()
        self.picker = RepresentationPicker()
        self.method = MethodControls()
        self.colour_combo = combo_box(tip="What the colours of the map stand for")
        self.embed_button = button("Embed corpus", tip="Run the model over the corpus (every layer and the static "
                                   "baseline)", clicked=self.embed)
        self.export_button = menu_button("Export", build_export_menu(self))

        left = self._left_column()
        self.notice = Notice()
        self.strip = JobStrip()
        self.map = ScatterMap()
        self.hover_label = QLabel("Hover a point to read its sentence; click one for its neighbours.")
        self.hover_label.setTextFormat(Qt.TextFormat.RichText)
        self.hover_label.setWordWrap(True)
        theme.bind(self, lambda w, m: w.hover_label.setMinimumHeight(m.hover_context_min_h))
        self.hover_label.setObjectName("hoverContext")
        self.hover_label.setStyleSheet(theme.hover_context_css())
        theme.follow(self.hover_label, lambda: self.hover_label.setStyleSheet(theme.hover_context_css()))
        self.neighbours = NeighboursPanel()
        self.selection_list = OccurrenceList(SELECTION_HEADER)
        self.sweep_panel = LayerSweepPanel()
        self.sentence_panel = SentencePanel()
        self.side_tabs = QTabWidget()
        self.side_tabs.addTab(self.neighbours, "Neighbours")
        self.side_tabs.addTab(self.selection_list, "Selection")
        self.side_tabs.addTab(self.sweep_panel, "Layers")
        self.side_tabs.addTab(self.sentence_panel, "Sentences")
        theme.bind(self.side_tabs, lambda w, m: w.setMinimumWidth(m.side_panel_min_w))  # tables scroll; the map gets the width
        map_box = QWidget()
        flush_column(map_box, (self.map, 1), self.hover_label)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(map_box)
        self.splitter.addWidget(self.side_tabs)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        # whose map this is; greyed with Run again once the corpus, words or representation changed, cleared with
        # another model (issue 49.5)
        self.map_origin = ResultOriginLine(map_box, clear=self.clear_results, run_again=self.run_again)
        right_box = QWidget()
        right = boxes.column(right_box, self.notice, self.strip, self.map_origin, (self.splitter, 1), margins=None,
                             spacing=None)
        theme.bind(right, lambda w, m: (w.setContentsMargins(m.row_spacing, 0, 0, 0), w.setSpacing(m.row_spacing)))
        self.outer_splitter = QSplitter(Qt.Orientation.Horizontal)  # controls | map and panels
        self.outer_splitter.addWidget(left)
        self.outer_splitter.addWidget(right_box)
        self.outer_splitter.setStretchFactor(0, 0)
        self.outer_splitter.setStretchFactor(1, 1)
        self.outer_splitter.setCollapsible(1, False)
        boxes.row(self.outer_splitter, owner=self, margins="view_margins")
        self._connect()
        self.model_b_neighbours = ModelBNeighbours(ctx, self.state, self.neighbours, self.picker, self.strip.progress,
                                     self.refresh_neighbours)  # model B's neighbours, while comparing

    def _left_column(self) -> QScrollArea:
        colour_form = form_rows(("Colour by", self.colour_combo))
        groups = []
        for title, items in (("Corpus", (self.corpus_panel,)), ("Representation", (self.picker, self.embed_button)),
                             ("Map", (self.method, colour_form))):
            box = QGroupBox(title)
            boxes.column(box, *items, margins="group_margins", spacing=None)
            groups.append(box)
        column = QWidget()
        boxes.column(column, *groups, self.export_button, 1, margins="scroll_column_margins", spacing=None)
        scroll = ColumnScroll()  # never narrower than the controls need (presentation mode's larger font)
        scroll.setWidget(column)
        m = theme.current().metrics
        self._controls_width = max(m.side_column_min_w, column.minimumSizeHint().width() + 18)  # room for a scroll bar
        return scroll

    def _connect(self) -> None:
        cp = self.corpus_panel
        cp.demo_requested.connect(self.use_demo)
        cp.text_requested.connect(self.use_text)
        cp.file_requested.connect(self.open_corpus)
        self.picker.changed.connect(self.update_map)
        self.picker.extraction_changed.connect(self.embed)
        self.method.changed.connect(lambda: self.update_map() if self.method.immediate() else None)
        self.method.compute_requested.connect(lambda: self.update_map(force=True))
        self.colour_combo.currentIndexChanged.connect(lambda _i: self._recolour())
        self.map.hovered.connect(self.show_context)
        self.map.clicked.connect(self.state.set_current)
        self.map.selection_drawn.connect(self.state.select)
        self.map.undo_requested.connect(self.state.undo_selection)
        self.neighbours.options_changed.connect(self.refresh_neighbours)
        self.neighbours.occurrence_activated.connect(self.select_occurrence)
        self.selection_list.occurrence_activated.connect(self.select_occurrence)
        self.sweep_panel.compute_requested.connect(self.run_sweep)
        self.sentence_panel.compute_requested.connect(self.run_sentences)
        self.strip.cancel_requested.connect(self.cancel)
        self._connect_origin()
        self.ctx.jobs.started.connect(self._jobs_started)
        self.ctx.jobs.finished.connect(lambda _outcome: self.strip.finish())
        events = self.state.events
        events.corpus_changed.connect(self._corpus_changed)
        events.table_changed.connect(self._table_changed)
        events.representation_changed.connect(self._representation_changed)
        events.map_changed.connect(self._map_changed)
        events.selection_changed.connect(self._selection_changed)
        events.current_changed.connect(self._current_changed)

    # -------------------------------------------------------------- jobs
    def _run(self, step: str, fn: Callable, on_done: Callable[[Any], None], label: str) -> None:
        """Run a job of this tab: after any other view's job, replacing this tab's stale one."""
        self.ctx.jobs.run(fn, on_done, step=step, label=label, on_progress=self.strip.progress,
                          on_error=self._failed, when_idle=True)

    def _failed(self, exc: BaseException, tb: str) -> None:
        if isinstance(exc, WorkbenchError) and not tb:
            self.notice.show_message(str(exc), "warning")
        else:
            self.notice.show_message("This could not be computed (see the message above).", "error")
            self.ctx.show_error(exc, tb)

    def _jobs_started(self, label: str) -> None:
        self.strip.start(label or "Working…")

    def cancel(self) -> None:
        self.ctx.jobs.cancel()
        self.strip.finish()

    def busy(self) -> bool:
        return self.ctx.jobs.busy()

    # --------------------------------------------------------------- model
    def _check_model(self) -> None:
        """A model was loaded: adapt the layer controls and embed the corpus again."""
        loaded = self.ctx.loaded
        if loaded is None or id(loaded) == self._model_id:
            return
        self._model_id = id(loaded)
        self.picker.set_num_layers(loaded.info.layers)
        self.sentence_panel.set_num_layers(loaded.info.layers)
        if self.state.corpus is not None:
            self.embed()

    # -------------------------------------------------------------- corpus
    def use_demo(self) -> None:
        self._run("corpus", view_tasks.demo_corpus, self._demo_ready, "Loading the demo set…")

    def _demo_ready(self, result: tuple[Any, list[str]]) -> None:
        corpus, words = result
        self.picker.words_edit.setText(", ".join(words))
        self.picker.words_edit.setCursorPosition(0)
        self.picker._last_words = self.picker.words_edit.text().strip()
        self.set_corpus(corpus)

    def use_text(self, text: str) -> None:
        from lm_workbench.embeddings.for_views import corpus_from_text

        try:
            corpus = corpus_from_text(text)
        except WorkbenchError as exc:
            self.notice.show_message(str(exc), "warning")
            return
        self.set_corpus(corpus)

    def open_corpus(self, path: str, text_column: str | None = None, label_column: str | None = None) -> None:
        self._run("corpus", lambda cancel: view_tasks.read_corpus_file(path, text_column, label_column, cancel),
                  self.set_corpus, "Reading the corpus…")

    def set_corpus(self, corpus: Any) -> None:
        """Take a corpus and embed it (when a model is loaded)."""
        self.state.set_corpus(corpus)

    def _corpus_changed(self, corpus: Any) -> None:
        labels = f", labels from “{corpus.label_name}”" if corpus.labels is not None else ""
        read = getattr(corpus, "report", None)
        said = read is not None and (read.rows_skipped or read.notes or read.quoting)  # quoting: how a TSV was read
        skipped = f" ({read.summary()})" if said else ""
        self.corpus_panel.set_summary(f"{len(corpus):,} texts from {corpus.source}{labels}{skipped}.")
        self.notice.clear_message()
        self.check_origin()  # another corpus: the map is stale until it is embedded and mapped again
        self.embed()

    # ---------------------------------------------------------- extraction
    def embed(self) -> None:
        loaded, corpus = self.ctx.loaded, self.state.corpus
        if corpus is None:
            self.notice.show_message("The corpus is empty: paste text, open or drop a file, or use the demo set.",
                                     "info")
            return
        if loaded is None:
            self.notice.show_message("Load a model (left) to embed the corpus.", "info")
            return
        self._check_model()
        words, pooling = self.picker.words(), self.picker.pooling()
        key = (id(loaded), id(corpus), tuple(words or ()), pooling)
        self._run("extract", lambda cancel: view_tasks.extract(loaded, corpus, words, pooling, cancel),
                  lambda table: self.state.set_table(key, table, loaded), "Embedding the corpus…")

    def _table_changed(self, table: Any) -> None:
        self.notice.clear_message()
        notes = list(getattr(table, "notices", []) or [])
        if notes:
            self.notice.show_message(" ".join(notes), "info")
        self._fill_colour_combo()
        words = self.state.words_with_senses()
        self.sweep_panel.set_words(words)
        if table.labels is None:
            self.sweep_panel.clear("This corpus has no labels: the layer sweep needs sense labels (try the demo set).")
        else:
            self.sweep_panel.clear("Press “Sweep layers” to score every layer for the chosen word.")
        self.neighbours.clear()
        self.update_map(force=True)

    def _fill_colour_combo(self) -> None:
        current = self.colour_combo.currentData()
        self.colour_combo.blockSignals(True)
        self.colour_combo.clear()
        for key in COLOUR_BY:
            text = key
            if key == "label":
                if self.state.table.labels is None:
                    continue
                text = f"label ({getattr(self.state.corpus, 'label_name', None) or 'label'})"
            self.colour_combo.addItem(text, key)
        index = self.colour_combo.findData(current)
        self.colour_combo.setCurrentIndex(index if index >= 0 else 0)
        self.colour_combo.blockSignals(False)

    # ----------------------------------------------------------------- map
    def update_map(self, force: bool = False) -> None:
        """Recompute the representation and, for PCA (or when forced), the map."""
        st = self.state
        if st.table is None:
            return
        from lm_workbench.embeddings.for_views import TSNE_SUBSAMPLE_ABOVE, ProjectionCache, projection_key, subsample

        if self._projections is None:
            self._projections = ProjectionCache()
        method, params, seed = self.method.method(), self.method.parameters(), self.method.seed()
        spec_text = self.picker.spec_text()
        if method != "pca" and not force:  # slow methods wait for "Compute map"; the neighbours follow now
            self._update_representation(spec_text)
            return
        rows = None
        n = len(st.table)
        if method == "tsne" and n > TSNE_SUBSAMPLE_ABOVE:
            answer = QMessageBox.question(
                self, "t-SNE on many points",
                f"t-SNE on {n:,} points can take a long time. Map a seeded random subset of "
                f"{TSNE_SUBSAMPLE_ABOVE:,} points instead?")
            if answer == QMessageBox.StandardButton.Yes:
                rows = subsample(n, TSNE_SUBSAMPLE_ABOVE, seed)
        key = projection_key(st.table_key, n, spec_text, method, params, seed) + (rows is not None,)
        if key == st.map_key:
            return
        table, cache = st.table, self._projections
        origin = ResultOrigin.of(st.table_model, self.map_inputs(), self._map_summary())

        def ready(result: tuple) -> None:
            if table is st.table:
                st.set_map(key, *result, origin=origin)

        self._run("map", lambda cancel: view_tasks.project_map(table, spec_text, method, params, seed, rows, cache, key,
                                                          cancel),
                  ready, f"Computing the map ({method.upper()})…")

    def _update_representation(self, spec_text: str) -> None:
        """New vectors for the neighbours without a new map (UMAP/t-SNE run only on request)."""
        st = self.state
        if st.spec is not None and st.spec.text == spec_text:
            return
        table = st.table

        def ready(result: tuple) -> None:
            if table is st.table:
                st.set_representation(*result)

        self._run("representation", lambda cancel: view_tasks.representation(table, spec_text), ready,
                  "Computing the representation…")

    def _representation_changed(self, spec: Any) -> None:
        self.neighbours.set_representation(spec.label)
        self.refresh_neighbours()
        self.notice.show_message(f"The neighbours use {spec.label}; the map still shows the previous "
                                 "representation: press “Compute map” to redo it.", "info")

    def _map_changed(self, same_points: bool) -> None:
        st = self.state
        if self.notice.text().startswith("The neighbours use"):
            self.notice.clear_message()
        self.map.set_points(st.coords, self.colour_labels(), first=self.colour_first())
        if same_points:  # same occurrences: the state kept what the user picked
            self.map.show_selection(st.selection)
            self.map.show_current(st.current)
        self.neighbours.set_representation(st.spec.label)
        self.refresh_neighbours()
        self._apply_preset_query()
        self.ctx.status(f"Map of {len(st.map_rows):,} occurrences, {st.spec.label}")
        self.map_origin.set_origin(st.map_origin)
        self.check_origin()  # the inputs changed while it was computed: stale at once

    def colour_labels(self) -> list[str]:
        return self.state.colour_labels(self.colour_combo.currentData() or "word")

    def colour_first(self) -> list[str]:
        """The names of the chosen words' occurrences: coloured before the rest (a lecture step's words)."""
        return self.state.colour_first(self.colour_combo.currentData() or "word", self.picker.words())

    def _recolour(self) -> None:
        st = self.state
        if st.table is not None and self.map.point_count() == len(st.map_rows):
            self.map.set_labels(self.colour_labels(), self.colour_first())

    # ---------------------------------------------------- hover and select
    def occurrence_of_point(self, point: int) -> int:
        return self.state.occurrence_of_point(point)

    def describe(self, row: int) -> tuple[str, str, str, str]:
        """(word, label, sentence HTML with the word highlighted, sentence with the word in brackets)."""
        return describe_occurrence(self.state.table, row)

    def show_context(self, point: int) -> None:
        t = self.state.table
        if point < 0 or t is None:
            return
        row = self.occurrence_of_point(point)
        word, label, _html, _plain = self.describe(row)
        sentence, start, end = t.context(row)
        html = context_html(sentence, start, end, 400, 400)
        line = t.line_numbers[t.occurrences[row].line]
        extra = f" · <i>{label}</i>" if label else ""
        self.hover_label.setText(f"<b>{word}</b>{extra} · line {line}: {html}")

    def hover_text(self) -> str:
        from PySide6.QtGui import QTextDocument

        doc = QTextDocument()
        doc.setHtml(self.hover_label.text())
        return doc.toPlainText()

    def _current_changed(self, point: int | None) -> None:
        self.map.show_current(point)
        if point is None:
            return
        self.show_context(point)
        self.refresh_neighbours()
        self.side_tabs.setCurrentWidget(self.neighbours)

    def select_occurrence(self, row: int) -> None:
        """Make occurrence ``row`` the clicked point (when it is on the map)."""
        point = self.state.point_of_occurrence(row)
        if point is not None:
            self.state.set_current(point)

    def refresh_neighbours(self) -> None:
        st = self.state
        row = st.current_occurrence()
        if row is None or st.table is None or st.vectors is None:
            return
        word, label, html, _plain = self.describe(row)
        query = f"Query: <b>{word}</b>{f' · <i>{label}</i>' if label else ''} · {html}"
        k, same = self.neighbours.k(), self.neighbours.same_word.isChecked()
        self.neighbours.show_query(query, st.neighbours(row, "contextual", k, same),
                                   st.neighbours(row, "static", k, same), self.describe)
        self.model_b_neighbours.refresh(row, k, same)

    def _selection_changed(self, points: np.ndarray) -> None:
        self.map.show_selection(points)
        t = self.state.table
        if t is None:
            return
        rows_idx = [self.occurrence_of_point(p) for p in points[:MAX_SELECTION_ROWS]]
        rows, plain = [], []
        for i, row in enumerate(rows_idx):
            word, label, html, text = self.describe(row)
            line = t.line_numbers[t.occurrences[row].line]
            rows.append([f"{i + 1}", word, label, f"{line}", html])
            plain.append([row, word, label, line, text])
        self.selection_list.set_rows(rows, rows_idx, plain)
        self.side_tabs.setTabText(1, f"Selection ({len(points):,})")
        if len(points):
            self.side_tabs.setCurrentWidget(self.selection_list)

    # ------------------------------------------------- sweep and sentences
    def run_sweep(self) -> None:
        table = self.state.table
        if table is None:
            self.sweep_panel.clear("Embed a corpus with labels first (try the demo set).")
            return
        word = self.sweep_panel.word()
        self._run("sweep", lambda cancel: view_tasks.sweep(table, word, cancel),
                  lambda result: self.sweep_panel.set_scores(
                      result[0], f"{word or 'all words'}, {result[1]} labelled occurrences"),
                  "Sweeping the layers…")

    def sentence_texts(self) -> list[str]:
        return self.state.sentence_texts(self.sentence_panel.count_spin.value())

    def run_sentences(self) -> None:
        loaded, texts = self.ctx.loaded, self.sentence_texts()
        if loaded is None or not texts:
            self.sentence_panel.clear("Load a model and a corpus first.")
            return
        pooling, layer, table = self.sentence_panel.pooling(), self.sentence_panel.layer_spin.value(), self.state.table
        what = f"{self.sentence_panel.pooling_combo.currentText()}, layer {layer}"
        self._run("sentences", lambda cancel: view_tasks.sentences(loaded, texts, pooling, layer, table, cancel),
                  lambda r: self.sentence_panel.set_result(texts, r[0], r[1], r[2], what),
                  "Embedding sentences…")

    # ------------------------------------------------------------ presets
    # what a lecture step or a workspace may set here (apply_preset_step takes them, preset_state reports them)
    preset_settings = frozenset({"words", "layer", "query", "k", "same_word"})

    def export_widget(self) -> QWidget:
        return self.map.figure

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            QTimer.singleShot(0, self, self._initial_sizes)  # once laid out: the splitter knows its width
        QTimer.singleShot(0, self, self._check_model)

    def _initial_sizes(self) -> None:
        """The controls at their natural width (they can be dragged away), then map 60 %, side panels 40 %."""
        total = max(self.outer_splitter.width(), 900)
        self.outer_splitter.setSizes([self._controls_width, total - self._controls_width])
        width = max(total - self._controls_width - 8, 500)
        self.splitter.setSizes([int(width * 0.6), width - int(width * 0.6)])
