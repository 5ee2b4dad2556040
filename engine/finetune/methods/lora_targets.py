"""Which weight matrices LoRA adapts: names checked against the model's ``nn.Linear`` and ``Conv1D`` layers.

``peft`` matches ``target_modules`` by name suffix and, for a name that
matches nothing in one of several layers, can leave a layer silently
unadapted; here every requested name must name a layer, or the user is told
which names exist. The roles ``query``, ``key`` and ``value`` also find the
other families' names for them (``q_proj``/``q``, ...; GPT-2's fused
``c_attn``), so the default "query,value" works on BERT, GPT-2, BART and T5.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

from lm_workbench.engine.anatomy.tables import FFN_OUT_NAMES, ffn_out_layer_names
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.methods.heads import is_under
from lm_workbench.engine.finetune.names import LORA_ROLE_ALIASES

__all__ = ["FFN_OUT_NAMES", "LoraTargets", "TargetLayer", "ffn_out_layers", "resolve_lora_targets", "weight_layers"]


@dataclass(frozen=True)
class TargetLayer:
    name: str  # the full module name, e.g. "bert.encoder.layer.0.attention.self.query"
    d_in: int
    d_out: int
    conv1d: bool  # transformers' Conv1D (GPT-2): weight stored [d_in, d_out]


@dataclass(frozen=True)
class LoraTargets:
    layers: tuple[TargetLayer, ...]

    @property
    def names(self) -> list[str]:
        return [layer.name for layer in self.layers]

    @property
    def fan_in_fan_out(self) -> bool:
        """True when the targets are Conv1D layers (GPT-2), whose weights peft must read transposed."""
        return any(layer.conv1d for layer in self.layers)


def _leaf(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def weight_layers(model: nn.Module, exclude: tuple[str, ...] = ()) -> list[TargetLayer]:
    """Every ``nn.Linear`` and ``Conv1D`` of ``model`` outside the ``exclude`` module prefixes (the head)."""
    from transformers.pytorch_utils import Conv1D

    layers = []
    for name, module in model.named_modules():
        if is_under(name, exclude):
            continue
        if isinstance(module, nn.Linear):
            layers.append(TargetLayer(name, module.in_features, module.out_features, False))
        elif isinstance(module, Conv1D):
            d_in, d_out = module.weight.shape
            layers.append(TargetLayer(name, d_in, d_out, True))
    return layers


def ffn_out_layers(model: nn.Module, exclude: tuple[str, ...] = ()) -> list[str]:
    """The feed-forward blocks' second matrices (BERT's output.dense, GPT-2's mlp.c_proj, BART's fc2, ...) outside
    ``exclude``; ``FFN_OUT_NAMES`` lists the names it knows."""
    return ffn_out_layer_names([layer.name for layer in weight_layers(model, exclude)])


def resolve_lora_targets(model: nn.Module, requested: str, exclude: tuple[str, ...] = ()) -> LoraTargets:
    """The layers named by ``requested`` (comma-separated layer names or roles); ``WorkbenchError`` if one is unknown.

    A name is a layer's last name (``value``), a dotted tail of its path (``intermediate.dense``) or a role
    (``query``, ``key``, ``value``), tried in that order.
    """
    from lm_workbench.engine.finetune.methods.peft_bridge import ensure_not_peft

    ensure_not_peft(model)
    layers = weight_layers(model, exclude)
    wanted = [part.strip() for part in requested.split(",") if part.strip()]
    if not wanted:
        raise WorkbenchError("name at least one LoRA target module (e.g. query,value)")
    chosen: dict[str, TargetLayer] = {}
    for name in wanted:
        found = _named(layers, name)
        for alias in LORA_ROLE_ALIASES.get(name, ()) if not found else ():
            found = found or _named(layers, alias)
        if not found:
            leaves = sorted({_leaf(layer.name) for layer in layers})
            raise WorkbenchError(
                f"LoRA target {name!r} names no linear layer of {type(model).__name__}; "
                f"its layers are: {', '.join(leaves)} (or a dotted tail such as attention.output.dense)")
        chosen.update((layer.name, layer) for layer in found)
    return LoraTargets(tuple(sorted(chosen.values(), key=lambda layer: layer.name)))


def _named(layers: list[TargetLayer], name: str) -> list[TargetLayer]:
    """The layers whose full name is ``name`` or ends with ``.name`` (a leaf or a dotted tail)."""
    return [layer for layer in layers if layer.name == name or layer.name.endswith("." + name)]
