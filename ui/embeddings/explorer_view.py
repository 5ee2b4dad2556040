"""The Embeddings tab: a corpus, one vector per word occurrence, a map, neighbours, layers, sentences.

Unlike the other analysis tabs it works on a corpus, not on the window's
text box, so it is not a ``ModelView``: it reads the loaded model from the
window and runs its jobs on the window's job bridge (the one interactive
lane: the model is never used by two threads at once). Jobs it starts on its
own (after a model load, say) wait until the lane is idle, so they never
cancel the window's tokenizing; jobs the user asks for replace the tab's own
stale job.

Flow: corpus (paste / file / drop / demo) -> extraction (every layer and the
static baseline, cached on disk) -> representation (picker; no model run) ->
map (PCA at once; UMAP / t-SNE on request) -> hover, click, box/lasso ->
neighbours. The layer sweep and the sentence panel run on request.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox, QFormLayout, QFrame, QGroupBox, QHBoxLayout, QLabel, QMessageBox, QPushButton, QScrollArea, QSplitter,
    QTabWidget, QToolButton, QVBoxLayout, QWidget,
)

from engine.errors import WorkbenchError
from ui import theme
from ui.embeddings import jobs
from ui.embeddings.corpus_panel import CorpusPanel
from ui.embeddings.export_menu import build_export_menu
from ui.embeddings.job_strip import JobStrip
from ui.embeddings.layer_sweep_panel import LayerSweepPanel
from ui.embeddings.method_controls import MethodControls
from ui.embeddings.neighbours_panel import NeighboursPanel
from ui.embeddings.occurrence_list import OccurrenceList, context_html, context_plain
from ui.embeddings.representation_picker import RepresentationPicker
from ui.embeddings.scatter_map import ScatterMap
from ui.embeddings.sentence_panel import SentencePanel
from ui.views.base import Notice

if TYPE_CHECKING:
    from ui.main_window import MainWindow

JOB_PREFIX = "embeddings"
COLOUR_BY = (("label", "label"), ("word", "word"), ("sentence", "sentence"))
SELECTION_HEADER = ["#", "word", "label", "line", "sentence"]
MAX_SELECTION_ROWS = 2000


class EmbeddingExplorerView(QWidget):
    def __init__(self, window: MainWindow, parent: QWidget | None = None):
        super().__init__(parent)
        self._win_ref = weakref.ref(window)  # no window <-> tab reference cycle: the window is freed on its thread
        self.corpus: Any = None
        self.table: Any = None  # engine.embeddings.table.OccurrenceTable
        self.spec: Any = None
        self.vectors: np.ndarray | None = None  # [n, H] of the current representation
        self.map_rows = np.zeros(0, dtype=np.int64)  # occurrence of each map point
        self.coords: np.ndarray | None = None
        self._indexes: dict[str, Any] = {}
        self._model_id: int | None = None
        self._table_key: Any = None
        self._map_key: Any = None
        self._queued: Callable[[], None] | None = None
        self._job_gen = 0
        self._projections = None
        self._sized = False

        self.corpus_panel = CorpusPanel()
        self.picker = RepresentationPicker()
        self.method = MethodControls()
        self.colour_combo = QComboBox()
        self.colour_combo.setToolTip("What the colours of the map stand for")
        self.embed_button = QPushButton("Embed corpus")
        self.embed_button.setToolTip("Run the model over the corpus (every layer and the static baseline)")
        self.export_button = QToolButton()
        self.export_button.setText("Export")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_button.setMenu(build_export_menu(self))

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
        map_box = QWidget()
        map_col = QVBoxLayout(map_box)
        map_col.setContentsMargins(0, 0, 0, 0)
        map_col.addWidget(self.map, 1)
        map_col.addWidget(self.hover_label)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(map_box)
        self.splitter.addWidget(self.side_tabs)
        self.splitter.setStretchFactor(0, 5)
        self.splitter.setStretchFactor(1, 4)
        right = QVBoxLayout()
        theme.bind(right, lambda w, m: w.setSpacing(m.row_spacing))
        right.addWidget(self.notice)
        right.addWidget(self.strip)
        right.addWidget(self.splitter, 1)
        layout = QHBoxLayout(self)
        theme.bind(layout, lambda w, m: w.setContentsMargins(*m.view_margins))
        layout.addWidget(left)
        layout.addLayout(right, 1)
        self._connect()

    def _left_column(self) -> QScrollArea:
        column = QWidget()
        col = QVBoxLayout(column)
        theme.bind(col, lambda w, m: w.setContentsMargins(*m.scroll_column_margins))
        for title, body in (("Corpus", self.corpus_panel), ("Representation", self.picker), ("Map", self.method)):
            box = QGroupBox(title)
            inner = QVBoxLayout(box)
            theme.bind(inner, lambda w, m: w.setContentsMargins(*m.group_margins))
            inner.addWidget(body)
            col.addWidget(box)
            if title == "Representation":
                inner.addWidget(self.embed_button)
            if title == "Map":
                form = QFormLayout()
                form.addRow("Colour by", self.colour_combo)
                inner.addLayout(form)
        col.addWidget(self.export_button)
        col.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(column)
        m = theme.current().metrics
        scroll.setMinimumWidth(max(m.side_column_min_w, column.minimumSizeHint().width() + 18))  # room for a scroll bar
        scroll.setMaximumWidth(max(m.side_column_max_w, column.minimumSizeHint().width() + 18))
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        return scroll

    @property
    def _win(self) -> MainWindow:
        return self._win_ref()

    def _connect(self) -> None:
        cp = self.corpus_panel
        cp.demo_requested.connect(self.use_demo)
        cp.text_requested.connect(self.use_text)
        cp.file_requested.connect(self.open_corpus)
        self.picker.changed.connect(self.update_map)
        self.picker.extraction_changed.connect(lambda: self._user_job(self.embed))
        self.embed_button.clicked.connect(lambda: self._user_job(self.embed))
        self.method.changed.connect(lambda: self.update_map() if self.method.immediate() else None)
        self.method.compute_requested.connect(lambda: self.update_map(force=True))
        self.colour_combo.currentIndexChanged.connect(lambda _i: self._recolour())
        self.map.hovered.connect(self.show_context)
        self.map.clicked.connect(self._point_clicked)
        self.map.selection_changed.connect(self._selection_changed)
        self.neighbours.options_changed.connect(self.refresh_neighbours)
        self.neighbours.occurrence_activated.connect(self.select_occurrence)
        self.selection_list.occurrence_activated.connect(self.select_occurrence)
        self.sweep_panel.compute_requested.connect(lambda: self._user_job(self.run_sweep))
        self.sentence_panel.compute_requested.connect(lambda: self._user_job(self.run_sentences))
        self.strip.cancel_requested.connect(self.cancel)
        jobs_bridge = self._win.jobs
        jobs_bridge.busy_changed.connect(self._lane_busy_changed)
        jobs_bridge.job_finished.connect(self._job_finished)

    # ------------------------------------------------------------- the lane
    def _ours(self) -> bool:
        name = self._win.jobs.current_name
        return bool(name) and name.startswith(JOB_PREFIX)

    def _user_job(self, fn: Callable[[], None]) -> None:
        """Run now if the lane is idle or busy with our own (stale) job; else once it is idle."""
        if not self._win.jobs.busy or self._ours():
            fn()
        else:
            self._queued = fn

    def _lane_busy_changed(self, busy: bool) -> None:
        if not busy and self._queued is not None:
            fn, self._queued = self._queued, None
            QTimer.singleShot(0, fn)

    def _job_finished(self, name: str, outcome: str) -> None:
        if name == "load" and outcome == "done":
            QTimer.singleShot(0, self._check_model)  # after the window has taken the new model

    def _run(self, name: str, fn: Callable, on_done: Callable[[Any], None], label: str) -> None:
        if self._win.jobs.closed:
            return
        self._job_gen += 1
        gen = self._job_gen
        self.strip.start(label)

        def done(value: Any) -> None:
            if gen == self._job_gen:
                self.strip.finish()
                self._win.status.set_message(f"{label.rstrip('…')}: done")
            on_done(value)

        def failed(exc: BaseException, tb: str) -> None:
            if gen == self._job_gen:
                self.strip.finish()
            if isinstance(exc, WorkbenchError) and not tb:
                self.notice.show_message(str(exc), "warning")
            else:
                self.notice.show_message("This could not be computed (see the message above).", "error")
                self._win.show_error(exc, tb, source=f"{JOB_PREFIX}-{name}")

        def cancelled() -> None:
            if gen == self._job_gen:
                self.strip.finish()
                self._win.status.set_message("Embeddings: stopped")

        self._win.jobs.run(fn, name=f"{JOB_PREFIX}-{name}", on_done=done, on_error=failed,
                           on_progress=self.strip.progress, on_cancelled=cancelled, label=label)

    def cancel(self) -> None:
        self._queued = None
        if self._ours():
            self._win.jobs.cancel()

    def busy(self) -> bool:
        return self.strip.running() or self._queued is not None

    # --------------------------------------------------------------- model
    def _loaded(self) -> Any:
        return self._win.loaded

    def _check_model(self) -> None:
        """A model was loaded: adapt the layer controls and embed the corpus again."""
        loaded = self._loaded()
        if loaded is None or id(loaded) == self._model_id:
            return
        self._model_id = id(loaded)
        self.picker.set_num_layers(loaded.info.layers)
        self.sentence_panel.set_num_layers(loaded.info.layers)
        if self.corpus is not None:
            self._user_job(self.embed)

    # -------------------------------------------------------------- corpus
    def use_demo(self) -> None:
        self._user_job(lambda: self._run("corpus", jobs.demo_corpus, self._demo_ready, "Loading the demo set…"))

    def _demo_ready(self, result: tuple[Any, list[str]]) -> None:
        corpus, words = result
        self.picker.words_edit.setText(", ".join(words))
        self.picker.words_edit.setCursorPosition(0)
        self.picker._last_words = self.picker.words_edit.text().strip()
        self.set_corpus(corpus)

    def use_text(self, text: str) -> None:
        from engine.embeddings.corpus import corpus_from_text

        try:
            corpus = corpus_from_text(text)
        except WorkbenchError as exc:
            self.notice.show_message(str(exc), "warning")
            return
        self.set_corpus(corpus)

    def open_corpus(self, path: str, text_column: str | None = None, label_column: str | None = None) -> None:
        self._user_job(lambda: self._run(
            "corpus", lambda token: jobs.read_corpus_file(path, text_column, label_column, token),
            self.set_corpus, "Reading the corpus…"))

    def set_corpus(self, corpus: Any) -> None:
        """Take a corpus and embed it (when a model is loaded)."""
        self.corpus = corpus
        labels = f", labels from “{corpus.label_name}”" if corpus.labels is not None else ""
        self.corpus_panel.set_summary(f"{len(corpus):,} texts from {corpus.source}{labels}.")
        self.notice.clear_message()
        self._user_job(self.embed)

    # ---------------------------------------------------------- extraction
    def embed(self) -> None:
        loaded = self._loaded()
        if self.corpus is None:
            self.notice.show_message("The corpus is empty: paste text, open or drop a file, or use the demo set.",
                                     "info")
            return
        if loaded is None:
            self.notice.show_message("Load a model (left) to embed the corpus.", "info")
            return
        self._check_model()
        corpus, words, pooling = self.corpus, self.picker.words(), self.picker.pooling()
        key = (id(loaded), id(corpus), tuple(words or ()), pooling)
        self._run("extract", lambda token: jobs.extract(loaded, corpus, words, pooling, token),
                  lambda table: self._table_ready(key, table), "Embedding the corpus…")

    def _table_ready(self, key: Any, table: Any) -> None:
        self.table, self._table_key = table, key
        self._indexes = {}
        self._map_key = None
        self.notice.clear_message()
        notes = list(getattr(table, "notices", []) or [])
        if notes:
            self.notice.show_message(" ".join(notes), "info")
        self._fill_colour_combo()
        self._fill_sweep_words()
        self.neighbours.clear()
        self.update_map(force=True)

    def _fill_colour_combo(self) -> None:
        current = self.colour_combo.currentData()
        self.colour_combo.blockSignals(True)
        self.colour_combo.clear()
        for key, text in COLOUR_BY:
            if key == "label":
                if self.table.labels is None:
                    continue
                text = f"label ({getattr(self.corpus, 'label_name', None) or 'label'})"
            self.colour_combo.addItem(text, key)
        index = self.colour_combo.findData(current)
        self.colour_combo.setCurrentIndex(index if index >= 0 else 0)
        self.colour_combo.blockSignals(False)

    def _fill_sweep_words(self) -> None:
        t = self.table
        if t.labels is None:
            self.sweep_panel.set_words([])
            self.sweep_panel.clear("This corpus has no labels: the layer sweep needs sense labels (try the demo set).")
            return
        senses: dict[str, set] = {}
        for word, label in zip(t.words, t.labels):
            if label:
                senses.setdefault(word, set()).add(label)
        self.sweep_panel.set_words(sorted(w for w, s in senses.items() if len(s) >= 2))
        self.sweep_panel.clear("Press “Sweep layers” to score every layer for the chosen word.")

    # ----------------------------------------------------------------- map
    def update_map(self, force: bool = False) -> None:
        """Recompute the representation and, for PCA (or when forced), the map."""
        if self.table is None:
            return
        from engine.embeddings.projection import TSNE_SUBSAMPLE_ABOVE, ProjectionCache, projection_key, subsample

        if self._projections is None:
            self._projections = ProjectionCache()
        method, params, seed = self.method.method(), self.method.parameters(), self.method.seed()
        spec_text = self.picker.spec_text()
        if method != "pca" and not force:  # slow methods wait for "Compute map"; the neighbours follow now
            self._update_representation(spec_text)
            return
        rows = None
        n = len(self.table)
        if method == "tsne" and n > TSNE_SUBSAMPLE_ABOVE:
            answer = QMessageBox.question(
                self, "t-SNE on many points",
                f"t-SNE on {n:,} points can take a long time. Map a seeded random subset of "
                f"{TSNE_SUBSAMPLE_ABOVE:,} points instead?")
            if answer == QMessageBox.StandardButton.Yes:
                rows = subsample(n, TSNE_SUBSAMPLE_ABOVE, seed)
        key = projection_key(self._table_key, n, spec_text, method, params, seed) + (rows is not None,)
        if key == self._map_key:
            return
        table, cache = self.table, self._projections
        self._user_job(lambda: self._run(
            "map", lambda token: jobs.project_map(table, spec_text, method, params, seed, rows, cache, key, token),
            lambda result: self._map_ready(key, table, result), f"Computing the map ({method.upper()})…"))

    def _update_representation(self, spec_text: str) -> None:
        """New vectors for the neighbours without a new map (UMAP/t-SNE run only on request)."""
        if self.spec is not None and self.spec.text == spec_text:
            return
        table = self.table

        def ready(result: tuple) -> None:
            if table is not self.table:
                return
            self.spec, self.vectors = result
            self._indexes.pop("contextual", None)
            self.neighbours.set_representation(self.spec.label)
            self.refresh_neighbours()
            self.notice.show_message(f"The neighbours use {self.spec.label}; the map still shows the previous "
                                     "representation: press “Compute map” to redo it.", "info")

        self._user_job(lambda: self._run("representation", lambda token: jobs.representation(table, spec_text),
                                         ready, "Computing the representation…"))

    def _map_ready(self, key: Any, table: Any, result: tuple) -> None:
        if table is not self.table:
            return
        self.spec, self.vectors, rows, coords = result
        self._indexes.pop("contextual", None)
        if self.notice.text().startswith("The neighbours use"):
            self.notice.clear_message()
        same_points = self.coords is not None and np.array_equal(rows, self.map_rows)
        self.map_rows, self.coords, self._map_key = np.asarray(rows), np.asarray(coords), key
        current = self.map.current()
        selection = self.map.selected()
        self.map.set_points(self.coords, self.colour_labels())
        if same_points:  # same occurrences: keep what the user picked
            if len(selection):
                self.map.set_selection(selection, undoable=False)
            if current is not None:
                self.map.select_current(current)
        self.neighbours.set_representation(self.spec.label)
        self._win.status.set_message(f"Map of {len(rows):,} occurrences, {self.spec.label}")

    def colour_labels(self) -> list[str]:
        t, how = self.table, self.colour_combo.currentData() or "word"
        rows = self.map_rows
        if how == "label" and t.labels is not None:
            return [t.labels[r] or "" for r in rows]
        if how == "sentence":
            return [f"line {t.line_numbers[t.occurrences[r].line]}" for r in rows]
        words = t.words
        return [words[r] for r in rows]

    def _recolour(self) -> None:
        if self.table is not None and self.map.point_count() == len(self.map_rows):
            self.map.set_labels(self.colour_labels())

    # ---------------------------------------------------- hover and select
    def occurrence_of_point(self, point: int) -> int:
        return int(self.map_rows[point])

    def describe(self, row: int) -> tuple[str, str, str, str]:
        """(word, label, sentence HTML with the word highlighted, sentence with the word in brackets)."""
        t = self.table
        sentence, start, end = t.context(row)
        label = (t.labels[row] or "") if t.labels is not None else ""
        return t.occurrences[row].word, label, context_html(sentence, start, end), context_plain(sentence, start, end)

    def show_context(self, point: int) -> None:
        if point < 0 or self.table is None:
            return
        row = self.occurrence_of_point(point)
        word, label, _html, _plain = self.describe(row)
        sentence, start, end = self.table.context(row)
        html = context_html(sentence, start, end, 400, 400)
        line = self.table.line_numbers[self.table.occurrences[row].line]
        extra = f" · <i>{label}</i>" if label else ""
        self.hover_label.setText(f"<b>{word}</b>{extra} · line {line}: {html}")

    def hover_text(self) -> str:
        from PySide6.QtGui import QTextDocument

        doc = QTextDocument()
        doc.setHtml(self.hover_label.text())
        return doc.toPlainText()

    def _point_clicked(self, point: int) -> None:
        self.show_context(point)
        self.refresh_neighbours()
        self.side_tabs.setCurrentWidget(self.neighbours)

    def select_occurrence(self, row: int) -> None:
        """Make occurrence ``row`` the clicked point (when it is on the map)."""
        where = np.flatnonzero(self.map_rows == row)
        if len(where):
            self.map.select_current(int(where[0]))

    def selected_occurrence(self) -> int | None:
        point = self.map.current()
        return None if point is None else self.occurrence_of_point(point)

    def neighbour_index(self, which: str) -> Any:
        """The cosine index of the current representation ("contextual") or the static baseline."""
        from engine.embeddings.neighbours import NeighbourIndex

        if which not in self._indexes:
            vectors = self.vectors if which == "contextual" else np.asarray(self.table.vectors["static"], np.float32)
            self._indexes[which] = NeighbourIndex(vectors)
        return self._indexes[which]

    def neighbour_query(self, row: int, which: str) -> list:
        t = self.table
        lines = np.fromiter((o.line for o in t.occurrences), dtype=np.int64, count=len(t))
        exclude = lines == t.occurrences[row].line
        candidates = None
        if self.neighbours.same_word.isChecked():
            candidates = np.array(t.words, dtype=object) == t.words[row]
        return self.neighbour_index(which).query(row, self.neighbours.k(), exclude=exclude, candidates=candidates)

    def refresh_neighbours(self) -> None:
        row = self.selected_occurrence()
        if row is None or self.table is None or self.vectors is None:
            return
        word, label, html, _plain = self.describe(row)
        query = f"Query: <b>{word}</b>{f' · <i>{label}</i>' if label else ''} · {html}"
        self.neighbours.show_query(query, self.neighbour_query(row, "contextual"),
                                   self.neighbour_query(row, "static"), self.describe)

    def _selection_changed(self, points: np.ndarray) -> None:
        t = self.table
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

    def selected_occurrences(self) -> list[int]:
        return [self.occurrence_of_point(p) for p in self.map.selected()]

    # ------------------------------------------------- sweep and sentences
    def run_sweep(self) -> None:
        if self.table is None:
            self.sweep_panel.clear("Embed a corpus with labels first (try the demo set).")
            return
        table, word = self.table, self.sweep_panel.word()
        self._run("sweep", lambda token: jobs.sweep(table, word, token),
                  lambda result: self.sweep_panel.set_scores(
                      result[0], f"{word or 'all words'}, {result[1]} labelled occurrences"),
                  "Sweeping the layers…")

    def sentence_texts(self) -> list[str]:
        count = self.sentence_panel.count_spin.value()
        t = self.table
        if t is not None and len(self.map.selected()):
            lines = dict.fromkeys(t.occurrences[r].line for r in self.selected_occurrences())
            return [t.sentences[i] for i in list(lines)[:count]]
        return list(self.corpus.lines[:count]) if self.corpus is not None else []

    def run_sentences(self) -> None:
        loaded, texts = self._loaded(), self.sentence_texts()
        if loaded is None or not texts:
            self.sentence_panel.clear("Load a model and a corpus first.")
            return
        pooling, layer, table = self.sentence_panel.pooling(), self.sentence_panel.layer_spin.value(), self.table
        what = f"{self.sentence_panel.pooling_combo.currentText()}, layer {layer}"
        self._run("sentences", lambda token: jobs.sentences(loaded, texts, pooling, layer, table, token),
                  lambda r: self.sentence_panel.set_result(texts, r[0], r[1], r[2], what),
                  "Embedding sentences…")

    # -------------------------------------------------------------- export
    def export_widget(self) -> QWidget:
        return self.map.figure

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            QTimer.singleShot(0, self._initial_sizes)  # once laid out: the splitter knows its width
        QTimer.singleShot(0, self._check_model)

    def _initial_sizes(self) -> None:
        """Map 52 %, side panels 48 % of the width to start with."""
        width = max(self.splitter.width(), 700)
        self.splitter.setSizes([int(width * 0.52), width - int(width * 0.52)])
