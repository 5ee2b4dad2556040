"""What a fine-tuning run is: ``FineTuneSpec``, one JSON-able record (no torch).

The same record is the run's ``params`` in the run store, the long-run job's
keyword arguments, the training view's form state and the ``lm-workbench
finetune`` command line (``cli_command``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from lm_workbench.engine.data.tsv_quoting import check_choice as check_tsv_quoting
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.names import (
    LABELLED_TASKS, SENTENCE_LOSSES, SENTENCE_TASK, SENTENCE_TRAIN_POOLINGS, TASKS,
)
from lm_workbench.engine.preference.names import DEFAULT_BETA
from lm_workbench.runs.spec import RunSpec
from lm_workbench.versions import refuse_known_breaks

TABLE_TASKS = ("seq-cls", "seq2seq", SENTENCE_TASK, "preference")  # the tasks whose files the table reader reads


@dataclass
class FineTuneSpec(RunSpec):
    """One fine-tuning run.

    ``model`` is what ``lm-workbench`` loads (a folder, a hub id, or "" for the
    embedded default); ``method_config`` holds the method's ``Config`` fields as
    strings (``lm_workbench.engine.plugin_api.config_from_strings``); ``lr`` None = the
    method's ``default_lr``; ``training`` holds other ``TrainingConfig`` fields.
    """

    model: str
    task: str
    train: str
    method: str
    out_dir: str
    validation: str | None = None
    method_config: dict[str, str] = field(default_factory=dict)
    epochs: float = 3.0
    lr: float | None = None
    batch_size: int = 16
    max_length: int = 128
    seed: int = 0
    text_columns: list[str] | None = None  # chosen text column(s); None = found by name
    training: dict[str, Any] = field(default_factory=dict)
    template: str = "auto"  # instruct: the chat template, "auto", "plain" or a template file
    resume: str | None = None  # continue the run whose checkpoint this names (its output folder or a step folder)
    # the sentence-embedding task (issue 32): None = by the data (loss), mean (pooling), ε = 1 (margin)
    loss: str | None = None
    pooling: str | None = None
    margin: float | None = None
    beta: float | None = None  # preference tuning's β (None: DEFAULT_BETA); only for --task preference
    tsv_quoting: str = "auto"  # TABLE_TASKS: how a .tsv file's quotes are read (lm_workbench.engine.data.tsv_quoting)
    keep_unseen_labels: bool = False  # a validation label training lacks: leave its examples out (else refused)

    WHAT: ClassVar[str] = "fine-tuning"

    def check(self) -> None:
        refuse_known_breaks(f"finetune:{self.method}")
        if self.task not in TASKS:
            raise WorkbenchError(f"task must be one of {', '.join(TASKS)}, not {self.task!r}")
        if not self.train:
            raise WorkbenchError("name a training file (--train)")
        if self.epochs <= 0:
            raise WorkbenchError(f"epochs must be > 0, not {self.epochs}")
        if self.task not in ("instruct", "preference") and (self.template or "auto") != "auto":
            raise WorkbenchError(f"--template is for the instruct and preference tasks, not {self.task}")
        if self.batch_size < 1 or self.max_length < 8:
            raise WorkbenchError("batch size must be >= 1 and max length >= 8")
        self._check_sentence_options()
        if self.beta is not None and self.task != "preference":
            raise WorkbenchError(f"--beta is preference tuning's setting (--task preference), not {self.task}'s")
        if self.beta is not None and not self.beta > 0:
            raise WorkbenchError(f"--beta must be > 0, not {self.beta:g}")
        check_tsv_quoting(self.tsv_quoting)
        if self.tsv_quoting != "auto" and self.task not in TABLE_TASKS:
            raise WorkbenchError(f"--tsv-quoting is for the tasks read from tables ({', '.join(TABLE_TASKS)}), "
                                 f"not {self.task}")
        if self.keep_unseen_labels and self.task not in LABELLED_TASKS:
            raise WorkbenchError(f"--keep-unseen-labels is for the classification tasks (seq-cls, token-cls), "
                                 f"not {self.task}")

    @property
    def preference_beta(self) -> float:
        """β of a preference run: the spec's, or the default 0.1."""
        return float(self.beta) if self.beta is not None else DEFAULT_BETA

    def _check_sentence_options(self) -> None:
        given = [flag for flag, value in (("--loss", self.loss), ("--pooling", self.pooling),
                                          ("--margin", self.margin)) if value is not None]
        if self.task != SENTENCE_TASK:
            if given:
                raise WorkbenchError(f"{', '.join(given)} belong(s) to --task {SENTENCE_TASK}, not {self.task}")
            return
        if self.loss is not None and self.loss not in SENTENCE_LOSSES:
            raise WorkbenchError(f"--loss must be one of {', '.join(SENTENCE_LOSSES)}, not {self.loss!r}")
        if self.pooling is not None and self.pooling not in SENTENCE_TRAIN_POOLINGS:
            raise WorkbenchError(f"--pooling must be one of {', '.join(SENTENCE_TRAIN_POOLINGS)}, not {self.pooling!r}")
        if self.margin is not None and not self.margin > 0:
            raise WorkbenchError(f"--margin (the triplet loss's ε) must be > 0, not {self.margin}")
        if self.margin is not None and self.loss not in (None, "triplet"):
            raise WorkbenchError(f"--margin is the triplet loss's ε; the {self.loss} loss has none")

    def title(self) -> str:
        return f"{self.method} · {self.task}"

    def cli_args(self) -> list[str]:
        """The ``lm-workbench finetune`` line that repeats this run (a resumed run: ``--resume`` alone, since
        it continues with the settings it was started with)."""
        if self.resume:
            return ["lm-workbench", "finetune", "--resume", str(self.resume)]
        parts = ["lm-workbench", "finetune"] + ([self.model] if self.model else [])
        parts += ["--task", self.task, "--train", self.train]
        if self.validation:
            parts += ["--validation", self.validation]
        parts += ["--method", self.method]
        for key, value in sorted(self.method_config.items()):
            parts += [f"--{self.method}-{key.replace('_', '-')}", str(value)]
        parts += ["--epochs", f"{self.epochs:g}", "--batch-size", str(self.batch_size),
                  "--max-length", str(self.max_length), "--seed", str(self.seed)]
        if self.lr is not None:
            parts += ["--lr", f"{self.lr:g}"]
        if self.task == "preference":
            parts += ["--beta", f"{self.preference_beta:g}"]
        if self.text_columns:
            flag = "--columns" if self.task == SENTENCE_TASK else "--text-columns"
            parts += [flag, ",".join(self.text_columns)]
        for flag, value in (("--loss", self.loss), ("--pooling", self.pooling), ("--margin", self.margin)):
            if value is not None:
                parts += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
        if self.task == "instruct" or (self.task == "preference" and (self.template or "auto") != "auto"):
            parts += ["--template", self.template or "auto"]
        if self.tsv_quoting != "auto":
            parts += ["--tsv-quoting", self.tsv_quoting]
        if self.keep_unseen_labels:
            parts.append("--keep-unseen-labels")
        for key, value in sorted(self.training.items()):
            parts += ["--train-setting", f"{key}={value}"]
        parts += ["--out", self.out_dir]
        return parts
