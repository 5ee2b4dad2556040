"""Probing and STS sweeps over every layer, as job generators.

Each function yields ``Progress`` while it extracts (once, for all layers)
and ``Partial(LayerResult | StsLayer)`` as each layer is scored, returns the
whole result, and stops at the next step once ``cancel`` is set.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Generator

import numpy as np

from lm_workbench.engine.embeddings.activation_cache import ActivationCache
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.probing.names import KINDS
from lm_workbench.engine.probing.probes import (
    control_labels, held_out_rows, majority_rate, probe_layers, shuffled_labels,
)
from lm_workbench.engine.probing.readers import SentenceTask, StsPairs, TokenTask
from lm_workbench.engine.probing.representations import sentence_vectors_all_layers, word_vectors
from lm_workbench.engine.probing.sts import pair_cosines, spearman
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Partial, Progress


@dataclass(frozen=True)
class LayerResult:
    layer: int
    accuracy: float
    control_accuracy: float
    selectivity: float


@dataclass
class ProbeResult:
    kind: str  # "token" | "sentence"
    layers: list[int]
    accuracy: list[float]
    control_accuracy: list[float]
    selectivity: list[float]
    majority: float  # test accuracy of always answering the most frequent training label
    train_size: int
    test_size: int
    labels: int  # distinct task labels
    left_out: int = 0  # task words the model did not see (past its window)
    from_cache: bool = False
    pooling: str | None = None  # sentence tasks
    read: dict | None = None  # the task file's ReadReport.as_json(): rows_read, rows_skipped, skipped, notes
    rows_scored: int = 0  # the held-out rows the accuracies are computed on
    notes: list[str] = field(default_factory=list)  # what the hold-out did with the labels (the label rule)

    def to_json(self) -> dict[str, Any]:
        return _flat_read(asdict(self))


@dataclass(frozen=True)
class StsLayer:
    layer: int
    spearman: float | None  # None: not defined at this layer (the result's notes say why)


@dataclass
class StsResult:
    layers: list[int]
    pooling: str
    spearman: list[float | None]  # None where rho is not defined (``notes`` says why, under ``sts_metric``)
    pairs: int
    read: dict | None = None  # the pairs file's ReadReport.as_json()
    rows_scored: int = 0  # the pairs the correlation is computed on
    notes: list[str] = field(default_factory=list)  # "spearman at layer L not defined: why"

    def to_json(self) -> dict[str, Any]:
        return _flat_read(asdict(self))


def sts_metric(layer: int) -> str:
    """The name a layer's undefined rho is noted under (``lm_workbench.engine.maths.undefined``)."""
    return f"spearman at layer {layer}"


def _flat_read(values: dict[str, Any]) -> dict[str, Any]:
    """The read report's keys (rows_read, rows_skipped, skipped) beside the result's own; ``notes``: the result's
    own, then the read's."""
    read = dict(values.pop("read", None) or {})
    notes = list(values.pop("notes", []) or []) + list(read.pop("notes", []) or [])
    return {**values, **read, "notes": notes}


def probe_vectors(kind: str, vectors: dict[int, np.ndarray], labels: list[str], groups: np.ndarray,
                  words: list[str] | None, *, seed: int = 0, n_jobs: int = -1,
                  cancel: CancelToken = NEVER_CANCELLED) -> Generator[Progress | Partial, None, ProbeResult]:
    """Probe given per-layer vectors (rows parallel to ``labels``; ``groups`` = sentence of each row).

    Token tasks pass ``words`` (the control task assigns labels per word
    type); sentence tasks pass None (the control shuffles the labels).
    """
    if kind not in KINDS:
        raise WorkbenchError(f"the probing kind is token or sentence, not {kind!r}")
    if len(set(labels)) < 2:
        raise WorkbenchError("a probe needs at least two different labels")
    split, notes = held_out_rows(kind, labels, groups, seed)
    control = (control_labels(words, labels, split.train, seed) if words is not None
               else shuffled_labels(labels, seed))
    train_labels = [labels[i] for i in split.train]
    layers = list(vectors)
    scores = []
    yield Progress(0, len(layers), f"fitting {len(layers)} layers' probes ({len(split.train)} training rows)")
    sweep = probe_layers(vectors, labels, control, split, seed=seed, n_jobs=n_jobs)
    try:
        for score in sweep:
            cancel.check()
            result = LayerResult(score.layer, score.accuracy, score.control_accuracy, score.selectivity)
            scores.append(result)
            yield Partial(result)
            yield Progress(len(scores), len(layers), f"probed layer {score.layer}")
    finally:
        sweep.close()
    return ProbeResult(
        kind=kind, layers=[s.layer for s in scores], accuracy=[s.accuracy for s in scores],
        control_accuracy=[s.control_accuracy for s in scores], selectivity=[s.selectivity for s in scores],
        majority=majority_rate(train_labels, [labels[i] for i in split.test]),
        train_size=len(split.train), test_size=len(split.test), labels=len(set(labels)), notes=notes)


def probe_token_task(loaded: Any, task: TokenTask, *, cache: ActivationCache | None = None, seed: int = 0,
                     n_jobs: int = -1, batch_size: int = 16, cancel: CancelToken = NEVER_CANCELLED
                     ) -> Generator[Progress | Partial, None, ProbeResult]:
    """Layer-wise probes of a tagged-word task: extract every layer once, then probe all layers."""
    reps = yield from word_vectors(loaded, task, cache=cache, batch_size=batch_size, cancel=cancel)
    result = yield from probe_vectors("token", reps.vectors, reps.tags, reps.sentence, reps.words, seed=seed,
                                      n_jobs=n_jobs, cancel=cancel)
    result.left_out, result.from_cache = reps.left_out, reps.from_cache
    return result


def probe_sentence_task(loaded: Any, task: SentenceTask, *, pooling: str = "mean", seed: int = 0,
                        n_jobs: int = -1, cancel: CancelToken = NEVER_CANCELLED
                        ) -> Generator[Progress | Partial, None, ProbeResult]:
    """Layer-wise probes of a sentence-classification task on pooled sentence vectors."""
    vectors = yield from sentence_vectors_all_layers(loaded, task.texts, pooling, cancel=cancel)
    result = yield from probe_vectors("sentence", vectors, task.labels, np.arange(len(task.texts)), None,
                                      seed=seed, n_jobs=n_jobs, cancel=cancel)
    result.pooling = pooling
    return result


def sts_by_layer(loaded: Any, pairs: StsPairs, *, pooling: str = "mean", cancel: CancelToken = NEVER_CANCELLED
                 ) -> Generator[Progress | Partial, None, StsResult]:
    """Spearman's rho of pair cosines against gold scores at every layer (one encoding pass)."""
    texts = list(dict.fromkeys(pairs.first + pairs.second))  # each distinct sentence encoded once
    row = {t: i for i, t in enumerate(texts)}
    a = np.asarray([row[t] for t in pairs.first])
    b = np.asarray([row[t] for t in pairs.second])
    vectors = yield from sentence_vectors_all_layers(loaded, texts, pooling, cancel=cancel)
    layers, rhos, notes = [], [], []
    for layer, v in vectors.items():
        cancel.check()
        why: list[str] = []
        rho = spearman(pair_cosines(v[a], v[b]), pairs.scores, why)
        notes += [line.replace("spearman", sts_metric(layer), 1) for line in why]
        layers.append(layer)
        rhos.append(rho)
        yield Partial(StsLayer(layer, rho))
    return StsResult(layers, pooling, rhos, len(pairs.scores), notes=notes)
