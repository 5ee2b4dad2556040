"""What a pre-training run is: ``PretrainSpec``, one JSON-able record.

The same record is the run's ``params`` in the run store, the keyword
arguments of the long-run job, the form's state in the training view and the
``lm-workbench pretrain`` command line (``cli_command``), so "run again" and
"copy as CLI command" reproduce a run exactly. This module stays light (no
torch): the runs browser and the CLI parser import it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.pretrain.names import ELMO_PRESET_NAMES, FAMILIES, TRANSFORMER_PRESETS
from lm_workbench.runs.spec import RunSpec
from lm_workbench.versions import refuse_known_breaks

PRESET_NAMES = (*TRANSFORMER_PRESETS, "course")  # every name any family takes (the CLI's choices)


def presets_for(family: str) -> tuple[str, ...]:
    """The preset names ``family`` takes."""
    return ELMO_PRESET_NAMES if family == "elmo" else TRANSFORMER_PRESETS


# TrainingConfig fields that have their own CLI flag; the others travel as ``--train KEY=VALUE``.
TRAINING_FLAGS = {"steps": "--steps", "batch_size": "--batch-size", "lr": "--lr", "seed": "--seed",
                  "checkpoint_every": "--checkpoint-every", "device": "--device"}


@dataclass
class PretrainSpec(RunSpec):
    """One pre-training run: family, objective, corpus, architecture, training settings, where to write.

    ``max_positions`` is also the sequence length examples are packed to.
    ``dropout`` sets every dropout probability of the model (None: the family's default; ELMo has none).
    ``objective_config`` holds the objective's settings as strings (parsed by
    ``lm_workbench.engine.plugin_api.config_from_strings``); ``training`` holds
    ``lm_workbench.engine.training.config.TrainingConfig`` fields (absent ones keep their
    defaults). ``resume`` names a previous run's output folder or one of its
    checkpoint folders.
    """

    family: str
    objective: str
    corpus: list[str]
    out_dir: str
    preset: str = "tiny"
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    intermediate: int | None = None
    dropout: float | None = None
    max_positions: int = 128
    vocab_size: int = 8000
    objective_config: dict[str, str] = field(default_factory=dict)
    training: dict[str, Any] = field(default_factory=dict)
    validation_fraction: float = 0.05
    resume: str | None = None
    name: str | None = None

    WHAT: ClassVar[str] = "pre-training"
    REQUIRED: ClassVar[tuple[str, ...]] = ("family", "objective", "corpus", "out_dir")

    @classmethod
    def normalise(cls, values: dict[str, Any]) -> dict[str, Any]:
        """The corpus as a list of strings, the objective's settings as strings, the training settings as a dict."""
        values["corpus"] = [str(p) for p in (values["corpus"] if isinstance(values["corpus"], (list, tuple))
                                             else [values["corpus"]])]
        values["objective_config"] = {str(k): str(v) for k, v in dict(values.get("objective_config") or {}).items()}
        values["training"] = dict(values.get("training") or {})
        return values

    @property
    def steps(self) -> int | None:
        """The requested number of optimizer steps, if set (else TrainingConfig's default)."""
        value = self.training.get("steps")
        return None if value is None else int(value)

    def check(self) -> None:
        """Raise ``WorkbenchError`` for a value that cannot work, before anything heavy starts."""
        refuse_known_breaks(f"pretrain:{self.family}")
        if self.family not in FAMILIES:
            raise WorkbenchError(f"unknown family {self.family!r}; choose one of {', '.join(FAMILIES)}")
        if self.preset not in presets_for(self.family):
            raise WorkbenchError(f"unknown preset {self.preset!r} for {self.family}; choose one of "
                                 f"{', '.join(presets_for(self.family))}")
        if self.family == "elmo" and self.heads is not None:
            raise WorkbenchError("ELMo has no attention heads: leave heads unset")
        if not self.corpus:
            raise WorkbenchError("name at least one corpus file (.txt or .jsonl)")
        if not str(self.out_dir).strip():
            raise WorkbenchError("name an output folder for the run")
        for name in ("layers", "hidden", "heads", "intermediate"):
            value = getattr(self, name)
            if value is not None and int(value) < 1:
                raise WorkbenchError(f"{name} must be at least 1, not {value}")
        if self.dropout is not None:
            if self.family == "elmo":
                raise WorkbenchError("ELMo has no dropout setting: leave dropout unset")
            if isinstance(self.dropout, bool) or not isinstance(self.dropout, (int, float)) \
                    or not 0.0 <= float(self.dropout) < 1.0:
                raise WorkbenchError(f"dropout must be from 0 up to (not including) 1, not {self.dropout!r}")
        if self.max_positions < 8:
            raise WorkbenchError(f"the sequence length (max_positions) must be at least 8, not {self.max_positions}")
        if self.vocab_size < 50:
            raise WorkbenchError(f"the vocabulary size must be at least 50, not {self.vocab_size}")
        if not 0.0 < self.validation_fraction < 1.0:
            raise WorkbenchError(f"validation_fraction must be between 0 and 1, not {self.validation_fraction}")

    def cli_args(self) -> list[str]:
        """The equivalent ``lm-workbench pretrain ...`` command line."""
        args = ["lm-workbench", "pretrain", "--family", self.family, "--objective", self.objective,
                "--corpus", *self.corpus, "--preset", self.preset]
        for name in ("layers", "hidden", "heads", "intermediate"):
            value = getattr(self, name)
            if value is not None:
                args += [f"--{name}", str(value)]
        if self.dropout is not None:
            args += ["--dropout", repr(float(self.dropout))]
        args += ["--seq-len", str(self.max_positions), "--vocab-size", str(self.vocab_size)]
        if self.validation_fraction != 0.05:
            args += ["--validation-fraction", repr(float(self.validation_fraction))]
        for key in sorted(self.objective_config):  # sorted: the store keeps JSON with sorted keys
            args += ["--set", f"{key}={self.objective_config[key]}"]
        ordered = [k for k in TRAINING_FLAGS if k in self.training]
        ordered += sorted(k for k in self.training if k not in TRAINING_FLAGS)
        for key in ordered:
            value = self.training[key]
            text = "none" if value is None else str(value)
            flag = TRAINING_FLAGS.get(key)
            args += [flag, text] if flag else ["--train", f"{key}={text}"]
        args += ["--out", str(self.out_dir)]
        if self.resume:
            args += ["--resume", str(self.resume)]
        if self.name:
            args += ["--name", self.name]
        return args

    def title(self) -> str:
        """A short human name: the given one, or ``"bert mlm (tiny)"``."""
        return self.name or f"{self.family} {self.objective} ({self.preset})"


def parse_training_assignments(items: list[str], field_types: dict[str, Any]) -> dict[str, Any]:
    """``["lr=1e-3", "threads=none"]`` -> ``{"lr": 0.001, "threads": None}``, typed by ``field_types``.

    ``field_types`` maps each allowed name to its default value's type (or a
    tuple of types for an optional field); an unknown name or a value that
    does not parse is a ``WorkbenchError`` naming it.
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = str(item).partition("=")
        key, raw = key.strip(), raw.strip()
        if not sep or not key:
            raise WorkbenchError(f"a training setting must look like key=value, not {item!r}")
        if key not in field_types:
            raise WorkbenchError(f"unknown training setting {key!r} (settings: {', '.join(field_types)})")
        out[key] = parse_value(key, raw, field_types[key])
    return out


def parse_value(key: str, raw: str, kind: Any) -> Any:
    """One string parsed as ``kind`` (bool, int, float, str, or a tuple with ``type(None)`` for optional)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if type(None) in kinds and raw.lower() in ("none", "null", ""):
        return None
    for k in kinds:
        if k is bool:
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
        elif k is int:
            try:
                return int(raw)
            except ValueError:
                pass
        elif k is float:
            try:
                return float(raw)
            except ValueError:
                pass
        elif k is str:
            return raw
    names = " or ".join(getattr(k, "__name__", str(k)) for k in kinds)
    raise WorkbenchError(f"training setting {key} must be {names}, not {raw!r}")
