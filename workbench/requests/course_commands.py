"""Requests of the commands that run studies, the Guide and the baselines (``study``, ``guide``, ``baseline``,
``runs diff``): one frozen dataclass each, the CLI's arguments and defaults (``lm_workbench.requests.base`` says
the rules). Each field's comment names its flag."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from lm_workbench.requests.base import Request


@dataclass(frozen=True, kw_only=True)
class StudyListRequest(Request):
    """``lm-workbench study list``: the built-in studies"""

    COMMAND: ClassVar[str] = "study list"


@dataclass(frozen=True, kw_only=True)
class StudyRunRequest(Request):
    """``lm-workbench study run``: run a study's cells (resumes; reuses identical runs)"""

    COMMAND: ClassVar[str] = "study run"
    study: str  # positional
    scale: str = "lecture"  # --scale
    out: str | None = None  # --out
    set: tuple[str, ...] = ()  # --set
    yes: bool = False  # --yes
    estimate: bool = False  # --estimate


@dataclass(frozen=True, kw_only=True)
class StudyTableRequest(Request):
    """``lm-workbench study table``: a study's table from the runs made so far"""

    COMMAND: ClassVar[str] = "study table"
    study: str  # positional
    scale: str = "lecture"  # --scale
    out: str | None = None  # --out
    set: tuple[str, ...] = ()  # --set
    export: str | None = None  # --export


@dataclass(frozen=True, kw_only=True)
class RunsDiffRequest(Request):
    """``lm-workbench runs diff``: two runs" settings side by side, the differences marked"""

    COMMAND: ClassVar[str] = "runs diff"
    a: int  # positional
    b: int  # positional
    all: bool = False  # --all


@dataclass(frozen=True, kw_only=True)
class GuideListRequest(Request):
    """``lm-workbench guide list``: the guide's pages in order"""

    COMMAND: ClassVar[str] = "guide list"
    guide: str | None = None  # --guide


@dataclass(frozen=True, kw_only=True)
class GuideShowRequest(Request):
    """``lm-workbench guide show``: one page: its text, view settings and exercise"""

    COMMAND: ClassVar[str] = "guide show"
    page: str  # positional
    guide: str | None = None  # --guide


@dataclass(frozen=True, kw_only=True)
class GuideCheckRequest(Request):
    """``lm-workbench guide check``: check an answer to a page's exercise against a model"""

    COMMAND: ClassVar[str] = "guide check"
    page: str  # positional
    answer: str  # --answer
    model: str | None = None  # --model
    guide: str | None = None  # --guide


@dataclass(frozen=True, kw_only=True)
class GuideProgressRequest(Request):
    """``lm-workbench guide progress``: this OS user's progress; --csv exports it, --reset forgets it"""

    COMMAND: ClassVar[str] = "guide progress"
    csv: str | None = None  # --csv
    reset: bool = False  # --reset
    guide: str | None = None  # --guide


@dataclass(frozen=True, kw_only=True)
class _BaselineRequest(Request):
    """The labelled sentence file both baselines read, and how it is split."""

    train: str  # --train
    validation: str | None = None  # --validation
    validation_fraction: float = 0.2  # --validation-fraction
    seed: int = 0  # --seed
    text_column: str | None = None  # --text-column
    label_column: str | None = None  # --label-column
    tsv_quoting: str = "auto"  # --tsv-quoting
    keep_unseen_labels: bool = False  # --keep-unseen-labels


@dataclass(frozen=True, kw_only=True)
class BaselineTfidfLrRequest(_BaselineRequest):
    """``lm-workbench baseline tfidf-lr``: TF-IDF features + logistic regression (scikit-learn)"""

    COMMAND: ClassVar[str] = "baseline tfidf-lr"
    vectorizer: str = "{}"  # --vectorizer
    classifier: str = "{}"  # --classifier


@dataclass(frozen=True, kw_only=True)
class BaselineBilstmRequest(_BaselineRequest):
    """``lm-workbench baseline bilstm``: a BiLSTM sentence classifier trained from scratch"""

    COMMAND: ClassVar[str] = "baseline bilstm"
    embedding: int = 64  # --embedding
    hidden: int = 64  # --hidden
    layers: int = 1  # --layers
    dropout: float = 0.1  # --dropout
    epochs: int = 8  # --epochs
    batch_size: int = 32  # --batch-size
    lr: float = 0.005  # --lr
    min_count: int = 1  # --min-count
    max_length: int = 64  # --max-length
