"""Which modules of a model are its task head, and freezing everything but a chosen set."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from torch import nn

from lm_workbench.engine.errors import WorkbenchError

# Task heads of transformers' task models: sequence and token classification, extractive QA (BART/T5: classification_head).
KNOWN_HEAD_PREFIXES = ("classifier", "score", "qa_outputs", "classification_head")


def head_prefixes(model: nn.Module, requested: Iterable[str] | None) -> tuple[str, ...]:
    """The module-name prefixes to train as the task head: ``requested``, or the known heads ``model`` has."""
    names = {name for name, _ in model.named_modules()}
    if requested is None:
        return tuple(p for p in KNOWN_HEAD_PREFIXES if p in names)
    requested = tuple(requested)
    missing = [p for p in requested if p not in names]
    if missing:
        raise WorkbenchError(f"modules_to_save names no module of this model: {', '.join(missing)}")
    return requested


def is_under(name: str, prefixes: Iterable[str]) -> bool:
    """True when parameter ``name`` belongs to a module named by one of ``prefixes``."""
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def train_only(model: nn.Module, keep: Callable[[str], bool]) -> None:
    """Freeze every parameter of ``model`` whose name ``keep`` rejects; unfreeze the rest."""
    for name, parameter in model.named_parameters():
        parameter.requires_grad_(keep(name))
