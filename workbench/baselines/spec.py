"""What a baseline run is: ``TfidfSpec`` and ``BiLSTMSpec``, JSON-able records (no torch, no scikit-learn).

Both read one labelled sentence file (``train``: TSV/CSV/JSONL with a text or sentence column and a label
column; ``demo`` is the shipped sentiment set) and score on ``validation`` when given, else on a held-out
``validation_fraction`` of the training rows (shuffled with ``seed``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.runs.spec import RunSpec


@dataclass
class BaselineSpec(RunSpec):
    """The data settings both baselines share."""

    train: str
    validation: str | None = None
    validation_fraction: float = 0.2
    seed: int = 0
    text_column: str | None = None
    label_column: str | None = None
    tsv_quoting: str = "auto"
    keep_unseen_labels: bool = False  # the label rule (lm_workbench.engine.data.labels): refuse, or leave out

    COMMAND: ClassVar[str] = ""
    REQUIRED: ClassVar[tuple[str, ...]] = ("train",)

    def check(self) -> None:
        if not self.train:
            raise WorkbenchError(f"a {self.WHAT} run needs a training file (--train)")
        if self.validation is None and not 0 < self.validation_fraction < 1:
            raise WorkbenchError(f"validation_fraction must be in (0, 1), not {self.validation_fraction}")

    def data_args(self) -> list[str]:
        parts = ["--train", self.train]
        if self.validation:
            parts += ["--validation", self.validation]
        else:
            parts += ["--validation-fraction", f"{self.validation_fraction:g}"]
        parts += ["--seed", str(self.seed)]
        for flag, value in (("--text-column", self.text_column), ("--label-column", self.label_column)):
            if value:
                parts += [flag, value]
        if self.tsv_quoting != "auto":
            parts += ["--tsv-quoting", self.tsv_quoting]
        if self.keep_unseen_labels:
            parts += ["--keep-unseen-labels"]
        return parts


@dataclass
class TfidfSpec(BaselineSpec):
    """TF-IDF + logistic regression: ``vectorizer`` and ``classifier`` are scikit-learn keyword arguments
    (``TfidfVectorizer``, ``LogisticRegression``), written into the run as given."""

    vectorizer: dict[str, Any] = field(default_factory=dict)
    classifier: dict[str, Any] = field(default_factory=dict)

    WHAT: ClassVar[str] = "TF-IDF baseline"
    COMMAND: ClassVar[str] = "tfidf-lr"

    def cli_args(self) -> list[str]:
        parts = ["lm-workbench", "baseline", "tfidf-lr", *self.data_args()]
        if self.vectorizer:
            parts += ["--vectorizer", json.dumps(self.vectorizer, sort_keys=True)]
        if self.classifier:
            parts += ["--classifier", json.dumps(self.classifier, sort_keys=True)]
        return parts


@dataclass
class BiLSTMSpec(BaselineSpec):
    """A BiLSTM from scratch (``lm_workbench.engine.baselines.bilstm.BiLSTMConfig``'s fields)."""

    embedding: int = 64
    hidden: int = 64
    layers: int = 1
    dropout: float = 0.1
    epochs: int = 8
    batch_size: int = 32
    lr: float = 5e-3
    min_count: int = 1
    max_length: int = 64

    WHAT: ClassVar[str] = "BiLSTM baseline"
    COMMAND: ClassVar[str] = "bilstm"
    NET: ClassVar[tuple[str, ...]] = ("embedding", "hidden", "layers", "dropout", "epochs", "batch_size", "lr",
                                      "min_count", "max_length")

    def config(self) -> Any:
        from lm_workbench.engine.baselines.bilstm import BiLSTMConfig

        return BiLSTMConfig(**{k: getattr(self, k) for k in self.NET})

    def check(self) -> None:
        super().check()
        self.config().check()

    def cli_args(self) -> list[str]:
        parts = ["lm-workbench", "baseline", "bilstm", *self.data_args()]
        for name in self.NET:
            parts += [f"--{name.replace('_', '-')}", f"{getattr(self, name):g}"]
        return parts
