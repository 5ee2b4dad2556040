"""Requests of the commands that run studies, the Guide and the baselines (``study``, ``guide``, ``baseline``,
``runs diff``): one frozen dataclass each, the CLI's arguments and defaults (``lm_workbench.requests.base`` says
the rules). Each field's comment names its flag."""

from __future__ import annotations

from lm_workbench.requests.base import Request


class StudyListRequest(Request, command="study list"):
    """``lm-workbench study list``: the built-in studies"""


class StudyRunRequest(Request, command="study run"):
    """``lm-workbench study run``: run a study's cells (resumes; reuses identical runs)"""

    study: str  # positional
    scale: str = "lecture"  # --scale
    out: str | None = None  # --out
    set: tuple[str, ...] = ()  # --set
    yes: bool = False  # --yes
    estimate: bool = False  # --estimate


class StudyTableRequest(Request, command="study table"):
    """``lm-workbench study table``: a study's table from the runs made so far"""

    study: str  # positional
    scale: str = "lecture"  # --scale
    out: str | None = None  # --out
    set: tuple[str, ...] = ()  # --set
    export: str | None = None  # --export


class RunsDiffRequest(Request, command="runs diff"):
    """``lm-workbench runs diff``: two runs" settings side by side, the differences marked"""

    a: int  # positional
    b: int  # positional
    all: bool = False  # --all


class GuideListRequest(Request, command="guide list"):
    """``lm-workbench guide list``: the guide's pages in order"""

    guide: str | None = None  # --guide


class GuideShowRequest(Request, command="guide show"):
    """``lm-workbench guide show``: one page: its text, view settings and exercise"""

    page: str  # positional
    guide: str | None = None  # --guide


class GuideCheckRequest(Request, command="guide check"):
    """``lm-workbench guide check``: check an answer to a page's exercise against a model"""

    page: str  # positional
    answer: str  # --answer
    model: str | None = None  # --model
    guide: str | None = None  # --guide


class GuideProgressRequest(Request, command="guide progress"):
    """``lm-workbench guide progress``: this OS user's progress; --csv exports it, --reset forgets it"""

    csv: str | None = None  # --csv
    reset: bool = False  # --reset
    guide: str | None = None  # --guide


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


class BaselineTfidfLrRequest(_BaselineRequest, command="baseline tfidf-lr"):
    """``lm-workbench baseline tfidf-lr``: TF-IDF features + logistic regression (scikit-learn)"""

    vectorizer: str = "{}"  # --vectorizer
    classifier: str = "{}"  # --classifier


class BaselineBilstmRequest(_BaselineRequest, command="baseline bilstm"):
    """``lm-workbench baseline bilstm``: a BiLSTM sentence classifier trained from scratch"""

    embedding: int = 64  # --embedding
    hidden: int = 64  # --hidden
    layers: int = 1  # --layers
    dropout: float = 0.1  # --dropout
    epochs: int = 8  # --epochs
    batch_size: int = 32  # --batch-size
    lr: float = 0.005  # --lr
    min_count: int = 1  # --min-count
    max_length: int = 64  # --max-length
