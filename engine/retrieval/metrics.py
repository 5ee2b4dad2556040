"""Ranking metrics by their standard definitions, from binary or graded relevance (a qrels grade > 0 is
relevant; the grade is the gain):

- nDCG@k with linear gain, as trec_eval's ``ndcg_cut`` (and so BEIR) computes it: DCG = sum over the top k of
  grade / log2(rank + 1); the ideal DCG sorts every judged grade of the query, cut at k;
- MRR@k: 1 / the rank of the first relevant passage in the top k (0 when none);
- Recall@k: relevant passages in the top k / relevant passages judged.

Each is averaged over the queries. Rankings are lists of passage ids, best first (ties already broken by
corpus order by the searches). A query with no relevant passage judged has no nDCG or recall (nothing to divide
by: None, never 0 or 1) and is left out of the means, counted in ``MetricTable.notes`` (BEIR's reader already
leaves such queries out); with no query left every mean is None (``lm_workbench.engine.maths.undefined``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from lm_workbench.engine.retrieval.names import METRIC_KEYS


def dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, start=1))


def ndcg_at(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float | None:
    """nDCG@k; None when no passage is judged relevant (the ideal DCG is 0)."""
    ideal = dcg(sorted((max(g, 0) for g in relevance.values()), reverse=True)[:k])
    if ideal <= 0:
        return None
    return dcg([max(relevance.get(d, 0), 0) for d in ranked[:k]]) / ideal


def mrr_at(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    for rank, d in enumerate(ranked[:k], start=1):
        if relevance.get(d, 0) > 0:
            return 1.0 / rank
    return 0.0


def recall_at(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float | None:
    """Relevant passages in the top k / relevant passages judged; None when none is judged relevant."""
    relevant = {d for d, g in relevance.items() if g > 0}
    if not relevant:
        return None
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def query_metrics(ranked: Sequence[str], relevance: Mapping[str, int]) -> dict[str, float | None]:
    """The fixed keys (``names.METRIC_KEYS``) for one query (nDCG and recall None without a relevant passage)."""
    return {"ndcg@10": ndcg_at(ranked, relevance, 10), "mrr@10": mrr_at(ranked, relevance, 10),
            "recall@1": recall_at(ranked, relevance, 1), "recall@10": recall_at(ranked, relevance, 10),
            "recall@100": recall_at(ranked, relevance, 100)}


@dataclass
class MetricTable:
    mean: dict[str, float | None]  # None: no query could be scored (``notes``)
    per_query: dict[str, dict[str, float]]
    notes: list[str] = field(default_factory=list)


def evaluate_rankings(rankings: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]]) -> MetricTable:
    """Every query of ``qrels`` with a relevant passage scored on its ranking (a query with no ranking scores 0)
    and the means; queries without a relevant passage are left out and counted."""
    from lm_workbench.engine.maths.undefined import note

    scored = {q: rel for q, rel in qrels.items() if any(g > 0 for g in rel.values())}
    per_query = {q: query_metrics(rankings.get(q, []), rel) for q, rel in scored.items()}
    notes = []
    if len(scored) < len(qrels):
        notes.append(f"{len(qrels) - len(scored)} query(ies) with no relevant passage judged, left out (their nDCG "
                     "and recall are not defined)")
    if not per_query:
        notes += [note(key, "no query has a relevant passage judged") for key in METRIC_KEYS]
        return MetricTable({key: None for key in METRIC_KEYS}, {}, notes)
    n = len(per_query)
    mean = {key: sum(m[key] for m in per_query.values()) / n for key in METRIC_KEYS}
    return MetricTable(mean, per_query, notes)


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
