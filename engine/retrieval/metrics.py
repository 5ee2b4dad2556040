"""Ranking metrics by their standard definitions, from binary or graded relevance (a qrels grade > 0 is
relevant; the grade is the gain):

- nDCG@k with linear gain, as trec_eval's ``ndcg_cut`` (and so BEIR) computes it: DCG = sum over the top k of
  grade / log2(rank + 1); the ideal DCG sorts every judged grade of the query, cut at k;
- MRR@k: 1 / the rank of the first relevant passage in the top k (0 when none);
- Recall@k: relevant passages in the top k / relevant passages judged.

Each is averaged over the queries. Rankings are lists of passage ids, best first (ties already broken by
corpus order by the searches).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from lm_workbench.engine.retrieval.names import METRIC_KEYS


def dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, start=1))


def ndcg_at(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    ideal = dcg(sorted((max(g, 0) for g in relevance.values()), reverse=True)[:k])
    if ideal <= 0:
        return 0.0
    return dcg([max(relevance.get(d, 0), 0) for d in ranked[:k]]) / ideal


def mrr_at(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    for rank, d in enumerate(ranked[:k], start=1):
        if relevance.get(d, 0) > 0:
            return 1.0 / rank
    return 0.0


def recall_at(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    relevant = {d for d, g in relevance.items() if g > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def query_metrics(ranked: Sequence[str], relevance: Mapping[str, int]) -> dict[str, float]:
    """The fixed keys (``names.METRIC_KEYS``) for one query."""
    return {"ndcg@10": ndcg_at(ranked, relevance, 10), "mrr@10": mrr_at(ranked, relevance, 10),
            "recall@1": recall_at(ranked, relevance, 1), "recall@10": recall_at(ranked, relevance, 10),
            "recall@100": recall_at(ranked, relevance, 100)}


@dataclass
class MetricTable:
    mean: dict[str, float]
    per_query: dict[str, dict[str, float]]


def evaluate_rankings(rankings: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]]) -> MetricTable:
    """Every query of ``qrels`` scored on its ranking (a query with no ranking scores 0) and the means."""
    per_query = {q: query_metrics(rankings.get(q, []), rel) for q, rel in qrels.items()}
    n = max(len(per_query), 1)
    mean = {key: sum(m[key] for m in per_query.values()) / n for key in METRIC_KEYS}
    return MetricTable(mean, per_query)


@dataclass(frozen=True)
class Comparison:
    query_id: str
    query: str
    model: float  # the model's nDCG@10 on this query
    bm25: float

    @property
    def outcome(self) -> str:
        return "win" if self.model > self.bm25 else "loss" if self.model < self.bm25 else "tie"


def wins_losses(model: MetricTable, bm25: MetricTable, texts: Mapping[str, str], key: str = "ndcg@10"
                ) -> list[Comparison]:
    """Per query, the model's and BM25's ``key``; biggest differences first (wins, then losses), then ties."""
    rows = [Comparison(q, texts.get(q, ""), model.per_query[q][key], bm25.per_query[q][key]) for q in model.per_query]
    return sorted(rows, key=lambda c: (c.outcome == "tie", -abs(c.model - c.bm25), c.query_id))
