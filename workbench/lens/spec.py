"""What a tuned-lens run is: ``TunedLensSpec``, one JSON-able record (the run's params, the lane job's keyword
arguments and the ``lm-workbench tuned-lens`` command line). Kept light: no torch."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.runs.spec import RunSpec

CONFIG_FLAGS = {"steps": "--steps", "batch_size": "--batch-size", "seq_len": "--seq-len", "lr": "--lr",
                "seed": "--seed", "validation_windows": "--validation-windows",
                "checkpoint_every": "--checkpoint-every"}


@dataclass
class TunedLensSpec(RunSpec):
    """One tuned-lens training: the model, the corpus files, where the translators go and the settings
    (``lm_workbench.engine.lens.tuned.config.TunedLensConfig`` fields; absent ones keep their defaults).

    ``out_dir`` None: next to the model (``lm_workbench.lens.files.default_out_dir``)."""

    model: str
    corpus: list[str]
    out_dir: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    name: str | None = None

    WHAT: ClassVar[str] = "tuned-lens"
    REQUIRED: ClassVar[tuple[str, ...]] = ("model", "corpus")

    @classmethod
    def normalise(cls, values: dict[str, Any]) -> dict[str, Any]:
        corpus = values["corpus"]
        values["corpus"] = [str(p) for p in (corpus if isinstance(corpus, (list, tuple)) else [corpus])]
        values["settings"] = dict(values.get("settings") or {})
        return values

    def config(self) -> Any:
        """The ``TunedLensConfig`` these settings make (checked)."""
        from lm_workbench.engine.lens.tuned.config import TunedLensConfig

        return TunedLensConfig.from_dict(dict(self.settings))

    def check(self) -> None:
        if not str(self.model).strip():
            raise WorkbenchError("name the model whose tuned lens to train")
        if not self.corpus:
            raise WorkbenchError("name at least one corpus file (.txt or .jsonl)")
        self.config()

    def cli_args(self) -> list[str]:
        args = ["lm-workbench", "tuned-lens", self.model, "--corpus", *self.corpus]
        for key in sorted(self.settings, key=lambda k: list(CONFIG_FLAGS).index(k) if k in CONFIG_FLAGS else 99):
            flag = CONFIG_FLAGS.get(key)
            if flag is None:
                raise WorkbenchError(f"unknown tuned-lens setting {key!r}")
            args += [flag, str(self.settings[key])]
        if self.out_dir:
            args += ["--out", str(self.out_dir)]
        if self.name:
            args += ["--name", self.name]
        return args

    def title(self) -> str:
        return self.name or "tuned lens"
