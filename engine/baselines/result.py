"""What a baseline classifier returns: accuracy on held-out texts, the majority baseline, parameter counts."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class BaselineResult:
    """A trained baseline scored on its test texts.

    ``accuracy`` and ``majority`` are fractions in [0, 1] (majority: the share of the test set's most common
    training label); ``trainable_parameters`` counts the numbers fitted (weights and biases; the TF-IDF
    vocabulary and idf are counted apart in ``feature_count``); ``wall_s`` is the fit and scoring time in seconds.
    """

    accuracy: float
    majority: float
    trainable_parameters: int
    train_size: int
    test_size: int
    labels: list[str]
    predictions: list[str]
    wall_s: float
    feature_count: int | None = None
    notes: list[str] = field(default_factory=list)
    curve: list[tuple[int, float]] = field(default_factory=list)  # (epoch, training loss), BiLSTM only

    def metrics(self) -> dict[str, float]:
        """The numbers a run records at its last step."""
        out = {"accuracy": self.accuracy, "majority": self.majority,
               "trainable_parameters": float(self.trainable_parameters), "wall_s": self.wall_s,
               "train_size": float(self.train_size), "test_size": float(self.test_size)}
        if self.feature_count is not None:
            out["feature_count"] = float(self.feature_count)
        return out

    def to_json(self) -> dict[str, Any]:
        return {**self.metrics(), "labels": self.labels, "notes": list(self.notes)}


def majority_share(train_labels: list[str], test_labels: list[str]) -> float:
    """The accuracy of always answering the training set's most common label."""
    if not test_labels:
        return float("nan")
    top = Counter(train_labels).most_common(1)[0][0]
    return sum(1 for y in test_labels if y == top) / len(test_labels)


def accuracy(predictions: list[str], gold: list[str]) -> float:
    return sum(1 for p, g in zip(predictions, gold) if p == g) / max(1, len(gold))
