"""What the embeddings views use from the engine: corpora, the projection cache and table headers (see
lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import engine_exports

FOR_VIEWS, __all__, __getattr__ = engine_exports(__name__, {
    "embeddings.corpus": "corpus_from_text Corpus",
    "embeddings.projection": "TSNE_SUBSAMPLE_ABOVE ProjectionCache projection_key subsample",
    "data.table": "peek_header",
})
