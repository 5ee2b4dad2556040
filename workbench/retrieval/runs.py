"""Retrieval evaluations as runs (kind ``retrieval-eval``): the CLI records each through
``lm_workbench.runs.execute`` (read the BEIR folder -> rank and score -> record), and the runs browser can run one
again through the long-run lane (``retrieval_eval_lane_job``).

Recorded: one metrics row (step 0) with the model's ``ndcg@10``, ``mrr@10``, ``recall@1``, ``recall@10``,
``recall@100`` and, with BM25, the same keys prefixed ``bm25_``; the whole result as a JSON artifact.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Generator

from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken
from lm_workbench.retrieval.spec import RetrievalEvalSpec
from lm_workbench.runs.execute import ComputedRun, execute_in_lane
from lm_workbench.runs.kinds import RunKind, spec_command

RETRIEVAL_EVAL = RunKind(kind="retrieval-eval", target="lm_workbench.retrieval.runs:retrieval_eval_lane_job",
                         title="Retrieval evaluation", command=spec_command(RetrievalEvalSpec))


class RetrievalEvalRun(ComputedRun):
    kind = RETRIEVAL_EVAL.kind

    def read(self) -> Any:
        from lm_workbench.engine.retrieval.beir import read_beir

        return read_beir(self.spec.data, self.spec.split)

    def compute(self, loaded: Any, inputs: Any, cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, Any]:
        from lm_workbench.engine.retrieval.bm25 import Bm25Params
        from lm_workbench.engine.retrieval.evaluate import retrieval_eval_job
        from lm_workbench.retrieval.defaults import default_pooling, index_cache_root

        spec = self.spec
        pooling = spec.pooling or default_pooling(loaded)
        params = Bm25Params(spec.bm25_k1, spec.bm25_b, spec.bm25_method)
        return (yield from retrieval_eval_job(loaded, inputs, pooling, k=spec.k, bm25=spec.bm25, bm25_params=params,
                                              cache_root=index_cache_root(),
                                              ignore_identical_ids=not spec.keep_identical_ids, cancel=cancel))

    def metrics(self, result: Any) -> dict[int, dict[str, float]]:
        values = dict(result.model.mean)
        if result.bm25 is not None:
            values |= {f"bm25_{k}": v for k, v in result.bm25.mean.items()}
        return {0: values}

    def columns(self) -> dict[str, str]:
        spec = self.spec
        return {"name": f"retrieval on {Path(spec.data).name} ({spec.split})", "model": spec.model,
                "method": spec.pooling or "model's pooling"}

    def data_files(self) -> list[str]:
        folder = Path(self.spec.data)
        return [str(p) for p in (folder / "corpus.jsonl", folder / "queries.jsonl",
                                 folder / "qrels" / f"{self.spec.split}.tsv") if p.is_file()]

    def record_files(self, store: Any, run_id: int, result: Any) -> None:
        data = result.to_json()
        data["per_query_ndcg@10"] = [{"query_id": c.query_id, "query": c.query, "model": c.model, "bm25": c.bm25}
                                     for c in result.comparisons]
        self.record_json(store, run_id, "retrieval-evals", data)


def retrieval_eval_lane_job(ctx: Any, **params: Any) -> dict[str, Any]:
    """The long-run lane's target: the metrics of the model (and BM25) on the BEIR folder."""
    return execute_in_lane(ctx, RetrievalEvalRun(RetrievalEvalSpec.from_dict(params).checked())).to_json()
