"""The pre-training form's jobs (``fn(..., cancel)`` on the form's lane; torch is imported there): what the
form offers (objectives, presets, ELMo's presets) and the parameter count of the architecture it shows."""

from __future__ import annotations

from typing import Any


def discover_choices(cancel: Any) -> tuple[Any, dict, Any, dict]:
    """On the worker: the objective registry, the presets, the parameter counter, ELMo's presets."""
    from lm_workbench.engine.elmo.presets import ELMO_PRESETS
    from lm_workbench.engine.pretrain.architectures import PRESETS, count_parameters
    from lm_workbench.extensions.registry import ObjectiveRegistry

    elmo = {name: (c.n_layers, c.projection_dim) for name, c in ELMO_PRESETS.items()}
    return ObjectiveRegistry.discover(), dict(PRESETS), count_parameters, elmo


def count_architecture(counter: Any, arch: dict, vocab: int, head: str, cancel: Any) -> int:
    from lm_workbench.engine.pretrain.architectures import ArchitectureSpec

    return int(counter(ArchitectureSpec(**arch), vocab, head))
