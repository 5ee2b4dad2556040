"""What a prompt evaluation is: ``PromptEvalSpec``, the run's ``params`` and its ``lm-workbench prompt-eval`` line.

Everything needed to repeat one: the model, the templates and their mode, the verbalizers (every template is
evaluated with every verbalizer, side by side), the data file (or the name of a prompt set that ships example
data, e.g. ``sentiment``), k, the seed, the selection of demonstrations, whether to calibrate, how answers of
several subwords are scored and an optional limit on the examples. Kept light: no torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from lm_workbench.engine.data.tsv_quoting import check_choice as check_tsv_quoting
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.prompting.names import MODES as TEMPLATE_MODES
from lm_workbench.runs.spec import RunSpec

MODES = ("auto", *TEMPLATE_MODES)  # auto: cloze for a masked LM, prefix for the others


@dataclass
class PromptEvalSpec(RunSpec):
    """One prompt evaluation; ``check`` is everything that can be checked before a model loads."""

    model: str
    templates: list[str]
    verbalizers: list[str]
    data: str
    mode: str = "auto"
    k_shot: int = 0
    seed: int = 0
    selection: str = "random"
    calibrate: bool = False
    multi_token: str = "left-to-right"
    length_normalise: bool = False
    limit: int | None = None
    tsv_quoting: str = "auto"  # how a .tsv data file's quotes are read (lm_workbench.engine.data.tsv_quoting)
    keep_unseen_labels: bool = False  # a label only among the demonstrations: go on with a note (else refused)

    WHAT: ClassVar[str] = "prompt evaluation"

    def __post_init__(self) -> None:
        self.templates, self.verbalizers, self.data = list(self.templates), list(self.verbalizers), str(self.data)
        self.k_shot, self.seed = int(self.k_shot), int(self.seed)
        self.calibrate, self.length_normalise = bool(self.calibrate), bool(self.length_normalise)
        self.keep_unseen_labels = bool(self.keep_unseen_labels)

    def check(self) -> None:
        from lm_workbench.engine.prompting.fewshot import check_choice
        from lm_workbench.engine.prompting.template import Template
        from lm_workbench.engine.prompting.verbalizer import Verbalizer

        if self.mode not in MODES:
            raise WorkbenchError(f"--mode must be auto, cloze or prefix, not {self.mode!r}")
        if not self.templates:
            raise WorkbenchError("give a template with --template, e.g. \"[x] Overall, it was a [z] movie.\"")
        if not self.verbalizers:
            raise WorkbenchError("give a verbalizer with --verbalizer, e.g. \"pos=great,good;neg=terrible,bad\"")
        for text in self.templates:
            # auto: the cloze rules hold for every mode; prefix's own rule waits for the model's family
            Template.parse(text, "cloze" if self.mode == "auto" else self.mode)
        for spec in self.verbalizers:
            Verbalizer.parse(spec)
        check_choice(self.k_shot, self.selection, "as-chosen")
        if self.limit is not None and self.limit < 1:
            raise WorkbenchError(f"--limit must be at least 1, not {self.limit}")
        check_tsv_quoting(self.tsv_quoting)

    def cli_args(self) -> list[str]:
        parts = ["lm-workbench", "prompt-eval", self.model]
        for text in self.templates:
            parts += ["--template", text]
        for spec in self.verbalizers:
            parts += ["--verbalizer", spec]
        parts += ["--data", self.data]
        if self.mode != "auto":
            parts += ["--mode", self.mode]
        if self.k_shot:
            parts += ["--k-shot", str(self.k_shot), "--selection", self.selection]
        parts += ["--seed", str(self.seed)]
        if self.calibrate:
            parts.append("--calibrate")
        if self.multi_token != "left-to-right":
            parts += ["--multi-token", self.multi_token]
        if self.length_normalise:
            parts.append("--length-normalise")
        if self.limit:
            parts += ["--limit", str(self.limit)]
        if self.tsv_quoting != "auto":
            parts += ["--tsv-quoting", self.tsv_quoting]
        if self.keep_unseen_labels:
            parts.append("--keep-unseen-labels")
        return parts + ["--json"]
