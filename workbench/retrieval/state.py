"""What the Retrieval tab shows, as a plain object: the corpus (and a BEIR folder's queries and judgements),
the indexes of model A, model B and BM25, the last query's hits, and the evaluation.

The tab's widgets observe a ``RetrievalState`` (``state.events.<name>``) and change it only through its
methods; jobs run elsewhere and hand their results to ``set_index`` / ``set_hits`` / ``set_evaluation``.
An index belongs to a model, a pooling and a corpus: ``index_for`` returns it only while all three still
match, so a query is never answered from another model's vectors (the tab indexes again instead).

Events (arguments in brackets):
- ``corpus_changed`` [corpus]: a new corpus; indexes, hits and the evaluation are gone.
- ``index_changed`` []: A's, B's or BM25's index was set or dropped.
- ``hits_changed`` []: the hits of the last query (A, BM25, B).
- ``evaluation_changed`` []: the metrics of A, BM25 and B, and the per-query wins and losses.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.retrieval.names import BM25_B, BM25_K1, DEFAULT_K
from lm_workbench.observable import EventGroup


class RetrievalState:
    def __init__(self) -> None:
        self.events = EventGroup("corpus_changed", "index_changed", "hits_changed", "evaluation_changed")
        self.corpus_source = "demo"  # "demo", a file or a BEIR folder
        self.corpus: Any = None  # lm_workbench.engine.retrieval.corpus.Corpus
        self.beir: Any = None  # lm_workbench.engine.retrieval.beir.BeirData when the corpus came with qrels
        self.pooling = "model"  # as chosen; "model" falls back to mean for a model that declares none
        self.k = DEFAULT_K
        self.bm25_k1, self.bm25_b, self.bm25_method = BM25_K1, BM25_B, "lucene"
        self.dense: Any = None  # A's DenseIndex
        self.dense_b: Any = None  # B's DenseIndex
        self.bm25: Any = None  # Bm25Index
        self.query = ""
        self.hits: dict[str, list] = {}  # "a" / "bm25" / "b" -> list of lm_workbench.retrieval.view_tasks.Hit
        self.evaluation: Any = None  # A's EvalResult (with BM25's)
        self.evaluation_b: Any = None  # B's EvalResult, or None

    # -------------------------------------------------------------- corpus
    def set_corpus(self, source: str, corpus: Any, beir: Any = None) -> None:
        self.corpus_source, self.corpus, self.beir = source, corpus, beir
        self.dense = self.dense_b = self.bm25 = None
        self.hits, self.evaluation, self.evaluation_b = {}, None, None
        self.events.corpus_changed.emit(corpus)

    def bm25_params(self) -> Any:
        from lm_workbench.engine.retrieval.bm25 import Bm25Params

        return Bm25Params(float(self.bm25_k1), float(self.bm25_b), self.bm25_method).checked()

    def set_bm25_params(self, k1: float, b: float, method: str) -> None:
        if (k1, b, method) != (self.bm25_k1, self.bm25_b, self.bm25_method):
            self.bm25_k1, self.bm25_b, self.bm25_method = k1, b, method
            self.bm25 = None  # built again with the new parameters at the next Index
            self.evaluation = self.evaluation_b = None
            self.events.index_changed.emit()
            self.events.evaluation_changed.emit()

    # -------------------------------------------------------------- indexes
    def index_for(self, loaded: Any, pooling: str, which: str = "a") -> Any:
        """A's (or B's) index when it is ``loaded``'s with ``pooling`` of this corpus, else None."""
        dense = self.dense if which == "a" else self.dense_b
        if dense is None or loaded is None or self.corpus is None:
            return None
        if dense.corpus.digest != self.corpus.digest or not dense.belongs_to(loaded, pooling):
            return None
        return dense

    def set_index(self, dense: Any, bm25: Any = None) -> None:
        self.dense = dense
        if bm25 is not None:
            self.bm25 = bm25
        self.events.index_changed.emit()

    def set_index_b(self, dense_b: Any) -> None:
        self.dense_b = dense_b
        self.events.index_changed.emit()

    def ready(self) -> bool:
        return self.dense is not None and self.bm25 is not None

    # -------------------------------------------------------------- results
    def set_hits(self, query: str, hits: dict[str, list]) -> None:
        self.query, self.hits = query, hits
        self.events.hits_changed.emit()

    def set_evaluation(self, a: Any, b: Any = None) -> None:
        self.evaluation, self.evaluation_b = a, b
        self.events.evaluation_changed.emit()

    def metrics_table(self) -> tuple[list[str], list[list[Any]]]:
        """(header, rows): a metric per row, A, BM25 (and B) per column; for the table and CSV export."""
        from lm_workbench.engine.retrieval.names import METRIC_KEYS

        ev = self.evaluation
        if ev is None:
            return [], []
        header = ["metric", "model A"] + (["model B"] if self.evaluation_b else []) + ["BM25"]
        rows = []
        for key in METRIC_KEYS:
            row: list[Any] = [key, ev.model.mean[key]]
            if self.evaluation_b:
                row.append(self.evaluation_b.model.mean[key])
            row.append(ev.bm25.mean[key] if ev.bm25 else None)
            rows.append(row)
        return header, rows
