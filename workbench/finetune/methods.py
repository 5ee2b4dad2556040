"""The fine-tuning methods the job, the CLI and the view offer: the working ``lm_workbench.finetune_methods``."""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.plugin_api import FineTuneMethod


def _registry(settings: Any):
    from lm_workbench.extensions.registry import FineTuneMethodRegistry
    from lm_workbench.settings import load_settings

    return FineTuneMethodRegistry.discover(settings if settings is not None else load_settings())


def finetune_methods(settings: Any = None) -> dict[str, FineTuneMethod]:
    """Every working method by name: the built-ins and enabled folder plugins (``settings``: default, the saved ones)."""
    return _registry(settings).methods()


def finetune_method(name: str, settings: Any = None) -> FineTuneMethod:
    """One method by its ``--method`` name; ``WorkbenchError`` naming the available ones for an unknown name."""
    return _registry(settings).method(name)
