"""Sentence vectors from token vectors, their similarities, and anisotropy.

Pooling: the mean of all token vectors (special tokens included, as
sentence-transformers does), the first token ([CLS]), the element-wise
maximum over the tokens, or the model's own pooling when its folder declares
one in the sentence-transformers format (``modules.json`` naming a Pooling
module, whose ``config.json`` says the mode, and optionally a Normalize
module) or is a sentence-embedding run's output folder (``finetune.json``
names the pooling it trained). all-MiniLM-L6-v2 declares mean
pooling followed by L2 normalisation.

Anisotropy (Ethayarajh 2019): the mean cosine between occurrences of
*different* words. Contextual vectors occupy a narrow cone, so even unrelated
tokens look similar by cosine; the same seeded pairs are scored on every
layer so the layers are comparable.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Generator, Hashable, Mapping, Sequence

import numpy as np

from lm_workbench.engine.embeddings.names import SENTENCE_POOLINGS
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Partial, Progress, relay

_ST_MODES = {  # sentence-transformers Pooling config flag -> our mode name
    "pooling_mode_cls_token": "cls",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_max_tokens": "max",
    "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len",
    "pooling_mode_lasttoken": "last",
}


def _mask(h: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """Mask [..., T] as float64 with a trailing axis (all ones when None)."""
    if mask is None:
        return np.ones(h.shape[:-1] + (1,), dtype=np.float64)
    m = np.asarray(mask, dtype=np.float64)
    if m.shape != h.shape[:-1]:
        raise WorkbenchError(f"mask shape {m.shape} does not match token vectors {h.shape}")
    return m[..., None]


def mean_pool(h: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Mean of the unmasked token vectors: h [..., T, H], mask [..., T] -> [..., H] float32."""
    m = _mask(h, mask)
    total = (np.asarray(h, dtype=np.float64) * m).sum(axis=-2)
    return (total / np.maximum(m.sum(axis=-2), 1e-9)).astype(np.float32)


def cls_pool(h: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """The first token's vector: h [..., T, H] -> [..., H] (the mask is not needed)."""
    return np.asarray(h, dtype=np.float32)[..., 0, :]


def max_pool(h: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Element-wise maximum over unmasked tokens: [..., T, H] -> [..., H]."""
    m = _mask(h, mask)
    return np.where(m > 0, np.asarray(h, dtype=np.float32), -np.inf).max(axis=-2).astype(np.float32)


def mean_sqrt_len_pool(h: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Sum of unmasked token vectors over sqrt(count): [..., T, H] -> [..., H]."""
    m = _mask(h, mask)
    total = (np.asarray(h, dtype=np.float64) * m).sum(axis=-2)
    return (total / np.sqrt(np.maximum(m.sum(axis=-2), 1e-9))).astype(np.float32)


def last_pool(h: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """The last unmasked token's vector: [T, H] -> [H] (one sequence)."""
    h = np.asarray(h, dtype=np.float32)
    if h.ndim != 2:
        raise WorkbenchError("last-token pooling takes one sequence [T, H] at a time")
    last = len(h) - 1 if mask is None else int(np.flatnonzero(np.asarray(mask))[-1])
    return h[last]


_POOLERS = {"mean": mean_pool, "cls": cls_pool, "max": max_pool, "mean_sqrt_len": mean_sqrt_len_pool,
            "last": last_pool}


def l2_normalise(v: np.ndarray) -> np.ndarray:
    """Rows of length 1 ([..., H]); zero vectors stay zero."""
    v = np.asarray(v, dtype=np.float32)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(norms > 0, norms, 1.0).astype(np.float32)


def model_pooling(model_folder: str | Path) -> tuple[str, bool] | None:
    """(mode, normalize) the folder's sentence-transformers config declares, or None.

    mode is one of mean, cls, max, mean_sqrt_len, last.
    """
    folder = Path(model_folder)
    modules_file = folder / "modules.json"
    if not modules_file.is_file():
        return _trained_pooling(folder)
    try:
        modules = json.loads(modules_file.read_text(encoding="utf-8"))
        pooling = next((m for m in modules if str(m.get("type", "")).endswith(".Pooling")), None)
        if pooling is None:
            return None
        config = json.loads((folder / pooling.get("path", "") / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, AttributeError, TypeError) as exc:
        raise WorkbenchError(f"the pooling configuration in {folder} cannot be read: {exc}") from exc
    modes = [mode for flag, mode in _ST_MODES.items() if config.get(flag)]
    if len(modes) != 1:
        raise WorkbenchError(f"{folder} declares pooling {modes or 'none'}; only one single mode is supported")
    normalize = any(str(m.get("type", "")).endswith(".Normalize") for m in modules)
    return modes[0], normalize


def _trained_pooling(folder: Path) -> tuple[str, bool] | None:
    """A sentence-embedding run's output folder (its ``finetune.json``): the pooling the run trained with."""
    manifest = folder / "finetune.json"
    if not manifest.is_file():
        return None
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise WorkbenchError(f"cannot read {manifest}: {exc}") from exc
    if data.get("task") != "sentence-embedding" or data.get("pooling") not in _POOLERS:
        return None
    return str(data["pooling"]), False


def resolve_pooling(pooling: str, model_folder: str | Path | None) -> tuple[str, bool]:
    """(mode, normalize) for a pooling choice: "mean", "cls" or the model's own ("model")."""
    if pooling in ("mean", "cls", "max"):
        return pooling, False
    if pooling != "model":
        raise WorkbenchError(f"unknown pooling {pooling!r}; choose one of {', '.join(SENTENCE_POOLINGS)}")
    declared = model_pooling(model_folder) if model_folder is not None else None
    if declared is None:
        raise WorkbenchError("this model declares no pooling of its own; choose mean, cls or max pooling")
    return declared


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
    pool = _POOLERS[mode]
    layers = list(layers)
    top = int(loaded.info.layers)  # hidden states 0..top
    bad = [layer for layer in layers if not -(top + 1) <= int(layer) <= top]
    if bad:
        raise WorkbenchError(f"layer {bad[0]} is outside 0..{top} (the model has {top} layers; -1 is the last)")
    encodings = yield from relay(encode_texts(loaded, list(texts), attentions=False, hidden_layers=layers, cancel=cancel),
                                 lambda report: None if isinstance(report, Partial) else report)
    out: dict[int, np.ndarray] = {}
    for j, layer in enumerate(layers):
        rows = [pool(enc.hidden_states[j]) for enc in encodings]  # each [H], from [T, H]
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
