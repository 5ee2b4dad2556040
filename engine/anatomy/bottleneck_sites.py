"""Where a bottleneck adapter (Houlsby et al. 2019; Pfeiffer et al. 2021) can go, per family.

BERT-style post-LN encoders (their ``*SelfOutput`` and ``*Output`` modules compute
LayerNorm(dropout(dense(x)) + x)) and GPT-2 (pre-LN: ``attn.c_proj`` -> ``resid_dropout`` and ``mlp.c_proj`` ->
``dropout``, then the block adds the residual). Houlsby: the dropout that ends the attention / feed-forward
sublayer; Pfeiffer: the feed-forward sublayer's LayerNorm (BERT), or the block's output (GPT-2).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

from lm_workbench.engine.errors import WorkbenchError


@dataclass(frozen=True)
class AdapterSite:
    """Where one adapter can go in a layer of width ``hidden``.

    ``sublayer`` "attention" / "feed_forward" (Houlsby): ``parent``'s
    ``attribute`` is the dropout ending that sublayer's output. "layer_output"
    (Pfeiffer): ``attribute`` is the post-LN sublayer's LayerNorm, or "" for a
    pre-LN block whose output the adapter reads through a forward hook.
    """

    name: str
    parent: nn.Module
    attribute: str
    sublayer: str
    hidden: int


def _is_bert_output(module: nn.Module) -> bool:
    return all(hasattr(module, a) for a in ("dense", "dropout", "LayerNorm")) and isinstance(module.dense, nn.Linear)


def _gpt2_c_proj_width(module: nn.Module) -> int | None:
    c_proj = getattr(module, "c_proj", None)
    return getattr(c_proj, "nf", None)


def _sites_of(name: str, module: nn.Module) -> list[AdapterSite]:
    kind = type(module).__name__
    if kind.endswith("SelfOutput") and _is_bert_output(module):
        return [AdapterSite(f"{name}.dropout", module, "dropout", "attention", module.dense.out_features)]
    if kind.endswith("Output") and _is_bert_output(module) and kind.startswith(_BERT_STYLE):
        width = module.dense.out_features
        return [AdapterSite(f"{name}.dropout", module, "dropout", "feed_forward", width),
                AdapterSite(f"{name}.LayerNorm", module, "LayerNorm", "layer_output", width)]
    if kind == "GPT2Attention" and _gpt2_c_proj_width(module):
        return [AdapterSite(f"{name}.resid_dropout", module, "resid_dropout", "attention", _gpt2_c_proj_width(module))]
    if kind == "GPT2MLP" and _gpt2_c_proj_width(module):
        return [AdapterSite(f"{name}.dropout", module, "dropout", "feed_forward", _gpt2_c_proj_width(module))]
    if kind == "GPT2Block" and _gpt2_c_proj_width(getattr(module, "mlp", None)):
        return [AdapterSite(name, module, "", "layer_output", _gpt2_c_proj_width(module.mlp))]
    return []


_BERT_STYLE = ("Bert", "Roberta", "XLMRoberta", "Electra", "Camembert")


def adapter_sites(model: nn.Module) -> list[AdapterSite]:
    """Every place in ``model`` that can take an adapter, in module order; an error if there is none."""
    sites: list[AdapterSite] = []
    for name, module in model.named_modules():
        if "crossattention" not in name:  # an encoder-decoder's cross-attention: in neither paper
            sites.extend(_sites_of(name, module))
    if not sites:
        raise WorkbenchError(
            f"bottleneck adapters support BERT-style encoders and GPT-2, not {type(model).__name__}; "
            "use LoRA or BitFit for this model")
    return sites
