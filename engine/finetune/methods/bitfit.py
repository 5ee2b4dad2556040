"""BitFit (Ben Zaken et al. 2022): train only the bias terms, plus the task head."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from torch import nn

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.methods.heads import head_prefixes, is_under, train_only
from lm_workbench.engine.finetune.methods.record import MethodRecord, attach_record, ensure_unadapted
from lm_workbench.engine.setting import setting


@dataclass
class BitFitConfig:
    modules_to_save: list[str] | None = setting(
        None, "Module names trained and saved in full besides the biases (the task head); unset = the model's "
        "classifier/score/qa_outputs.")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> BitFitConfig:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def is_bias(name: str) -> bool:
    return name == "bias" or name.endswith(".bias")


def apply_bitfit(model: nn.Module, config: BitFitConfig | None = None) -> nn.Module:
    """Freeze all of ``model`` (in place) but its biases and its head; returns ``model``."""
    ensure_unadapted(model)
    config = config or BitFitConfig()
    heads = head_prefixes(model, config.modules_to_save)
    if not any(is_bias(name) for name, _ in model.named_parameters()):
        raise WorkbenchError(f"{type(model).__name__} has no bias parameters, so BitFit has nothing to train")
    train_only(model, lambda name: is_bias(name) or is_under(name, heads))
    saved = [name for name, p in model.named_parameters() if p.requires_grad]
    attach_record(model, MethodRecord("bitfit", config.to_dict(), saved))
    return model
