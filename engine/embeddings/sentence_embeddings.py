"""Sentence vectors from token vectors, their similarities, and anisotropy.

Pooling: the one implementation (``lm_workbench.engine.sentence.pooling``) with its one vocabulary
(``lm_workbench.engine.sentence.names``); ``model`` is the pooling the model's folder declares, resolved in one
place (``lm_workbench.engine.sentence.model_pooling``). all-MiniLM-L6-v2 declares mean pooling followed by L2
normalisation. ``mean_pool`` ... ``last_pool`` are that pooling on numpy arrays.

Anisotropy (Ethayarajh 2019): the mean cosine between occurrences of
*different* words. Contextual vectors occupy a narrow cone, so even unrelated
tokens look similar by cosine; the same seeded pairs are scored on every
layer so the layers are comparable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Generator, Hashable, Mapping, Sequence

import numpy as np

from lm_workbench.engine.embeddings.names import SENTENCE_POOLINGS
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Partial, Progress, relay
from lm_workbench.engine.sentence.model_pooling import model_pooling  # noqa: F401 (this module's name for it, kept)
from lm_workbench.engine.sentence.model_pooling import resolve_pooling as resolve


def pool_array(h: np.ndarray, mask: np.ndarray | None, mode: str) -> np.ndarray:
    """``lm_workbench.engine.sentence.pooling.pool_array`` (the one pooling; torch is imported when it runs)."""
    from lm_workbench.engine.sentence.pooling import pool_array as pooled

    return pooled(h, mask, mode)


def mean_pool(h: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Mean of the unmasked token vectors: h [..., T, H], mask [..., T] -> [..., H] float32."""
    return pool_array(h, mask, "mean")


def cls_pool(h: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """The first token's vector: h [..., T, H] -> [..., H] (the mask is not needed)."""
    return pool_array(h, None, "cls")


def max_pool(h: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Element-wise maximum over unmasked tokens: [..., T, H] -> [..., H]."""
    return pool_array(h, mask, "max")


def mean_sqrt_len_pool(h: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Sum of unmasked token vectors over sqrt(count): [..., T, H] -> [..., H]."""
    return pool_array(h, mask, "mean_sqrt_len")


def last_pool(h: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """The last unmasked token's vector: [..., T, H] -> [..., H]."""
    return pool_array(h, mask, "last")


def l2_normalise(v: np.ndarray) -> np.ndarray:
    """Rows of length 1 ([..., H]); zero vectors stay zero."""
    v = np.asarray(v, dtype=np.float32)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(norms > 0, norms, 1.0).astype(np.float32)


def resolve_pooling(pooling: str, model_folder: str | Path | None) -> tuple[str, bool]:
    """(mode, normalize) for a sentence pooling choice (``SENTENCE_POOLINGS``; ``model``: the model's own)."""
    return resolve(pooling, model_folder, SENTENCE_POOLINGS)


def sentence_vectors_by_layer(loaded: Any, texts: Sequence[str], pooling: str = "mean",
                              layers: Sequence[int] = (-1,), *, cancel: CancelToken = NEVER_CANCELLED
                              ) -> Generator[Progress, None, dict[int, np.ndarray]]:
    """One sentence vector per text for each asked layer: {layer: [n, H] float32} (a job generator).

    Layers index the hidden states including the embedding output (0), so -1
    is the last layer. One encoding pass serves every layer.
    """
    from lm_workbench.engine.analysis import encode_texts  # torch: imported only when sentences are encoded

    if not texts:
        raise WorkbenchError("no sentences to embed")
    mode, normalize = resolve_pooling(pooling, getattr(loaded.info, "folder", None))
    layers = list(layers)
    top = int(loaded.info.layers)  # hidden states 0..top
    bad = [layer for layer in layers if not -(top + 1) <= int(layer) <= top]
    if bad:
        raise WorkbenchError(f"layer {bad[0]} is outside 0..{top} (the model has {top} layers; -1 is the last)")
    encodings = yield from relay(encode_texts(loaded, list(texts), attentions=False, hidden_layers=layers, cancel=cancel),
                                 lambda report: None if isinstance(report, Partial) else report)
    out: dict[int, np.ndarray] = {}
    for j, layer in enumerate(layers):
        rows = [pool_array(enc.hidden_states[j], None, mode) for enc in encodings]  # each [H], from [T, H]
        vecs = np.stack(rows).astype(np.float32)  # [n, H]
        out[layer] = l2_normalise(vecs) if normalize else vecs
    return out


def sentence_vectors(loaded: Any, texts: Sequence[str], pooling: str = "mean", layer: int = -1, *,
                     cancel: CancelToken = NEVER_CANCELLED) -> Generator[Progress, None, np.ndarray]:
    """One sentence vector per text, [n, H] float32 (a job generator).

    pooling: "mean" (all tokens), "cls" (first token) or "model" (the
    model's declared pooling and normalisation; MiniLM: mean + L2).
    """
    by_layer = yield from sentence_vectors_by_layer(loaded, texts, pooling, [layer], cancel=cancel)
    return by_layer[layer]


def similarity_matrix(vectors: np.ndarray) -> np.ndarray:
    """Cosine similarity of every pair of rows: [n, H] -> [n, n] float32."""
    unit = l2_normalise(np.asarray(vectors, dtype=np.float32))
    if unit.ndim != 2:
        raise WorkbenchError(f"expected vectors [n, hidden], got shape {unit.shape}")
    return unit @ unit.T


def different_word_pairs(word_of: Sequence[Hashable], pairs: int = 1000, seed: int = 0) -> np.ndarray:
    """[pairs, 2] seeded random index pairs (i, j) with word_of[i] != word_of[j].

    Sampled uniformly with replacement over such ordered pairs (rejection
    sampling), so the same seed and words always give the same pairs.
    """
    n = len(word_of)
    codes_table: dict[Hashable, int] = {}
    codes = np.array([codes_table.setdefault(w, len(codes_table)) for w in word_of], dtype=np.int64)
    if len(codes_table) < 2:
        raise WorkbenchError("anisotropy needs occurrences of at least two different words")
    if pairs < 1:
        raise WorkbenchError(f"the number of pairs must be at least 1, got {pairs}")
    rng = np.random.default_rng(seed)
    found: list[np.ndarray] = []
    have = 0
    while have < pairs:
        cand = rng.integers(0, n, size=(2 * (pairs - have) + 16, 2))  # [m, 2]
        cand = cand[codes[cand[:, 0]] != codes[cand[:, 1]]]
        found.append(cand)
        have += len(cand)
    return np.concatenate(found)[:pairs]


def anisotropy(vectors_by_layer: Mapping[Hashable, np.ndarray], word_of: Sequence[Hashable], *,
               pairs: int = 1000, seed: int = 0) -> dict[Hashable, float]:
    """{layer: mean cosine over the same seeded pairs of occurrences of different words}."""
    pair_idx = different_word_pairs(word_of, pairs, seed)  # [pairs, 2]
    out: dict[Hashable, float] = {}
    for layer, vectors in vectors_by_layer.items():
        v = np.asarray(vectors, dtype=np.float64)
        if v.shape[0] != len(word_of):
            raise WorkbenchError(f"layer {layer} has {v.shape[0]} vectors for {len(word_of)} occurrences")
        norms = np.linalg.norm(v, axis=1)
        norms[norms == 0] = 1.0
        a, b = pair_idx[:, 0], pair_idx[:, 1]
        cos = np.einsum("ph,ph->p", v[a], v[b]) / (norms[a] * norms[b])  # [pairs]
        out[layer] = float(cos.mean())
    return out
