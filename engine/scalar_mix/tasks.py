"""The scalar mix on a probing task: every layer's features of a model, then ``train_scalar_mix``.

Token tasks (a word per row, the mean of its subwords) and sentence tasks (a
pooled vector per sentence) come from ``lm_workbench.engine.probing``'s extraction, so the
activations are computed once per model and corpus; the held-out rows are
whole sentences, as in the probes (a sentence task's stratified by label: ``probes.held_out_rows``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generator, Sequence

import numpy as np

from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress
from lm_workbench.engine.scalar_mix.training import ScalarMixConfig, ScalarMixResult, train_scalar_mix


@dataclass
class TaskMix:
    """A learned mix with what it was learned on."""

    kind: str  # token | sentence
    layers: list[int]
    labels: list[str]  # the label names, in class-id order
    result: ScalarMixResult
    notes: list[str] = field(default_factory=list)  # what the hold-out did with the labels

    def to_json(self) -> dict[str, Any]:
        r = self.result
        return {"kind": self.kind, "layers": self.layers, "weights": r.weights, "gamma": r.gamma,
                "expected_layer": r.expected_layer, "accuracy": r.accuracy, "validation_loss": r.validation_loss,
                "steps": r.steps, "labels": len(self.labels), "notes": list(self.notes)}


def _fit(kind: str, vectors: dict[int, np.ndarray], tags: Sequence[str], groups: np.ndarray,
         config: ScalarMixConfig, cancel: CancelToken) -> Generator[Any, None, TaskMix]:
    from lm_workbench.engine.probing.probes import held_out_rows

    layers = sorted(vectors)
    features = np.stack([np.asarray(vectors[layer], dtype=np.float32) for layer in layers], axis=1)  # [N, L+1, H]
    names = sorted(set(tags))
    y = np.asarray([names.index(t) for t in tags], dtype=np.int64)
    split, notes = held_out_rows(kind, tags, np.asarray(groups), seed=config.seed)
    yield Progress(0, 1, f"training the scalar mix on {len(split.train):,} rows")
    result = yield from train_scalar_mix(features, y, split.train, split.test, config, n_labels=len(names),
                                         cancel=cancel)
    return TaskMix(kind, layers, names, result, notes)


def mix_token_task(loaded: Any, task: Any, config: ScalarMixConfig | None = None, *, cache: Any = None,
                   cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, TaskMix]:
    """Learn the mix of ``loaded``'s layers for a tagged-word task (``lm_workbench.engine.probing.readers.TokenTask``)."""
    from lm_workbench.engine.probing.representations import word_vectors

    reps = yield from word_vectors(loaded, task, cache=cache, cancel=cancel)
    return (yield from _fit("token", reps.vectors, reps.tags, reps.sentence, config or ScalarMixConfig(), cancel))


def mix_sentence_task(loaded: Any, task: Any, config: ScalarMixConfig | None = None, *, pooling: str = "mean",
                      cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, TaskMix]:
    """Learn the mix for a sentence-classification task (``SentenceTask``) on pooled sentence vectors."""
    from lm_workbench.engine.probing.representations import sentence_vectors_all_layers

    vectors = yield from sentence_vectors_all_layers(loaded, task.texts, pooling, cancel=cancel)
    return (yield from _fit("sentence", vectors, task.labels, np.arange(len(task.texts)),
                            config or ScalarMixConfig(), cancel))
