"""The Retrieval tab's and the CLI's jobs: functions of a cancel token, run on the window's job lane (never the
Qt thread) or driven by the command line. Engine modules that import torch are imported inside them.

The index cache lives in the workbench's cache folder (``<cache>/retrieval``): indexing a corpus again with
the same model and pooling reads it back, and a cancelled indexing resumes where it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generator

from lm_workbench.engine.progress import CancelToken, Progress
from lm_workbench.retrieval.defaults import effective_pooling, index_cache_root


def read_corpus(path: str, cancel: CancelToken, tsv_quoting: str = "auto") -> Any:
    """A corpus file or a BEIR folder: (corpus, BeirData or None). A BEIR folder with qrels/test.tsv (or its
    only split) comes with its queries and judgements. ``tsv_quoting``: how a .tsv corpus's quotes are read
    (``lm_workbench.engine.data.tsv_quoting``; the window passes the default, auto)."""
    from lm_workbench.engine.retrieval.beir import read_beir, splits
    from lm_workbench.engine.retrieval.corpus import read_corpus as read

    from lm_workbench.engine.retrieval.demo import DEMO, demo_folder

    cancel.check()
    folder = demo_folder() if path == DEMO and not Path(path).exists() else Path(path)
    if folder.is_dir() and (folder / "queries.jsonl").is_file():
        found = splits(folder)
        split = "test" if "test" in found or not found else found[0]
        data = read_beir(folder, split)
        return data.corpus, data
    return read(path, tsv_quoting=tsv_quoting), None


def index(loaded: Any, corpus: Any, pooling: str, cancel: CancelToken, *, cache: bool = True) -> Generator:
    """The corpus's ``DenseIndex`` with ``loaded`` and ``pooling`` (cached; resumed after a cancel)."""
    from lm_workbench.engine.retrieval.index import index_corpus_job

    return (yield from index_corpus_job(loaded, corpus, pooling, index_cache_root() if cache else None, cancel=cancel))


def bm25_index(corpus: Any, params: Any, cancel: CancelToken) -> Any:
    from lm_workbench.engine.retrieval.bm25 import Bm25Index

    cancel.check()
    return Bm25Index(corpus.texts, params)


def index_with_bm25(loaded: Any, corpus: Any, pooling: str, params: Any, cancel: CancelToken) -> Generator:
    """(the model's DenseIndex, the BM25 index) of a corpus: what the tab's Index button runs."""
    dense = yield from index(loaded, corpus, pooling, cancel)
    yield Progress(len(corpus), len(corpus), "indexing for BM25")
    return dense, bm25_index(corpus, params, cancel)


def index_b(loaded_b: Any, corpus: Any, pooling: str, cancel: CancelToken) -> Generator:
    """Model B's index of the same corpus; B's own pooling when ``pooling`` is "model" and B declares none."""
    return (yield from index(loaded_b, corpus, effective_pooling(loaded_b, pooling), cancel))


def search_all(loaded: Any, dense: Any, bm25: Any, loaded_b: Any, dense_b: Any, query: str, k: int,
               cancel: CancelToken) -> dict:
    """A query against A's index, BM25 and (when there is one) B's: {"a": hits, "bm25": hits, "b": hits}."""
    out = {"a": search(loaded, dense, query, k, cancel), "bm25": bm25_search(bm25, dense.corpus, query, k)}
    if loaded_b is not None and dense_b is not None:
        out["b"] = search(loaded_b, dense_b, query, k, cancel)
    return out


@dataclass(frozen=True)
class Hit:
    rank: int  # 1-based
    index: int  # position in the corpus
    id: str
    score: float
    text: str
    title: str = ""  # the passage's title when the corpus has titles (``text`` then begins with it)

    def to_json(self) -> dict:
        return {"id": self.id, "score": self.score, "text": self.text}


def hits(corpus: Any, idx: Any, scores: Any) -> list[Hit]:
    titles = getattr(corpus, "titles", None) or []
    return [Hit(r, int(i), corpus.ids[int(i)], float(s), corpus.texts[int(i)],
                titles[int(i)] if int(i) < len(titles) else "")
            for r, (i, s) in enumerate(zip(idx, scores), start=1)]


def search(loaded: Any, dense: Any, query: str, k: int, cancel: CancelToken) -> list[Hit]:
    """The k passages of ``dense``'s corpus nearest to ``query`` with ``loaded`` (whose index it must be)."""
    from lm_workbench.engine.retrieval.encode import PassageEncoder

    cancel.check()
    idx, scores = dense.query(PassageEncoder(loaded, dense.pooling), query, k)
    return hits(dense.corpus, idx, scores)


def bm25_search(bm25: Any, corpus: Any, query: str, k: int) -> list[Hit]:
    idx, scores = bm25.search(query, k)
    return hits(corpus, idx, scores)


def evaluate(loaded: Any, data: Any, pooling: str, bm25_params: Any, loaded_b: Any, pooling_b: str | None,
             store_path: Any, cancel: CancelToken) -> Generator:
    """The BEIR metrics of the model and BM25, and model B's when there is one, each recorded as a
    ``retrieval-eval`` run in the store at ``store_path`` (the vectors come back from the index cache):
    ((A's EvalResult, run id), (B's, run id) or None)."""
    from pathlib import Path as _Path

    from lm_workbench.retrieval.runs import RetrievalEvalRun
    from lm_workbench.retrieval.spec import RetrievalEvalSpec
    from lm_workbench.runs.execute import execute

    folder = str(_Path(data.corpus.source).parent)
    spec = RetrievalEvalSpec(str(loaded.info.spec), folder, data.split, pooling=pooling, bm25=True,
                             bm25_k1=bm25_params.k1, bm25_b=bm25_params.b, bm25_method=bm25_params.method).checked()
    a = yield from execute(RetrievalEvalRun(spec), loaded, store_path, inputs=data, cancel=cancel)
    b = None
    if loaded_b is not None and pooling_b is not None:
        spec_b = RetrievalEvalSpec(str(loaded_b.info.spec), folder, data.split, pooling=pooling_b).checked()
        b = yield from execute(RetrievalEvalRun(spec_b), loaded_b, store_path, inputs=data, cancel=cancel)
    return a, b


def query_words(query: str) -> list[str]:
    """The query's words as BM25 reads them: what the result lists highlight."""
    from lm_workbench.engine.retrieval.bm25 import query_words as words

    return words(query)
