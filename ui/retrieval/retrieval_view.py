"""The Retrieval tab: load a corpus, index it with the loaded model (progress, Cancel), type a query and see
the top k passages with their cosines beside BM25's top k, model B's beside A's while comparing, and, for a
BEIR folder (or the demo), the metrics of the model against BM25 with the per-query wins and losses.

What the tab shows lives in a ``lm_workbench.retrieval.state.RetrievalState``; every job is a
``lm_workbench.retrieval.view_tasks`` function run through ``ctx.jobs``. A search whose index is not the current
model's (another model was loaded, the pooling changed) indexes again first, from the cache when it can.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QLabel, QSplitter, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import Progress
from lm_workbench.engine.retrieval.names import BM25_METHODS, POOLINGS
from lm_workbench.ui import theme
from lm_workbench.ui.retrieval.hit_list import HitList
from lm_workbench.ui.retrieval.metrics_panel import MetricsPanel
from lm_workbench.ui.view_kit.model_label import spec_label
from lm_workbench.ui.view_kit.result_origin_line import ResultOriginLine
from lm_workbench.ui.view_kit.scroll_into_view import scroll_into_view
from lm_workbench.ui.widgets import boxes
from lm_workbench.ui.widgets.controls import (
    button, combo_box, double_spin_box, label, line_edit, progress_bar, spin_box,
)
from lm_workbench.ui.widgets.fold import FlowLayout, labelled
from lm_workbench.ui.widgets.model_b_split import ModelBSplit
from lm_workbench.retrieval import view_tasks
from lm_workbench.retrieval.defaults import effective_pooling
from lm_workbench.retrieval.state import RetrievalState
from lm_workbench.result_origin import ResultOrigin, model_identity

DEMO_ITEM = "Demo: 32 passages, 12 judged queries"
CHOOSE_FILE = "Choose a file…"
CHOOSE_BEIR = "Choose a BEIR folder…"


class RetrievalView(QWidget):
    def __init__(self, ctx: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.ctx = ctx
        self.state = RetrievalState()
        self._then: Callable[[], None] | None = None  # what to do once the indexing under way ends
        # evaluations this session recorded, by model specs and inputs: a lecture step visited again shows its
        # evaluation without recording another run (issue 49.11)
        self._evaluations: dict[tuple, tuple] = {}

        self.corpus_combo = combo_box([DEMO_ITEM, CHOOSE_FILE, CHOOSE_BEIR], tip="A .txt file (one passage per line), "
                                      "a .csv/.tsv/.jsonl table (text, id, title) or a BEIR folder (corpus.jsonl, "
                                      "queries.jsonl, qrels/test.tsv)")
        self.pooling_combo = combo_box(list(POOLINGS), tip="Passage vectors: mean of the tokens, the first token "
                                       "([CLS]), the element-wise max, or the model's own pooling (mean for a model "
                                       "that declares none)")
        self.pooling_combo.setCurrentText(self.state.pooling)
        self.k_spin = spin_box(1, 1000, self.state.k, tip="How many passages to list")
        self.index_button = button("Index", tip="Encode every passage once with the loaded model (cached on disk)",
                                   clicked=lambda: self.index())
        self.cancel_button = button("Cancel", clicked=self.cancel, enabled=False)
        self.progress = progress_bar()
        # wide enough for its longest message at any type size ("Indexing…" was clipped; issue 49, cosmetic)
        theme.bind(self.progress, lambda w, _m: w.setMinimumWidth(
            w.fontMetrics().horizontalAdvance("Indexing model B… 100%") + 24))
        self.k1_spin = double_spin_box(0.0, 10.0, self.state.bm25_k1, step=0.1)
        self.b_spin = double_spin_box(0.0, 1.0, self.state.bm25_b, step=0.05)
        self.method_combo = combo_box(list(BM25_METHODS), tip="bm25s's BM25 variant (lucene: Lucene's BM25)")
        self.query_edit = line_edit("Type a query and press Enter")
        self.search_button = button("Search", clicked=lambda: self.search())
        self.evaluate_button = button("Evaluate", tip="nDCG@10, MRR@10, Recall@1/10/100 of the model and BM25 on the "
                                      "corpus's judged queries (a BEIR folder or the demo)",
                                      clicked=lambda: self.evaluate())
        self.summary = label("Press Index to encode the demo passages with the loaded model, or choose a corpus.",
                             name="summary", wrap=True)

        self.hits_a = HitList()
        self.hits_b = HitList()
        self.hits_bm25 = HitList("BM25")
        self.ab = ModelBSplit(self.hits_a, self.hits_b)
        results = QSplitter(Qt.Orientation.Horizontal)
        results.addWidget(self.ab)
        results.addWidget(self.hits_bm25)
        results.setStretchFactor(0, 1)  # equal widths: BM25's passages wrap no more than the model's
        results.setStretchFactor(1, 1)
        results.setChildrenCollapsible(False)
        self.metrics = MetricsPanel(self.search_for)
        self.metrics.hide()
        # the lists and the evaluation each keep their least height (three passages; every metric and eight
        # queries): the tab's page scrolls instead of squeezing them (issue 49.6)
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(results)
        body.addWidget(self.metrics)
        body.setStretchFactor(0, 3)
        body.setStretchFactor(1, 2)
        body.setChildrenCollapsible(False)
        # whose hits and metrics these are: greyed with Run again when the query or a setting changed, cleared
        # when another model loads (issue 49.5)
        self.hits_origin = ResultOriginLine(self.hits_a, self.hits_b, self.hits_bm25, clear=self._clear_hits,
                                            run_again=lambda: self.search())
        self.metrics_origin = ResultOriginLine(self.metrics, clear=self._clear_evaluation,
                                               run_again=lambda: self.evaluate())

        row = FlowLayout()
        for widget in (labelled(QLabel("Corpus"), self.corpus_combo), labelled(QLabel("Pooling"), self.pooling_combo),
                       labelled(QLabel("k"), self.k_spin), self.index_button, self.cancel_button, self.progress):
            row.addWidget(widget)
        bm25_row = FlowLayout()
        for widget in (labelled(QLabel("BM25 (bm25s): k1"), self.k1_spin), labelled(QLabel("b"), self.b_spin),
                       labelled(QLabel("variant"), self.method_combo), self.evaluate_button):
            bm25_row.addWidget(widget)
        # the query box takes the width
        query_row = boxes.row(QLabel("Query"), (self.query_edit, 1), self.search_button)
        boxes.column(self, row, bm25_row, query_row, self.summary, self.hits_origin, self.metrics_origin, (body, 1),
                     margins=None, spacing=None)

        self.corpus_combo.activated.connect(self._corpus_activated)
        self.pooling_combo.currentTextChanged.connect(self._pooling_changed)
        self.k_spin.valueChanged.connect(self._k_changed)
        for spin in (self.k1_spin, self.b_spin):
            spin.valueChanged.connect(self._bm25_changed)
        self.method_combo.currentTextChanged.connect(self._bm25_changed)
        self.query_edit.textChanged.connect(lambda _text: self._check_origins())
        self.query_edit.returnPressed.connect(lambda: self.search())
        self.state.events.hits_changed.connect(self._show_hits)
        self.state.events.evaluation_changed.connect(self._show_evaluation)
        self.state.events.corpus_changed.connect(self._corpus_changed)
        self.ctx.model_changed.connect(self._model_changed)
        self.ctx.model_b_changed.connect(self._model_b_changed)
        self._update_titles()

    # -- model B -------------------------------------------------------------------------------------
    def model_b_split(self) -> QWidget:
        return self.ab

    def _model_b_changed(self, b: Any) -> None:
        self.state.set_index_b(None)
        self._update_titles()
        self._check_origins()
        if b is not None and self.state.query:
            self.search(self.state.query)

    def _model_changed(self, _loaded: Any) -> None:
        self._check_origins()  # another model: the old one's hits and metrics are cleared
        self._update_titles()
        if self.state.dense is not None:
            self.summary.setText("Another model is loaded: the next search indexes the corpus with it "
                                 "(from the cache when it was indexed before).")

    def _update_titles(self) -> None:
        a, b = self.ctx.loaded, self.ctx.model_b
        name_a = spec_label(a.info.spec) if a is not None else ""
        self.ab.set_models(name_a, spec_label(b.info.spec) if b is not None else None)
        self.hits_a.set_title("" if b is not None else f"Model: {name_a}" if name_a else "Model")  # B: the split's
        self.hits_a.title.setVisible(b is None)
        self.hits_b.title.hide()
        self.hits_bm25.set_title(f"BM25 ({self.state.bm25_params().label()})")

    # -- choices -------------------------------------------------------------------------------------
    def _corpus_activated(self, index: int) -> None:
        text = self.corpus_combo.itemText(index)
        if text == DEMO_ITEM:
            self.load_corpus("demo")
        elif text == CHOOSE_FILE:
            path, _ = QFileDialog.getOpenFileName(self, "Corpus of passages", str(Path.home()),
                                                  "Passages (*.txt *.csv *.tsv *.jsonl);;All files (*)")
            self.load_corpus(path) if path else self._sync_corpus_combo()
        elif text == CHOOSE_BEIR:
            path = QFileDialog.getExistingDirectory(self, "BEIR folder", str(Path.home()))
            self.load_corpus(path) if path else self._sync_corpus_combo()

    def _sync_corpus_combo(self) -> None:
        source = self.state.corpus_source
        if source == "demo":
            self.corpus_combo.setCurrentIndex(0)
            return
        index = self.corpus_combo.findData(source)
        if index < 0:
            self.corpus_combo.insertItem(1, Path(source).name or source, source)
            index = 1
        self.corpus_combo.setCurrentIndex(index)

    def _pooling_changed(self, pooling: str) -> None:
        self.state.pooling = pooling
        self._check_origins()

    def _k_changed(self, k: int) -> None:
        self.state.k = k
        self._check_origins()

    def _bm25_changed(self, *_args: Any) -> None:
        self.state.set_bm25_params(round(self.k1_spin.value(), 3), round(self.b_spin.value(), 3),
                                   self.method_combo.currentText())
        self._update_titles()
        self._check_origins()

    # -- jobs ----------------------------------------------------------------------------------------
    def _busy(self, label: str) -> None:
        self.index_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.summary.setText(label)

    def _idle(self, text: str | None = None, *, done: bool = False) -> None:
        self.index_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setFormat("%p%")
        if done:  # a finished job's bar stands full, not at 0 % (issue 49, cosmetic)
            self.progress.setValue(self.progress.maximum())
        if text is not None:
            self.summary.setText(text)

    def _progress(self, report: Progress) -> None:
        self.progress.setRange(0, max(1, report.total))
        self.progress.setValue(min(report.done, max(1, report.total)))
        if report.message:
            self.progress.setFormat(report.message)

    def _failed(self, exc: BaseException, tb: str) -> None:
        self._then = None
        self._idle("Stopped: " + (str(exc) if isinstance(exc, WorkbenchError) else "an unexpected error"))
        if isinstance(exc, WorkbenchError):
            self.ctx.show_message(str(exc), "warning")
        else:
            self.ctx.show_error(exc, tb)

    def _cancelled(self) -> None:
        self._then = None
        self._idle("Cancelled. The passages encoded so far are cached: Index resumes from there.")

    def _run(self, fn: Callable, on_done: Callable[[Any], None], label: str) -> None:
        self._busy(label)
        self.ctx.jobs.run(fn, on_done, step="retrieval", label=label, on_progress=self._progress,
                          on_error=self._failed, on_cancelled=self._cancelled)

    def cancel(self) -> None:
        self._then = None
        self.ctx.jobs.cancel()

    def load_corpus(self, source: str, then: Callable[[], None] | None = None) -> None:
        """Read a corpus file, a BEIR folder or "demo" (a job), then ``then``."""
        def done(result: Any) -> None:
            corpus, beir = result
            self.ctx.clear_message()  # an earlier refusal's line does not stand over a good corpus
            self.state.set_corpus(source, corpus, beir)
            self._idle(f"{len(corpus):,} passages from {Path(corpus.source).name}"
                       + (f", {len(beir.query_ids):,} judged queries" if beir is not None else "")
                       + (f"; {corpus.report.summary()}" if corpus.report.rows_skipped or corpus.report.notes
                          or corpus.report.quoting else "")
                       + ("; " + "; ".join(beir.notes) if beir is not None and beir.notes else "")
                       + ". Press Index.")
            if then is not None:
                then()

        def refused(exc: BaseException, tb: str) -> None:
            # the refused corpus is the tab's corpus now (the combo names it): the previous one's index is
            # dropped, so Search never answers from passages the combo does not show
            self.state.set_corpus(source, None, None)
            self._failed(exc, tb)

        self._busy("Reading the corpus…")
        self.ctx.jobs.run(lambda cancel: view_tasks.read_corpus(source, cancel), done, step="retrieval",
                          label="Reading the corpus…", on_progress=self._progress, on_error=refused,
                          on_cancelled=self._cancelled)

    def _pooling_a(self) -> str:
        return effective_pooling(self.ctx.loaded, self.state.pooling)

    def index(self, then: Callable[[], None] | None = None) -> None:
        """Index the corpus with the loaded model (and BM25), then model B's when comparing, then ``then``."""
        loaded = self.ctx.loaded
        if loaded is None:
            self.ctx.show_message("Load a model first: the Retrieval tab encodes passages with the loaded model.", "info")
            return
        if self.state.corpus is None:
            self.load_corpus(self.state.corpus_source, lambda: self.index(then))
            return
        pooling, corpus, params = self._pooling_a(), self.state.corpus, self.state.bm25_params()

        def done(result: Any) -> None:
            dense, bm25 = result
            self.state.set_index(dense, bm25)
            notes = "; ".join(dense.notes)
            self._idle(f"Indexed {len(corpus):,} passages with {spec_label(dense.model)} ({dense.mode} pooling, "
                       f"window {dense.window} tokens) and BM25." + (f" {notes}." if notes else ""), done=True)
            self._index_b(then)

        self._run(lambda cancel: view_tasks.index_with_bm25(loaded, corpus, pooling, params, cancel), done,
                  "Indexing the corpus…")

    def _index_b(self, then: Callable[[], None] | None) -> None:
        b, corpus = self.ctx.model_b, self.state.corpus
        if b is None or self.state.index_for(b, effective_pooling(b, self.state.pooling), "b") is not None:
            if then is not None:
                then()
            return
        choice = self.state.pooling

        def done(dense_b: Any) -> None:
            self.state.set_index_b(dense_b)
            self._idle(done=True)
            if then is not None:
                then()

        self._run(lambda cancel: view_tasks.index_b(b, corpus, choice, cancel), done, "Indexing the corpus with model B…")

    def _indexed(self) -> bool:
        """Whether A's index (and B's, when comparing) and BM25's are the current model's and pooling's."""
        st, b = self.state, self.ctx.model_b
        if st.corpus is None or st.bm25 is None or st.index_for(self.ctx.loaded, self._pooling_a()) is None:
            return False
        return b is None or st.index_for(b, effective_pooling(b, st.pooling), "b") is not None

    def search_for(self, query: str) -> None:
        self.query_edit.setText(query)
        self.search(query)

    def search(self, query: str | None = None, then: Callable[[], None] | None = None) -> None:
        """The top k of A (and B) and BM25 for ``query`` (the query box's text); indexes first when needed."""
        query = self.query_edit.text() if query is None else query
        if not query.strip():
            self.ctx.show_message("Type a query first.", "info")
            return
        if self.ctx.loaded is None:
            self.ctx.show_message("Load a model first: the Retrieval tab encodes passages with the loaded model.", "info")
            return
        if not self._indexed():
            self.index(lambda: self.search(query, then))
            return
        st = self.state
        loaded, b, k = self.ctx.loaded, self.ctx.model_b, st.k
        dense, dense_b, bm25 = st.dense, st.dense_b if b is not None else None, st.bm25

        origin = ResultOrigin.of(loaded, self._hits_key(query), self._hits_summary(query))

        def done(hits: dict) -> None:
            self.state.set_hits(query, hits)
            self.hits_origin.set_origin(origin)
            self._idle(f"Top {k} of {len(dense.corpus):,} passages by cosine ({dense.mode} pooling), and BM25's.",
                       done=True)
            if then is not None:
                then()

        self._run(lambda cancel: view_tasks.search_all(loaded, dense, bm25, b, dense_b, query, k, cancel), done,
                  "Searching…")

    def evaluate(self, *_args: Any) -> None:
        """The metrics of A (and B) and BM25 on the corpus's judged queries."""
        st = self.state
        if st.corpus is not None and st.beir is None:
            self.ctx.show_message("This corpus has no relevance judgements: choose a BEIR folder (or the demo) to "
                                  "evaluate.", "info")
            return
        if not self._indexed():
            self.index(self.evaluate)
            return
        loaded, b = self.ctx.loaded, self.ctx.model_b
        data, params, store = st.beir, st.bm25_params(), self.ctx.run_services.path
        pooling, pooling_b = st.dense.pooling, st.dense_b.pooling if b is not None and st.dense_b else None

        origin_key, summary = self._metrics_key(), self._corpus_summary()

        cache_key = self._evaluation_key()

        def done(result: Any) -> None:
            (a_result, run_a), b_out = result
            self._evaluations[cache_key] = (a_result, run_a, b_out)
            self.state.set_evaluation(a_result, b_out[0] if b_out else None)
            self.metrics_origin.set_origin(ResultOrigin.of(loaded, origin_key, summary, run_a))
            runs = f"run {run_a}" + (f" and {b_out[1]}" if b_out else "")
            self._idle(f"Evaluated {a_result.queries:,} judged queries (recorded: {runs}, see the Runs tab).",
                       done=True)
            scroll_into_view(self.metrics)  # below the fold with F5: the tab scrolls to the metrics

        self._run(lambda cancel: view_tasks.evaluate(loaded, data, pooling, params, b, pooling_b, store, cancel),
                  done, "Evaluating…")

    def _evaluation_key(self) -> tuple:
        """The models' specs and the evaluation's inputs (the model objects may be loaded again between steps)."""
        a, b = self.ctx.loaded, self.ctx.model_b
        return ((str(a.info.spec) if a is not None else None, str(b.info.spec) if b is not None else None)
                + self._metrics_key()[:-1])

    def evaluate_or_reuse(self) -> None:
        """A lecture step's evaluation: the one this session recorded for the same models and inputs when there is
        one (no second run recorded for a step visited again), else ``evaluate``."""
        cached = self._evaluations.get(self._evaluation_key()) if self.state.corpus is not None else None
        if cached is None or not self._indexed():
            self.evaluate()
            return
        a_result, run_a, b_out = cached
        self.state.set_evaluation(a_result, b_out[0] if b_out else None)
        self.metrics_origin.set_origin(ResultOrigin.of(self.ctx.loaded, self._metrics_key(), self._corpus_summary(),
                                                       run_a))
        runs = f"run {run_a}" + (f" and {b_out[1]}" if b_out else "")
        self._idle(f"Evaluated {a_result.queries:,} judged queries (recorded before: {runs}; shown again, not "
                   f"recorded twice).", done=True)
        scroll_into_view(self.metrics)

    # -- whose results ------------------------------------------------------------------------------
    def _metrics_key(self) -> tuple:
        st = self.state
        return (st.corpus_source, st.corpus.digest if st.corpus is not None else None, st.pooling,
                (st.bm25_k1, st.bm25_b, st.bm25_method), model_identity(self.ctx.model_b))

    def _hits_key(self, query: str) -> tuple:
        return self._metrics_key() + (query, self.state.k)

    def _corpus_summary(self) -> str:
        source = self.state.corpus_source
        corpus = "the demo corpus" if source == "demo" else Path(source).name or source
        pooling = "the model's own pooling" if self.state.pooling == "model" else f"{self.state.pooling} pooling"
        return f"{corpus}, {pooling}"

    def _hits_summary(self, query: str) -> str:
        return f"query “{query}”, {self._corpus_summary()}, k {self.state.k}"

    def _check_origins(self) -> None:
        # grey the hits and metrics whose inputs changed; clear them when another model is loaded
        self.hits_origin.check(self.ctx.loaded, self._hits_key(self.query_edit.text()))
        self.metrics_origin.check(self.ctx.loaded, self._metrics_key())

    def _clear_hits(self) -> None:
        self.state.hits = {}
        for hits in (self.hits_a, self.hits_b, self.hits_bm25):
            hits.show_hits([], [])

    def _clear_evaluation(self) -> None:
        self.state.evaluation = self.state.evaluation_b = None
        self.metrics.hide()

    # -- showing -------------------------------------------------------------------------------------
    def _corpus_changed(self, _corpus: Any) -> None:
        self._sync_corpus_combo()
        self.hits_origin.set_origin(None)
        self.metrics_origin.set_origin(None)
        for hits in (self.hits_a, self.hits_b, self.hits_bm25):
            hits.show_hits([], [])
        self.metrics.hide()
        self.evaluate_button.setEnabled(self.state.beir is not None)

    def _show_hits(self) -> None:
        words = view_tasks.query_words(self.state.query)
        self.hits_a.show_hits(self.state.hits.get("a", []), words)
        self.hits_bm25.show_hits(self.state.hits.get("bm25", []), words)
        if self.state.query and not self.state.hits.get("bm25"):
            self.hits_bm25.show_text("No passage holds a word of the query as BM25 reads it ("
                                     + (", ".join(words) or "only stop words") + "), so BM25 returns nothing.")
        if "b" in self.state.hits:
            self.hits_b.show_hits(self.state.hits["b"], words)
            self.ab.show_b_reason("")
        self._update_titles()

    def _show_evaluation(self) -> None:
        self.metrics.show_evaluation(self.state)
        self.metrics.setVisible(self.state.evaluation is not None)

    # -- presets and workspaces ----------------------------------------------------------------------
    # what a lecture step or a workspace may set here (apply_preset_step takes them, preset_state reports them)
    preset_settings = frozenset({"corpus", "pooling", "k", "bm25", "query", "evaluate"})

    def apply_preset_step(self, settings: dict[str, Any], inputs: dict[str, Any]) -> None:
        """``corpus`` ("demo", a file or a BEIR folder), ``pooling``, ``k``, ``bm25`` ({k1, b, method}), then
        ``query`` (searched at once with the loaded model) and ``evaluate`` (the metrics table, when the corpus has
        judgements)."""
        if "pooling" in settings:
            pooling = str(settings["pooling"])
            if pooling not in POOLINGS:
                raise ValueError(f"pooling must be one of {', '.join(POOLINGS)}, not {pooling!r}")
            self.pooling_combo.setCurrentText(pooling)
        if "k" in settings:
            self.k_spin.setValue(int(settings["k"]))
        if "bm25" in settings:
            bm25 = dict(settings["bm25"])
            self.k1_spin.setValue(float(bm25.get("k1", self.state.bm25_k1)))
            self.b_spin.setValue(float(bm25.get("b", self.state.bm25_b)))
            self.method_combo.setCurrentText(str(bm25.get("method", self.state.bm25_method)))
        query = str(settings.get("query") or "")
        evaluate = bool(settings.get("evaluate"))
        if query:
            self.query_edit.setText(query)

        def go() -> None:
            if self.ctx.loaded is None:
                return
            if query:
                self.search(query, self.evaluate_or_reuse if evaluate else None)
            elif evaluate:
                self.evaluate_or_reuse()

        corpus = settings.get("corpus", inputs.get("corpus") if isinstance(inputs.get("corpus"), str) else None)
        if corpus is not None and (str(corpus) != self.state.corpus_source or self.state.corpus is None):
            self.load_corpus(str(corpus), go)
        else:
            go()

    def preset_state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        st = self.state
        return {"corpus": st.corpus_source, "pooling": st.pooling, "k": st.k,
                "bm25": {"k1": st.bm25_k1, "b": st.bm25_b, "method": st.bm25_method},
                "query": st.query, "evaluate": st.evaluation is not None}, {}

    # -- export --------------------------------------------------------------------------------------
    def export_widget(self) -> QWidget:
        return self
