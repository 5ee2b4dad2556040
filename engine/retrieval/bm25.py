"""BM25 through the maintained ``bm25s`` library (Lù 2024): its tokenizer (lower case, words of two or more
letters, English stop words removed), its index and scores, with its parameters shown (k1, b, method:
``lucene`` is Lucene's BM25, the default). The top k use the same order as the dense search: score down,
then corpus order; a passage with none of the query's words is not returned."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.retrieval.names import BM25_B, BM25_K1, BM25_METHODS
from lm_workbench.engine.retrieval.search import top_k


@dataclass(frozen=True)
class Bm25Params:
    k1: float = BM25_K1
    b: float = BM25_B
    method: str = "lucene"

    def checked(self) -> "Bm25Params":
        if self.method not in BM25_METHODS:
            raise WorkbenchError(f"unknown BM25 method {self.method!r}; choose one of {', '.join(BM25_METHODS)}")
        if self.k1 < 0 or not 0 <= self.b <= 1:
            raise WorkbenchError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, not k1={self.k1}, b={self.b}")
        return self

    def label(self) -> str:
        return f"bm25s {self.method}, k1={self.k1:g}, b={self.b:g}"

    def to_json(self) -> dict:
        return {"k1": self.k1, "b": self.b, "method": self.method}


def bm25_tokens(texts: Sequence[str]) -> list[list[str]]:
    import bm25s

    return bm25s.tokenize(list(texts), return_ids=False, show_progress=False)


class Bm25Index:
    def __init__(self, texts: Sequence[str], params: Bm25Params = Bm25Params()):
        import bm25s

        self.params = params.checked()
        self.size = len(texts)
        self._bm25 = bm25s.BM25(k1=self.params.k1, b=self.params.b, method=self.params.method)
        self._bm25.index(bm25_tokens(texts), show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        """[n] BM25 score of every passage for ``query`` (all 0 when none of its words is indexed)."""
        tokens = bm25_tokens([query])[0]
        if not tokens:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._bm25.get_scores(tokens), dtype=np.float32)

    def search(self, query: str, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(indices, scores) of the k best passages that hold a word of the query (a BM25 engine returns no
        passage that matches nothing, so fewer than k when fewer match)."""
        scores = self.scores(query)
        idx = top_k(scores, k)
        idx = idx[scores[idx] > 0]
        return idx, scores[idx]


def query_words(query: str) -> list[str]:
    """The query's words as BM25 reads them (what the result lists highlight)."""
    return bm25_tokens([query])[0] if query.strip() else []


def describe(index: Any) -> str:
    return index.params.label()
