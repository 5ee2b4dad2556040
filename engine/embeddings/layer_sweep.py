"""Where does context enter? Sense separability of occurrence vectors, layer by layer.

Two scores per layer for occurrences that carry sense labels:

- leave-one-out 1-nearest-neighbour accuracy (cosine): does the most similar
  other occurrence have the same sense? With ``groups`` (the word of each
  occurrence) the neighbour is sought among occurrences of the same word
  only, as in the ELMo paper's word-sense comparison. When several
  neighbours tie for the best score (static vectors of one word are all
  identical) the point scores the fraction of tied neighbours with its label,
  its expected accuracy under random tie-breaking, so corpus order never
  decides. For static vectors that is (same-label others) / (others).
- the silhouette (cosine) of the sense labels, from scikit-learn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generator, Hashable, Mapping, Sequence

import numpy as np

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress

TIE_TOLERANCE = 1e-6  # cosine scores closer than this tie
SILHOUETTE_SAMPLE = 5000  # silhouette is O(n^2): above this many points it uses a seeded sample
_BLOCK_ELEMENTS = 8_000_000  # float64 similarities held at once (~64 MB)


@dataclass(frozen=True)
class LayerScore:
    layer: Hashable  # the key of vectors_by_layer (an int, "static", a LayerSpec label...)
    accuracy: float  # leave-one-out 1-NN accuracy in [0, 1] (nan when no point has a neighbour)
    silhouette: float  # cosine silhouette in [-1, 1] (nan with fewer than 2 labels)


def _unit64(vectors: np.ndarray) -> np.ndarray:
    v = np.asarray(vectors, dtype=np.float64)
    if v.ndim != 2:
        raise WorkbenchError(f"expected vectors [n, hidden], got shape {v.shape}")
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(norms > 0, norms, 1.0)


def _codes(values: Sequence[Any], n: int, what: str) -> np.ndarray:
    """Integer codes [n] for hashable values (equal values, equal codes)."""
    if len(values) != n:
        raise WorkbenchError(f"{len(values)} {what} for {n} vectors; they must match one to one")
    table: dict[Any, int] = {}
    return np.array([table.setdefault(v, len(table)) for v in values], dtype=np.int64)


def _tie_scores(sims: np.ndarray, same_label: np.ndarray) -> np.ndarray:
    """Per row: fraction of the best-scoring (within tolerance) columns that share the label.

    sims [b, m] with -inf where a column is not a neighbour; rows without any
    neighbour give nan.
    """
    best = sims.max(axis=1, keepdims=True)  # [b, 1]
    tied = sims >= best - TIE_TOLERANCE  # [b, m]
    tied &= np.isfinite(sims)
    count = tied.sum(axis=1)
    hits = (tied & same_label).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, hits / np.maximum(count, 1), np.nan)


def loo_nn_scores(vectors: np.ndarray, labels: Sequence[Any], *, groups: Sequence[Any] | None = None) -> np.ndarray:
    """Per point [n]: expected 1-NN correctness (see module doc); nan where there is no neighbour."""
    unit = _unit64(vectors)  # [n, H]
    n = unit.shape[0]
    lab = _codes(labels, n, "labels")
    grp = _codes(groups, n, "groups") if groups is not None else np.zeros(n, dtype=np.int64)
    out = np.full(n, np.nan)
    for g in np.unique(grp):
        members = np.flatnonzero(grp == g)  # [m]
        if members.size < 2:
            continue
        sub = unit[members]
        block = max(1, _BLOCK_ELEMENTS // members.size)
        for a in range(0, members.size, block):
            rows = np.arange(a, min(a + block, members.size))
            sims = sub[rows] @ sub.T  # [b, m]
            sims[np.arange(rows.size), rows] = -np.inf  # leave the point itself out
            same = lab[members][rows][:, None] == lab[members][None, :]  # [b, m]
            out[members[rows]] = _tie_scores(sims, same)
    return out


def loo_nn_accuracy(vectors: np.ndarray, labels: Sequence[Any], *, groups: Sequence[Any] | None = None) -> float:
    """Leave-one-out 1-NN accuracy by cosine, ties scored as expected accuracy.

    ``groups``: restrict each point's neighbours to points of its own group
    (e.g. the word of each occurrence). Points with no neighbour (alone in
    their group) are left out of the mean; nan when no point has one.
    """
    scores = loo_nn_scores(vectors, labels, groups=groups)
    valid = scores[np.isfinite(scores)]
    return float(valid.mean()) if valid.size else float("nan")


def silhouette(vectors: np.ndarray, labels: Sequence[Any], *, seed: int = 0) -> float:
    """Cosine silhouette of the labels (nan unless 2 <= number of labels <= n - 1).

    Above ``SILHOUETTE_SAMPLE`` points a seeded sample of that size is scored.
    """
    from sklearn.metrics import silhouette_score

    x = np.asarray(vectors, dtype=np.float32)
    codes = _codes(labels, x.shape[0], "labels")
    k = np.unique(codes).size
    if not 2 <= k <= x.shape[0] - 1:
        return float("nan")
    sample = SILHOUETTE_SAMPLE if x.shape[0] > SILHOUETTE_SAMPLE else None
    return float(silhouette_score(x, codes, metric="cosine", sample_size=sample, random_state=seed))


def layer_sweep_job(vectors_by_layer: Mapping[Hashable, np.ndarray], labels: Sequence[Any],
                      groups: Sequence[Any] | None = None, *, cancel: CancelToken = NEVER_CANCELLED
                      ) -> Generator[Progress, None, list[LayerScore]]:
    """Accuracy and silhouette for each layer, in the mapping's order (progress and cancel per layer)."""
    if not vectors_by_layer:
        raise WorkbenchError("no layers to sweep")
    total = len(vectors_by_layer)
    scores: list[LayerScore] = []
    for done, (layer, vectors) in enumerate(vectors_by_layer.items()):
        cancel.check()
        yield Progress(done, total, f"layer sweep: {layer}")
        scores.append(LayerScore(layer, loo_nn_accuracy(vectors, labels, groups=groups),
                                 silhouette(vectors, labels)))
    yield Progress(total, total, "layer sweep done")
    return scores


def sweep_rows(words: Sequence[str], labels: Sequence[str | None], word: str | None = None) -> list[int]:
    """Occurrences a sweep can score: labelled, of ``word`` when given.

    A label written "word:sense" (the demo set's form) names the word its line
    was written for; an occurrence of another word in that line does not carry
    that sense, so it is left out.
    """
    known = set(words)
    rows = []
    for i, (w, label) in enumerate(zip(words, labels)):
        if label is None or (word is not None and w != word.casefold()):
            continue
        prefix = label.split(":", 1)[0].casefold() if ":" in label else None
        if prefix in known and prefix != w:
            continue
        rows.append(i)
    return rows


def layer_sweep_table(table: Any, word: str | None = None, *, cancel: CancelToken = NEVER_CANCELLED
                      ) -> Generator[Progress, None, list[LayerScore]]:
    """Sweep an ``OccurrenceTable`` (static first, then its layers); neighbours within the same word.

    Only occurrences with a label count (see ``sweep_rows``); ``word``
    restricts the sweep to one word.
    """
    if table.labels is None:
        raise WorkbenchError("the corpus has no labels; a layer sweep needs a sense label for each line")
    words = table.words
    rows = sweep_rows(words, table.labels, word)
    if len(rows) < 2:
        what = f"of {word!r} " if word else ""
        raise WorkbenchError(f"fewer than two labelled occurrences {what}to sweep")
    index = np.asarray(rows)
    keys = (["static"] if "static" in table.vectors else []) + list(table.layers)
    by_layer = {k: np.asarray(table.vectors[k][index], dtype=np.float32) for k in keys}
    labels = [table.labels[i] for i in rows]
    groups = [words[i] for i in rows]
    return (yield from layer_sweep_job(by_layer, labels, groups, cancel=cancel))
