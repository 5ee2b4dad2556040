"""A BEIR folder evaluated: the model's exact search (and BM25's, when asked) ranks every judged query at
least ``EVAL_DEPTH`` (100) deep, and the rankings are scored with the fixed metrics; per query, whether the
model beat BM25 on nDCG@10.

As BEIR's own evaluation does by default (``ignore_identical_ids=True``), a passage whose id is the query's id is
left out of that query's ranking (ArguAna and Quora put every query in the corpus too: it would find itself
first); the result's notes say how many were left out, and ``ignore_identical_ids=False`` keeps them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generator



from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, relay
from lm_workbench.engine.retrieval.beir import BeirData
from lm_workbench.engine.retrieval.bm25 import Bm25Index, Bm25Params
from lm_workbench.engine.retrieval.encode import PassageEncoder
from lm_workbench.engine.retrieval.index import DenseIndex, index_corpus_job
from lm_workbench.engine.retrieval.metrics import Comparison, MetricTable, evaluate_rankings, wins_losses
from lm_workbench.engine.retrieval.names import EVAL_DEPTH
from lm_workbench.engine.retrieval.search import top_k

QUERY_BLOCK = 256  # queries scored against the whole index at once


@dataclass
class EvalResult:
    queries: int
    documents: int
    pooling: str
    split: str
    model: MetricTable
    bm25: MetricTable | None = None
    bm25_params: Bm25Params | None = None
    comparisons: list[Comparison] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rankings: dict[str, list[str]] = field(default_factory=dict)  # the model's, query id -> passage ids

    def counts(self) -> dict[str, int]:
        outcomes = [c.outcome for c in self.comparisons]
        return {"wins": outcomes.count("win"), "losses": outcomes.count("loss"), "ties": outcomes.count("tie")}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"queries": self.queries, "documents": self.documents,
                               "model": dict(self.model.mean), "bm25": dict(self.bm25.mean) if self.bm25 else None,
                               "pooling": self.pooling, "split": self.split, "notes": list(self.notes)}
        if self.bm25 is not None:
            out["bm25_params"] = self.bm25_params.to_json() if self.bm25_params else None
            out["per_query"] = self.counts()
        return out


def dense_rankings(index: DenseIndex, encoder: PassageEncoder, query_ids: list[str], query_texts: list[str],
                   depth: int, cancel: CancelToken) -> Generator[Progress, None, dict[str, list[str]]]:
    rankings: dict[str, list[str]] = {}
    ids = index.corpus.ids
    for lo in range(0, len(query_texts), QUERY_BLOCK):
        cancel.check()
        block = query_texts[lo:lo + QUERY_BLOCK]
        vectors, _ = encoder.encode(block, cancel)
        scores = index.vectors @ vectors.T  # [n, block]
        for j in range(len(block)):
            rankings[query_ids[lo + j]] = [ids[i] for i in top_k(scores[:, j], depth)]
        yield Progress(lo + len(block), len(query_texts), f"searched {lo + len(block):,} of {len(query_texts):,} queries")
    return rankings


def without_identical_ids(rankings: dict[str, list[str]], depth: int) -> tuple[dict[str, list[str]], int]:
    """(each query's ranking without the passage whose id is the query's, cut to ``depth``; how many left out)."""
    kept = {qid: [pid for pid in ranked if pid != qid][:depth] for qid, ranked in rankings.items()}
    dropped = sum(1 for qid, ranked in rankings.items() if qid in ranked[:depth + 1])
    return kept, dropped


IDENTICAL_NOTE = ("{n} result(s) whose passage id is the query's own id were left out of the rankings, as BEIR "
                  "does by default (ignore_identical_ids; ArguAna and Quora put each query in the corpus): "
                  "--keep-identical-ids scores them")


def retrieval_eval_job(loaded: Any, data: BeirData, pooling: str = "mean", *, k: int = 10, bm25: bool = False,
                       bm25_params: Bm25Params = Bm25Params(), cache_root: str | Path | None = None,
                       index: DenseIndex | None = None, ignore_identical_ids: bool = True,
                       cancel: CancelToken = NEVER_CANCELLED) -> Generator[Progress, None, EvalResult]:
    """Index the corpus (or reuse ``index`` when it is this model's), rank every query, score (a job);
    ``ignore_identical_ids``: BEIR's default, see the module's docstring."""
    depth = max(int(k), EVAL_DEPTH)
    searched = depth + 1 if ignore_identical_ids else depth  # one more: the query's own passage may be left out
    encoder = PassageEncoder(loaded, pooling)
    if index is None or not index.belongs_to(loaded, pooling) or index.corpus.digest != data.corpus.digest:
        index = yield from index_corpus_job(loaded, data.corpus, pooling, cache_root, encoder=encoder, cancel=cancel)
    rankings = yield from relay(dense_rankings(index, encoder, data.query_ids, data.query_texts, searched, cancel),
                                lambda p: p)
    notes = list(data.notes) + list(index.notes)
    if ignore_identical_ids:
        rankings, dropped = without_identical_ids(rankings, depth)
        if dropped:
            notes.append(IDENTICAL_NOTE.format(n=dropped))
    model = evaluate_rankings(rankings, data.qrels)
    result = EvalResult(len(data.query_ids), len(data.corpus), pooling, data.split, model,
                        notes=notes, rankings=rankings)
    if bm25:
        yield Progress(0, len(data.query_ids), "indexing the corpus for BM25")
        engine_bm25 = Bm25Index(data.corpus.texts, bm25_params)
        bm25_rankings: dict[str, list[str]] = {}
        for j, (qid, text) in enumerate(zip(data.query_ids, data.query_texts)):
            if j % 64 == 0:
                cancel.check()
                yield Progress(j, len(data.query_ids), f"BM25: {j:,} of {len(data.query_ids):,} queries")
            idx, _ = engine_bm25.search(text, searched)
            bm25_rankings[qid] = [data.corpus.ids[i] for i in idx]
        if ignore_identical_ids:
            bm25_rankings, _ = without_identical_ids(bm25_rankings, depth)
        result.bm25 = evaluate_rankings(bm25_rankings, data.qrels)
        result.bm25_params = engine_bm25.params
        texts = dict(zip(data.query_ids, data.query_texts))
        result.comparisons = wins_losses(model, result.bm25, texts)
    return result


