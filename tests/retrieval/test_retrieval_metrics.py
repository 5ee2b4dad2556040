"""The ranking metrics against a ranking worked by hand, and the exact top k's tie order."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lm_workbench.engine.retrieval.metrics import evaluate_rankings, mrr_at, ndcg_at, recall_at
from lm_workbench.engine.retrieval.search import top_k

# One query, graded judgements: a = 3, b = 1, c = 0 (judged not relevant), e = 2; d and f unjudged.
QRELS = {"q": {"a": 3, "b": 1, "c": 0, "e": 2}}
RANKING = ["d", "b", "c", "a", "f"]  # e never retrieved


def test_ndcg_mrr_recall_by_hand():
    # DCG@10 = 0/log2(2) + 1/log2(3) + 0/log2(4) + 3/log2(5) + 0; ideal = 3/1 + 2/log2(3) + 1/log2(4)
    dcg = 1 / math.log2(3) + 3 / math.log2(5)
    ideal = 3 + 2 / math.log2(3) + 1 / 2
    assert ndcg_at(RANKING, QRELS["q"], 10) == pytest.approx(dcg / ideal, abs=1e-12)
    # @2: DCG = 1/log2(3); ideal cut at 2 = 3 + 2/log2(3)
    assert ndcg_at(RANKING, QRELS["q"], 2) == pytest.approx((1 / math.log2(3)) / (3 + 2 / math.log2(3)), abs=1e-12)
    assert mrr_at(RANKING, QRELS["q"], 10) == pytest.approx(1 / 2)  # b at rank 2 is the first relevant
    assert mrr_at(RANKING, QRELS["q"], 1) == 0.0
    assert recall_at(RANKING, QRELS["q"], 1) == 0.0
    assert recall_at(RANKING, QRELS["q"], 10) == pytest.approx(2 / 3)  # a, b of {a, b, e}; c (grade 0) not relevant
    table = evaluate_rankings({"q": RANKING, "p": ["x", "y"]}, {**QRELS, "p": {"y": 1}})
    assert table.per_query["p"] == {"ndcg@10": pytest.approx(1 / math.log2(3)), "mrr@10": 0.5, "recall@1": 0.0,
                                    "recall@10": 1.0, "recall@100": 1.0}
    assert table.mean["mrr@10"] == pytest.approx((0.5 + 0.5) / 2)
    assert table.mean["recall@10"] == pytest.approx((2 / 3 + 1) / 2)


def test_binary_relevance_and_unranked_query():
    table = evaluate_rankings({"q": ["r", "s"]}, {"q": {"s": 1}, "gone": {"t": 1}})
    assert table.per_query["q"]["ndcg@10"] == pytest.approx(1 / math.log2(3))
    assert table.per_query["gone"] == {"ndcg@10": 0.0, "mrr@10": 0.0, "recall@1": 0.0, "recall@10": 0.0,
                                       "recall@100": 0.0}


def test_top_k_breaks_ties_by_corpus_order():
    scores = np.array([0.5, 0.9, 0.5, 0.1, 0.9, 0.5], dtype=np.float32)
    assert top_k(scores, 3).tolist() == [1, 4, 0]
    assert top_k(scores, 4).tolist() == [1, 4, 0, 2]
    assert top_k(scores, 10).tolist() == [1, 4, 0, 2, 5, 3]
    rng = np.random.default_rng(0)
    many = rng.integers(0, 5, size=500).astype(np.float32)  # heavy ties
    expected = sorted(range(500), key=lambda i: (-many[i], i))[:37]
    assert top_k(many, 37).tolist() == expected


def test_eval_json_keys_without_bm25():
    from lm_workbench.engine.retrieval.evaluate import EvalResult
    from lm_workbench.engine.retrieval.metrics import MetricTable

    table = evaluate_rankings({"q": RANKING}, QRELS)
    data = EvalResult(1, 6, "mean", "test", MetricTable(table.mean, table.per_query)).to_json()
    assert {"queries", "documents", "model", "bm25"} <= set(data) and data["bm25"] is None
    assert list(data["model"]) == ["ndcg@10", "mrr@10", "recall@1", "recall@10", "recall@100"]
