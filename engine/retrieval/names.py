"""Retrieval's names that the window and the CLI read without importing numpy or torch."""

from __future__ import annotations

from lm_workbench.engine.sentence.names import RETRIEVAL_POOLINGS

# How a passage's token vectors become one vector (the one vocabulary, lm_workbench.engine.sentence.names): three
# poolings, or the model's own declared pooling (a sentence-transformers folder's Pooling module; MiniLM: mean).
POOLINGS = RETRIEVAL_POOLINGS
# The fixed metric keys of ``retrieval-eval`` and the metrics table, in order.
METRIC_KEYS = ("ndcg@10", "mrr@10", "recall@1", "recall@10", "recall@100")
EVAL_DEPTH = 100  # retrieval-eval ranks at least this deep (Recall@100)
# bm25s's defaults, shown beside its results.
BM25_METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
BM25_K1 = 1.5
BM25_B = 0.75
DEFAULT_K = 10
