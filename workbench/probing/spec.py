"""What a probing, STS or scalar-mix run is: ``ProbeSpec``, ``StsSpec``, ``ScalarMixSpec`` (no torch).

Each is the run's ``params`` in the run store and the ``lm-workbench probe`` / ``sts`` / ``scalar-mix``
command line that repeats it (``cli_command``). ``task`` and ``data`` are a file or ``demo`` (the built-in
POS set and STS pairs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.embeddings.names import SENTENCE_POOLINGS
from engine.errors import WorkbenchError
from engine.probing.names import KINDS
from workbench.runs.spec import RunSpec

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

    WHAT: ClassVar[str] = "probing"
    COMMAND: ClassVar[str] = "probe"

    def __post_init__(self) -> None:
        self.task, self.seed = str(self.task), int(self.seed)

    def check(self) -> None:
        if self.kind not in TASK_KINDS:
            raise WorkbenchError(f"--kind must be token or sentence, not {self.kind!r}")
        _check_pooling(self.pooling)

    def task_args(self) -> list[str]:
        parts = ["lm-workbench", self.COMMAND, self.model, "--task", self.task, "--kind", self.kind]
        if self.kind == "sentence":
            parts += ["--pooling", self.pooling]
        return parts + ["--seed", str(self.seed)]

    def cli_args(self) -> list[str]:
        return self.task_args() + ["--json"]


@dataclass
class StsSpec(RunSpec):
    """Sentence similarity per layer: Spearman's rho of pooled sentence vectors' cosines against gold scores."""

    model: str
    data: str
    pooling: str = "mean"

    WHAT: ClassVar[str] = "STS"

    def __post_init__(self) -> None:
        self.data = str(self.data)

    def check(self) -> None:
        _check_pooling(self.pooling)

    def cli_args(self) -> list[str]:
        return ["lm-workbench", "sts", self.model, "--data", self.data, "--pooling", self.pooling, "--json"]


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
