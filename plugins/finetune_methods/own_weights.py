"""Saving and loading for the built-in methods that train tensors of the task model itself (or a wrapper of it).

``apply`` remembers its config and task on the model; ``save`` writes the
trainable tensors with them (``save_trained``); ``load`` reads them back,
applies the same method to the fresh base and copies the tensors in.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from torch import nn

from lm_workbench.engine.plugin_api import WorkbenchError, check_architecture, load_trained, read_adapter_config, save_trained

SETUP = "workbench_finetune_setup"


class TrainedTensorsIO:
    """Mix into a ``FineTuneMethod`` whose ``apply`` ends with ``return self.remember(model, config, task)``."""

    name: str

    def remember(self, model: nn.Module, config: Any, task: str) -> nn.Module:
        object.__setattr__(model, SETUP, {"config": dataclasses.asdict(config), "task": task})
        return model

    def save(self, model: nn.Module, folder: Path) -> None:
        setup = getattr(model, SETUP, None)
        if setup is None:
            raise WorkbenchError(f"{self.name}: save the model that apply() returned")
        save_trained(model, folder, method=self.name, config=setup["config"], task=setup["task"])

    def load(self, base_model: nn.Module, folder: Path) -> nn.Module:
        description = read_adapter_config(folder)
        if description.get("method") != self.name:
            raise WorkbenchError(f"{folder} was saved by the {description.get('method')!r} method, not {self.name!r}")
        check_architecture(base_model, description)
        config = self.config_from_dict(description["config"])  # type: ignore[attr-defined]
        model = self.apply(base_model, config, description["task"])  # type: ignore[attr-defined]
        return load_trained(model, folder).eval()
