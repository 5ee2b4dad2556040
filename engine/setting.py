"""``setting``: one field of a settings dataclass (an objective's or fine-tuning method's ``Config``, the training
loop's, the tuned lens's, ELMo's) with the help and bounds that forms, the CLI's ``--set`` and the checks read
(``lm_workbench.engine.objectives.config_fields``). Light: the standard library only."""

from __future__ import annotations

import dataclasses
from typing import Any


def setting(default: Any, help: str, **bounds: Any) -> Any:
    """A dataclass field with ``metadata={"help": help, **bounds}``:
    ``rank: int = setting(8, "the rank of the update", min=1, max=1024)`` is
    ``field(default=8, metadata={"help": ..., "min": 1, "max": 1024})``. ``bounds``: ``min``, ``max``
    (numbers), ``choices`` (a tuple of the allowed values)."""
    return dataclasses.field(default=default, metadata={"help": help, **bounds})
