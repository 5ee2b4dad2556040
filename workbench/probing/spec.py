"""What a probing, STS or scalar-mix run is: ``ProbeSpec``, ``StsSpec``, ``ScalarMixSpec`` (no torch).

Each is the run's ``params`` in the run store and the ``lm-workbench probe`` / ``sts`` / ``scalar-mix``
command line that repeats it (``cli_command``). ``task`` and ``data`` are a file or ``demo`` (the built-in
POS set and STS pairs).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import ClassVar

from lm_workbench.engine.embeddings.names import SENTENCE_POOLINGS
from lm_workbench.engine.data.tsv_quoting import check_choice as check_tsv_quoting
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.probing.names import KINDS
from lm_workbench.runs.spec import RunSpec

TASK_KINDS = KINDS
POOLINGS = SENTENCE_POOLINGS


def _check_pooling(pooling: str) -> None:
    if pooling not in POOLINGS:
        raise WorkbenchError(f"--pooling must be one of {', '.join(POOLINGS)}, not {pooling!r}")


@dataclass
class ProbeSpec(RunSpec):
    """A layer-wise probing run: every layer's linear probe and the control task's."""

    model: str
    task: str
    kind: str
    pooling: str = "mean"
    seed: int = 0
    _: KW_ONLY
    tag_column: int | None = None  # token tasks: the tag's column, 1-based (None: the format's default)
    text_column: str | None = None  # sentence tasks: None finds text or sentence
    label_column: str | None = None  # sentence tasks: None is label
    tsv_quoting: str = "auto"  # sentence tasks: a .tsv file's quotes (lm_workbench.engine.data.tsv_quoting)

    WHAT: ClassVar[str] = "probing"
    COMMAND: ClassVar[str] = "probe"

    def __post_init__(self) -> None:
        self.task, self.seed = str(self.task), int(self.seed)
        self.tag_column = None if self.tag_column in (None, "") else int(self.tag_column)
        self.text_column = self.text_column or None
        self.label_column = self.label_column or None

    def check(self) -> None:
        if self.kind not in TASK_KINDS:
            raise WorkbenchError(f"--kind must be token or sentence, not {self.kind!r}")
        _check_pooling(self.pooling)
        if self.tag_column is not None and self.kind != "token":
            raise WorkbenchError("--tag-column applies to token tasks (CoNLL / CoNLL-U files)")
        if (self.text_column or self.label_column) and self.kind != "sentence":
            raise WorkbenchError("--text-column and --label-column apply to sentence tasks (TSV / CSV / JSONL)")
        if self.tag_column is not None and self.tag_column < 2:
            raise WorkbenchError(f"--tag-column counts from 1 and column 1 is the word: {self.tag_column} is not a tag")
        check_tsv_quoting(self.tsv_quoting)
        if self.tsv_quoting != "auto" and self.kind != "sentence":
            raise WorkbenchError("--tsv-quoting applies to sentence tasks (TSV / CSV / JSONL), not CoNLL files")

    def task_args(self) -> list[str]:
        parts = ["lm-workbench", self.COMMAND, self.model, "--task", self.task, "--kind", self.kind]
        if self.kind == "sentence":
            parts += ["--pooling", self.pooling]
        if self.tag_column is not None:
            parts += ["--tag-column", str(self.tag_column)]
        if self.text_column:
            parts += ["--text-column", self.text_column]
        if self.label_column:
            parts += ["--label-column", self.label_column]
        if self.tsv_quoting != "auto":
            parts += ["--tsv-quoting", self.tsv_quoting]
        return parts + ["--seed", str(self.seed)]

    def cli_args(self) -> list[str]:
        return self.task_args() + ["--json"]


@dataclass
class StsSpec(RunSpec):
    """Sentence similarity per layer: Spearman's rho of pooled sentence vectors' cosines against gold scores."""

    model: str
    data: str
    pooling: str = "mean"
    columns: str | None = None  # "first,second,score" column names; None: sentence1,sentence2,score
    tsv_quoting: str = "auto"  # how a .tsv file's quotes are read (lm_workbench.engine.data.tsv_quoting)

    WHAT: ClassVar[str] = "STS"

    def __post_init__(self) -> None:
        self.data = str(self.data)
        self.columns = self.columns or None

    def check(self) -> None:
        _check_pooling(self.pooling)
        check_tsv_quoting(self.tsv_quoting)
        if self.columns is not None and len(self.column_names()) != 3:
            raise WorkbenchError(f"--columns names three columns (two sentences and the score), e.g. "
                                 f"sentence1,sentence2,score; not {self.columns!r}")

    def column_names(self) -> tuple[str, ...] | None:
        return None if self.columns is None else tuple(c.strip() for c in self.columns.split(",") if c.strip())

    def cli_args(self) -> list[str]:
        columns = ["--columns", self.columns] if self.columns else []
        quoting = ["--tsv-quoting", self.tsv_quoting] if self.tsv_quoting != "auto" else []
        return ["lm-workbench", "sts", self.model, "--data", self.data, "--pooling", self.pooling, *columns, *quoting,
                "--json"]


@dataclass
class ScalarMixSpec(ProbeSpec):
    """ELMo's scalar mix of a model's layers, learned for a probing task in ``steps`` training steps."""

    steps: int = 300

    WHAT: ClassVar[str] = "scalar mix"
    COMMAND: ClassVar[str] = "scalar-mix"

    def __post_init__(self) -> None:
        super().__post_init__()
        self.steps = int(self.steps)

    def check(self) -> None:
        if self.steps < 1:
            raise WorkbenchError(f"--steps must be at least 1, not {self.steps}")
        super().check()

    def cli_args(self) -> list[str]:
        return self.task_args() + ["--steps", str(self.steps), "--json"]
