"""What a method leaves on the model it adapted: its name, its config, and the weights it trains and saves."""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

from lm_workbench.engine.errors import WorkbenchError

ATTRIBUTE = "workbench_peft_method"


@dataclass(frozen=True)
class MethodRecord:
    method: str  # "bottleneck" or "bitfit"
    config: dict
    saved_names: list[str]  # parameter names written by save_adapter (and only those)


def ensure_unadapted(model: nn.Module) -> None:
    """Refuse a model a method was already applied to (before touching it)."""
    if getattr(model, ATTRIBUTE, None) is not None:
        raise WorkbenchError(f"this model is already adapted with {getattr(model, ATTRIBUTE).method}; "
                             "load a fresh copy of the base model")


def attach_record(model: nn.Module, record: MethodRecord) -> None:
    ensure_unadapted(model)
    object.__setattr__(model, ATTRIBUTE, record)


def record_of(model: nn.Module) -> MethodRecord:
    record = getattr(model, ATTRIBUTE, None)
    if record is None:
        raise WorkbenchError("this model has no adapter or BitFit method attached; nothing to save")
    return record
