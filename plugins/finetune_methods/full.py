"""Full fine-tuning: every weight of the task model trains (Devlin et al. 2019)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from torch import nn

from lm_workbench.engine.plugin_api import (
    setting,
    API_VERSION, CLASSIC_TASKS, SENTENCE_TASK, Attachment, FineTuneMethod, UnifiedRow, WorkbenchError,
)


@dataclass
class FullConfig:
    freeze_embeddings: bool = setting(
        False, "Keep the input embeddings frozen (fewer trained parameters, a common trick on small data sets).")


class FullFineTuning(FineTuneMethod):
    api_version = API_VERSION
    name = "full"
    title = "Full fine-tuning"
    description = "Every weight of the model and the new task head trains; the saved model is a whole copy."
    Config = FullConfig
    tasks = frozenset((*CLASSIC_TASKS, SENTENCE_TASK, "instruct", "preference"))  # the newer tasks by name
    default_lr = 3e-5
    lr_reason = ("All pretrained weights move, so a small step (2e-5 to 5e-5, Devlin et al. 2019) keeps them "
                 "near what pre-training found instead of overwriting it.")
    attachment = Attachment(
        sites=("embeddings", "query", "key", "value", "attention_output", "ffn_in", "ffn_out", "layer_norm",
               "bias", "head"),
        formula="W ← W − η·∇L for every W", residual="none added: every weight on both residual paths changes",
        adds_modules=False)
    unified = UnifiedRow(
        functional_form="ΔW·x for every W", insertion="—", representation="all weights", composition="W ← W₀ + ΔW",
        formula="h ← (W₀ + ΔW)·x everywhere", formula_html="<i>h</i> ← (<i>W</i><sub>0</sub> + Δ<i>W</i>)<i>x</i> "
        "everywhere", note="the reference He et al. compare against: outside the framework (nothing is frozen)")

    def apply(self, model: nn.Module, config: FullConfig, task: str) -> nn.Module:
        self.check_task(task)
        self.check_config(config)
        model.requires_grad_(True)
        if config.freeze_embeddings:
            embeddings = model.get_input_embeddings() if hasattr(model, "get_input_embeddings") else None
            if embeddings is None:
                raise WorkbenchError(f"{type(model).__name__} has no input embeddings to freeze")
            embeddings.requires_grad_(False)
        return model

    def attachment_for(self, config: FullConfig) -> Attachment:
        if not config.freeze_embeddings:
            return self.attachment
        return replace(self.attachment, sites=tuple(s for s in self.attachment.sites if s != "embeddings"))

    def save(self, model: nn.Module, folder: Path) -> None:
        model.save_pretrained(str(folder), safe_serialization=True)

    def load(self, base_model: nn.Module, folder: Path) -> nn.Module:
        """The whole saved model (``base_model`` gives only its class, device and dtype)."""
        if not (Path(folder) / "config.json").is_file():
            raise WorkbenchError(f"{folder} holds no saved model (config.json is missing)")
        reference = next(base_model.parameters())
        model = type(base_model).from_pretrained(str(folder), dtype=reference.dtype)
        return model.to(reference.device).eval()
