"""The Retrieval view's metrics: its evaluation table (the model against BM25 on the corpus's judged queries).

The evaluation is the view's (``RetrievalEvalRun`` of ``lm_workbench.retrieval.runs``: read the BEIR folder,
rank with the model's index and with BM25, score), with the step's ``corpus`` (``"demo"``: the shipped 32
passages and 12 queries), ``pooling`` (``model``: the model's own, mean for one that declares none) and ``bm25``
parameters, computed without being recorded in the run store. Values are the mean over the judged queries.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.metrics.base import Metric, StepRun, finite, metrics_of


def _evaluation(run: StepRun) -> Any:
    def build() -> Any:
        from lm_workbench.engine.progress import run_to_completion
        from lm_workbench.engine.retrieval.demo import DEMO, demo_folder
        from lm_workbench.engine.retrieval.names import BM25_B, BM25_K1
        from lm_workbench.retrieval.defaults import effective_pooling
        from lm_workbench.retrieval.runs import RetrievalEvalRun
        from lm_workbench.retrieval.spec import RetrievalEvalSpec

        s, loaded = run.settings, run.loaded
        corpus = str(s.get("corpus", DEMO))
        folder = demo_folder() if corpus == DEMO and not Path(corpus).exists() else Path(corpus)
        if not (folder / "queries.jsonl").is_file():
            raise WorkbenchError(f"{corpus} has no judged queries to evaluate (a BEIR folder or the demo has)")
        bm25 = dict(s.get("bm25") or {})
        spec = RetrievalEvalSpec(str(loaded.info.spec), str(folder), pooling=effective_pooling(
            loaded, str(s.get("pooling", "model"))), bm25=True, bm25_k1=float(bm25.get("k1", BM25_K1)),
            bm25_b=float(bm25.get("b", BM25_B)), bm25_method=str(bm25.get("method", "lucene"))).checked()
        computed = RetrievalEvalRun(spec)
        return run_to_completion(computed.compute(loaded, computed.read()))

    return run.once("evaluation", build)


def _mean(side: str, key: str) -> Any:
    def value(run: StepRun, args: dict[str, Any]) -> float | None:
        result = _evaluation(run)
        return finite((result.model if side == "model" else result.bm25).mean[key])

    return value


METRICS = metrics_of(
    "retrieval",
    *(Metric(name, _mean(side, key), f"{'BM25' if side == 'bm25' else 'the model'}: mean {key} over the judged "
             "queries") for name, side, key in (
        ("ndcg", "model", "ndcg@10"), ("mrr", "model", "mrr@10"), ("recall_at_10", "model", "recall@10"),
        ("bm25_ndcg", "bm25", "ndcg@10"), ("bm25_mrr", "bm25", "mrr@10"), ("bm25_recall_at_10", "bm25", "recall@10"))),
)
