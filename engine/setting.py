"""``setting``: one field of a settings dataclass (an objective's or fine-tuning method's ``Config``, the training
loop's, the tuned lens's, ELMo's) with the help and bounds that forms, the CLI's ``--set`` and the checks read
(``lm_workbench.engine.objectives.config_fields``). Light: the standard library only."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from lm_workbench.engine.errors import WorkbenchError

C = TypeVar("C")


def setting(default: Any, help: str, **bounds: Any) -> Any:
    """A dataclass field with ``metadata={"help": help, **bounds}``:
    ``rank: int = setting(8, "the rank of the update", min=1, max=1024)`` is
    ``field(default=8, metadata={"help": ..., "min": 1, "max": 1024})``. ``bounds``: ``min``, ``max``
    (numbers), ``choices`` (a tuple of the allowed values)."""
    return dataclasses.field(default=default, metadata={"help": help, **bounds})


def config_from_dict(cls: type[C], data: dict[str, Any], what: str) -> C:
    """``cls(**data)`` checked by its ``validate()``; a ``WorkbenchError`` naming the unknown keys and the
    settings there are (``what``: whose settings, e.g. "training") when ``data`` has keys ``cls`` lacks."""
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise WorkbenchError(f"unknown {what} setting(s) {', '.join(unknown)} (settings: {', '.join(sorted(names))})")
    config = cls(**data)
    config.validate()
    return config
