"""Indexing a corpus as a job: every passage encoded once, with progress and Cancel, cached on disk by model +
pooling + corpus hash and resumed from the cache after a cancel; then queries against it.

``index_corpus_job`` encodes the corpus chunk by chunk (in corpus order; inside a chunk by length), writing
each finished chunk to the cache, so a cancelled encoding loses at most the chunk it was on. A passage longer
than the window is cut and counted (``DenseIndex.truncated``, said once in ``DenseIndex.notes``).
``DenseIndex.query`` encodes a query with the same model and pooling and refuses another model's (the
index's ``model_identity`` must match): an index is never searched with vectors of another model.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generator

import numpy as np

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress
from lm_workbench.engine.retrieval.cache import IndexCache, index_meta, model_identity
from lm_workbench.engine.retrieval.corpus import Corpus
from lm_workbench.engine.retrieval.encode import PassageEncoder
from lm_workbench.engine.retrieval.search import search

CHUNK = 1024  # passages per cached chunk: what a cancel may lose


@dataclass
class DenseIndex:
    corpus: Corpus
    vectors: np.ndarray  # [n, H] float32 unit rows, in corpus order
    model: str  # the model's spec, as shown
    model_identity: str
    pooling: str  # as asked: mean, cls, max or model
    mode: str  # what was used: mean, cls or max
    window: int
    truncated: int = 0  # passages cut to the window
    cached: int = 0  # passages read from the cache instead of encoded
    key: str = ""
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0  # time spent encoding in this job

    def belongs_to(self, loaded: Any, pooling: str) -> bool:
        return self.pooling == pooling and self.model_identity == model_identity(loaded)

    def query(self, encoder: PassageEncoder, text: str, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(indices, scores) of the k nearest passages to ``text``; another model's encoder is refused."""
        if encoder.pooling != self.pooling or model_identity(encoder.loaded) != self.model_identity:
            raise WorkbenchError(f"this index was built with {self.model} ({self.pooling} pooling); index the corpus "
                                 "again with the model and pooling that ask")
        if not text.strip():
            raise WorkbenchError("type a query")
        vector, _ = encoder.encode([text])
        return search(self.vectors, vector[0], k)


def truncation_note(truncated: int, window: int) -> str:
    return f"{truncated:,} passage(s) longer than the model's window of {window} tokens were cut to it"


def index_corpus_job(loaded: Any, corpus: Corpus, pooling: str = "mean", cache_root: str | Path | None = None, *,
                     encoder: PassageEncoder | None = None, chunk_size: int = CHUNK,
                     cancel: CancelToken = NEVER_CANCELLED) -> Generator[Progress, None, DenseIndex]:
    """Encode ``corpus`` (a job generator; see the module docstring); without ``cache_root`` nothing is cached."""
    encoder = encoder or PassageEncoder(loaded, pooling)
    n = len(corpus)
    meta = index_meta(loaded, pooling, encoder.mode, encoder.window, corpus, encoder.dim)
    cache = IndexCache(cache_root, meta, chunk_size) if cache_root is not None else None
    notes: list[str] = []
    if cache is not None:
        cache.open()
        if cache.discarded:
            notes.append("a cached index under this key was of something else: encoded again")
    pieces: list[np.ndarray] = []
    truncated = cached = 0
    started = time.perf_counter()
    encoded = 0
    chunks = -(-n // chunk_size)
    used = (f"{encoder.mode} pooling" if encoder.pooling == encoder.mode
            else f"{encoder.pooling} pooling: {encoder.mode}")  # "model" asked, the model's own (mean) used
    yield Progress(0, n, f"indexing {n:,} passages ({used})")
    for c in range(chunks):
        lo, hi = c * chunk_size, min(n, (c + 1) * chunk_size)
        found = cache.read(c) if cache is not None and cache.done(c) else None
        if found is not None:
            pieces.append(found[0])
            truncated += found[1]
            cached += hi - lo
            continue
        cancel.check()
        steps = encoder.encode_steps(corpus.texts[lo:hi], cancel)
        while True:
            try:
                done = next(steps)
            except StopIteration as stop:
                vectors, cut = stop.value
                break
            rate = (encoded + done) / max(time.perf_counter() - started, 1e-9)
            yield Progress(lo + done, n, f"encoded {lo + done:,} of {n:,} passages ({rate:,.0f}/s)")
        encoded += hi - lo
        if cache is not None:
            cache.write(c, vectors, cut)
        pieces.append(vectors)
        truncated += cut
    seconds = time.perf_counter() - started
    if cached:
        notes.append(f"{cached:,} of {n:,} passages read from the index cache")
    if truncated:
        notes.append(truncation_note(truncated, encoder.window))
    yield Progress(n, n, f"indexed {n:,} passages")
    vectors = np.concatenate(pieces) if len(pieces) > 1 else pieces[0]
    return DenseIndex(corpus, vectors, str(loaded.info.spec), meta["model_identity"], pooling, encoder.mode,
                      encoder.window, truncated, cached, cache.key if cache else "", notes, seconds)
