"""The explorer's jobs: functions of a cancel token, run on the window's job lane (never the Qt thread).

Each returns a value or is a generator yielding ``Progress`` (the lane drives
it and reports progress to the tab's job strip). Engine modules that import
torch are imported here, inside the functions, so opening the tab costs
nothing until a job runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Generator, Sequence

import numpy as np

from lm_workbench.engine.progress import CancelToken, Progress

ANISOTROPY_PAIRS = 1000


def read_corpus_file(path: str, text_column: str | None, label_column: str | None, cancel: CancelToken,
                     tsv_quoting: str = "auto") -> Generator:
    """The Embeddings corpus (``lm_workbench.engine.embeddings.corpus.read_corpus``; ``tsv_quoting``: how a .tsv
    file's quotes are read, auto in the window); yields Progress, returns the Corpus."""
    from lm_workbench.engine.embeddings.corpus import read_corpus

    return (yield from read_corpus(path, text_column=text_column, label_column=label_column,
                                   tsv_quoting=tsv_quoting, cancel=cancel))


def demo_corpus(cancel: CancelToken) -> Any:
    from lm_workbench.engine.embeddings.demo_set import demo_corpus as build, demo_words

    cancel.check()
    return build(), demo_words()


def activation_cache() -> Any:
    """The on-disk activation cache in the workbench's cache folder."""
    from lm_workbench.engine.embeddings.activation_cache import ActivationCache
    from lm_workbench.paths import cache_dir

    return ActivationCache(Path(cache_dir()) / "activations")


def extract(loaded: Any, corpus: Any, words: Sequence[str] | None, pooling: str, cancel: CancelToken) -> Generator:
    """Every layer's (and the static baseline's) vector of each occurrence: an ``OccurrenceTable``."""
    from lm_workbench.engine.embeddings.extract import extract_occurrence_vectors

    layers = [*range(loaded.info.layers + 1), "static"]
    return (yield from extract_occurrence_vectors(loaded, corpus, words=words, layers=layers, pooling=pooling,
                                                  cache=activation_cache(), cancel=cancel))


def representation(table: Any, spec_text: str) -> tuple[Any, np.ndarray]:
    """(LayerSpec, vectors [n, H] float32) of the representation written ``spec_text``."""
    from lm_workbench.engine.embeddings.representation import parse_layer_spec

    spec = parse_layer_spec(spec_text, table.num_layers)
    return spec, table.vectors_for(spec)


def project_map(table: Any, spec_text: str, method: str, params: dict, seed: int, rows: np.ndarray | None,
                cache: Any, key: Any, cancel: CancelToken) -> Generator:
    """(spec, vectors [n, H], map rows [m], coordinates [m, 2]); ``rows`` subsamples the map (None: all)."""
    from lm_workbench.engine.embeddings.projection import project

    yield Progress(0, 1, "computing the representation")
    spec, vectors = representation(table, spec_text)
    cancel.check()
    rows = np.arange(len(vectors)) if rows is None else rows
    coords = cache.get(key) if cache is not None else None
    if coords is None:
        coords = yield from project(vectors[rows], method, seed=seed, params=params, cancel=cancel)
        if cache is not None:
            coords = cache.put(key, coords)
    return spec, vectors, rows, coords


def sweep(table: Any, word: str | None, cancel: CancelToken) -> Generator:
    """(layer scores, occurrences scored) for ``word``'s labelled occurrences (None: every word,
    neighbours within each word): the engine's ``layer_sweep_table``."""
    from lm_workbench.engine.embeddings.layer_sweep import layer_sweep_table, sweep_rows

    scores = yield from layer_sweep_table(table, word, cancel=cancel)
    return scores, len(sweep_rows(table.words, table.labels, word))


def sentences(loaded: Any, texts: list[str], pooling: str, layer: int, table: Any, cancel: CancelToken
              ) -> Generator:
    """(vectors [n, H], cosine matrix [n, n], anisotropy {layer: mean cosine}) for ``texts``."""
    from lm_workbench.engine.embeddings.sentence_embeddings import anisotropy, sentence_vectors, similarity_matrix

    vectors = yield from sentence_vectors(loaded, texts, pooling, layer, cancel=cancel)
    matrix = similarity_matrix(vectors)
    aniso: dict[Any, float] = {}
    if table is not None and len(set(table.words)) >= 2:
        yield Progress(0, 1, "anisotropy per layer")
        layers: dict[Any, Any] = {"static": table.vectors["static"]}
        layers.update({layer_: table.vectors[layer_] for layer_ in table.layers})
        aniso = anisotropy(layers, table.words, pairs=ANISOTROPY_PAIRS, seed=0)
    return vectors, matrix, aniso


def model_b_vectors(loaded_b: Any, corpus: Any, words: Sequence[str] | None, pooling: str, table_a: Any,
                     spec_text: str, cancel: CancelToken) -> Generator:
    """Model B's vectors for A's corpus, lined up with A's occurrences (``lm_workbench.engine.embeddings.counterpart``)."""
    from lm_workbench.engine.embeddings.counterpart import compared_vectors_job

    return (yield from compared_vectors_job(loaded_b, corpus, words, pooling, table_a, spec_text,
                                              cache=activation_cache(), cancel=cancel))


def model_b_representation(model_b: Any, spec_text: str) -> Any:
    """``compared`` with B's representation read again for A's spec ``spec_text``."""
    from dataclasses import replace

    from lm_workbench.engine.embeddings.counterpart import counterpart_representation

    spec, vectors, note = counterpart_representation(model_b.table, spec_text)
    return replace(model_b, spec=spec, vectors=vectors, note=note, for_spec=spec_text)
