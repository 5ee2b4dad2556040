"""Attaching bottleneck adapters to a transformers model, and freezing all else.

Supported: BERT-style post-LN encoders (BERT, RoBERTa, MiniLM, ...: the
``*SelfOutput`` and ``*Output`` modules that compute LayerNorm(dropout(dense(x)) + input))
and GPT-2 (pre-LN: ``attn.c_proj`` -> ``resid_dropout`` and ``mlp.c_proj`` ->
``dropout``, then the block adds the residual). In both, the adapter replaces
the dropout that ends the sublayer with dropout-then-adapter, so it sees the
projection's output before the residual add (and, for BERT, before the
LayerNorm). Houlsby puts one on the attention and one on the feed-forward
sublayer; Pfeiffer only on the feed-forward one.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

from engine.errors import WorkbenchError
from engine.peft_methods.bottleneck.config import BottleneckConfig
from engine.peft_methods.bottleneck.layer import BottleneckAdapter, WithAdapter
from engine.peft_methods.heads import head_prefixes, is_under, train_only
from engine.peft_methods.record import MethodRecord, attach_record


@dataclass(frozen=True)
class AdapterSite:
    """Where one adapter goes: ``parent``'s ``attribute`` (a dropout) ends a sublayer of width ``hidden``."""

    name: str  # the dropout's full module name
    parent: nn.Module
    attribute: str
    sublayer: str  # "attention" or "feed_forward"
    hidden: int


def _is_bert_output(module: nn.Module) -> bool:
    return all(hasattr(module, a) for a in ("dense", "dropout", "LayerNorm")) and isinstance(module.dense, nn.Linear)


def _gpt2_c_proj_width(module: nn.Module) -> int | None:
    c_proj = getattr(module, "c_proj", None)
    return getattr(c_proj, "nf", None)


def adapter_sites(model: nn.Module) -> list[AdapterSite]:
    """Every sublayer output of ``model`` that can take an adapter, in module order; an error if none."""
    sites: list[AdapterSite] = []
    for name, module in model.named_modules():
        if "crossattention" in name:
            continue  # decoder cross-attention of an encoder-decoder BERT: not in either paper
        kind = type(module).__name__
        if kind.endswith("SelfOutput") and _is_bert_output(module):
            sites.append(AdapterSite(f"{name}.dropout", module, "dropout", "attention", module.dense.out_features))
        elif kind.endswith("Output") and _is_bert_output(module) and kind.startswith(("Bert", "Roberta", "XLMRoberta",
                                                                                       "Electra", "Camembert")):
            sites.append(AdapterSite(f"{name}.dropout", module, "dropout", "feed_forward", module.dense.out_features))
        elif kind == "GPT2Attention" and _gpt2_c_proj_width(module):
            sites.append(AdapterSite(f"{name}.resid_dropout", module, "resid_dropout", "attention",
                                     _gpt2_c_proj_width(module)))
        elif kind == "GPT2MLP" and _gpt2_c_proj_width(module):
            sites.append(AdapterSite(f"{name}.dropout", module, "dropout", "feed_forward",
                                     _gpt2_c_proj_width(module)))
    if not sites:
        architecture = type(model).__name__
        raise WorkbenchError(
            f"bottleneck adapters support BERT-style encoders and GPT-2, not {architecture}; "
            "use LoRA or BitFit for this model")
    if any(isinstance(getattr(s.parent, s.attribute), WithAdapter) for s in sites):
        raise WorkbenchError("this model already has bottleneck adapters; load a fresh copy of the base model")
    return sites


def add_bottleneck_adapters(model: nn.Module, config: BottleneckConfig) -> nn.Module:
    """Insert adapters into ``model`` (in place), train only them (+ LayerNorms, + head); returns ``model``.

    The adapters take the dtype and device of the layer they follow.
    """
    heads = head_prefixes(model, config.modules_to_save)
    wanted = ("attention", "feed_forward") if config.variant == "houlsby" else ("feed_forward",)
    for site in adapter_sites(model):
        if site.sublayer not in wanted:
            continue
        adapter = BottleneckAdapter(site.hidden, config.bottleneck_size(site.hidden), config.non_linearity,
                                    config.init_scale)
        reference = next(site.parent.parameters())
        adapter.to(device=reference.device, dtype=reference.dtype)
        setattr(site.parent, site.attribute, WithAdapter(getattr(site.parent, site.attribute), adapter))

    layer_norms = {name for name, m in model.named_modules() if isinstance(m, nn.LayerNorm)}

    def keep(name: str) -> bool:
        if ".adapter." in f".{name}" or is_under(name, heads):
            return True
        return bool(config.train_layer_norms) and is_under(name, layer_norms)

    train_only(model, keep)
    saved = [name for name, p in model.named_parameters() if p.requires_grad]
    attach_record(model, MethodRecord("bottleneck", config.to_dict(), saved))
    return model
