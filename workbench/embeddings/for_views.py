"""What the embeddings views use from the engine: corpora, the projection cache and table headers (see
lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import engine_names, lazy_exports

FOR_VIEWS = engine_names({
    "embeddings.corpus": "corpus_from_text Corpus",
    "embeddings.projection": "TSNE_SUBSAMPLE_ABOVE ProjectionCache projection_key subsample",
    "data.table": "peek_header",
})
__all__ = sorted(FOR_VIEWS)
__getattr__ = lazy_exports(FOR_VIEWS, __name__)
