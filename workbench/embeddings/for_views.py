"""What the embeddings views use from the engine: corpora, the projection cache and table headers (see
lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import lazy_exports

_E = "lm_workbench.engine."
FOR_VIEWS = {
    "corpus_from_text": _E + "embeddings.corpus",
    "Corpus": _E + "embeddings.corpus",
    "TSNE_SUBSAMPLE_ABOVE": _E + "embeddings.projection",
    "ProjectionCache": _E + "embeddings.projection",
    "projection_key": _E + "embeddings.projection",
    "subsample": _E + "embeddings.projection",
    "peek_header": _E + "data.table",
}
__all__ = sorted(FOR_VIEWS)
__getattr__ = lazy_exports(FOR_VIEWS, __name__)
