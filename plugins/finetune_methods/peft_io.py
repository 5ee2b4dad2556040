"""Saving, loading and heads for the built-in methods made with ``peft`` (LoRA, prefix and prompt tuning)."""

from __future__ import annotations

from pathlib import Path

from torch import nn

from lm_workbench.engine.plugin_api import head_prefixes, load_peft, save_peft


class PeftIO:
    """Mix into a ``FineTuneMethod`` whose ``apply`` returns a ``peft.PeftModel``."""

    name: str

    @staticmethod
    def trained_heads(model: nn.Module) -> list[str] | None:
        """The task head's module names for peft's ``modules_to_save``; None for a seq2seq LM (no new head)."""
        return list(head_prefixes(model, None)) or None

    def save(self, model: nn.Module, folder: Path) -> None:
        save_peft(model, folder, self.name)

    def load(self, base_model: nn.Module, folder: Path) -> nn.Module:
        return load_peft(base_model, folder)
