"""Attaching bottleneck adapters to a transformers model, and freezing all else.

Supported: BERT-style post-LN encoders (BERT, RoBERTa, MiniLM, ...: the
``*SelfOutput`` and ``*Output`` modules that compute LayerNorm(dropout(dense(x)) + x))
and GPT-2 (pre-LN: ``attn.c_proj`` -> ``resid_dropout`` and ``mlp.c_proj`` ->
``dropout``, then the block adds the residual).

Houlsby: two adapters per layer, each replacing the dropout that ends the
attention / feed-forward sublayer with dropout-then-adapter, so the adapter
sees the projection's output f before the residual add (and the LayerNorm):
LN(x + f + U(g(D(f)))) in BERT, x + f + U(g(D(f))) in GPT-2.

Pfeiffer: one adapter per layer, after the feed-forward sublayer, reading
h = LN(f + x) with the residual r = f (AdapterFusion, Pfeiffer et al. 2021):
LN(x + f + U(g(D(LN(x + f))))) with the same LayerNorm twice, in BERT; in
GPT-2, with no LayerNorm there, z + U(g(D(z))) on the block output z = x + f.
"""

from __future__ import annotations

from functools import partial

from torch import nn

from lm_workbench.engine.anatomy.bottleneck_sites import AdapterSite, adapter_sites
from lm_workbench.engine.finetune.methods.bottleneck.config import BottleneckConfig
from lm_workbench.engine.finetune.methods.bottleneck.layer import BottleneckAdapter, NormWithAdapter, WithAdapter, adapt_block_output
from lm_workbench.engine.finetune.methods.heads import head_prefixes, is_under, train_only
from lm_workbench.engine.finetune.methods.record import MethodRecord, attach_record, ensure_unadapted


def _insert(site: AdapterSite, adapter: BottleneckAdapter) -> None:
    if site.sublayer in ("attention", "feed_forward"):
        setattr(site.parent, site.attribute, WithAdapter(getattr(site.parent, site.attribute), adapter))
    elif site.attribute:
        setattr(site.parent, site.attribute, NormWithAdapter(getattr(site.parent, site.attribute), adapter))
    else:
        site.parent.adapter = adapter
        site.parent.register_forward_hook(partial(adapt_block_output, adapter))


def add_bottleneck_adapters(model: nn.Module, config: BottleneckConfig) -> nn.Module:
    """Insert adapters into ``model`` (in place), train only them (+ LayerNorms, + head); returns ``model``.

    The adapters take the dtype and device of the layer they follow.
    """
    ensure_unadapted(model)
    heads = head_prefixes(model, config.modules_to_save)
    wanted = ("attention", "feed_forward") if config.variant == "houlsby" else ("layer_output",)
    reference = next(model.parameters())
    for site in adapter_sites(model):
        if site.sublayer not in wanted:
            continue
        adapter = BottleneckAdapter(site.hidden, config.bottleneck_size(site.hidden), config.non_linearity,
                                    config.init_scale)
        _insert(site, adapter.to(device=reference.device, dtype=reference.dtype))

    layer_norms = {name for name, m in model.named_modules() if isinstance(m, nn.LayerNorm)}

    def keep(name: str) -> bool:
        if ".adapter." in f".{name}" or is_under(name, heads):
            return True
        return bool(config.train_layer_norms) and is_under(name, layer_norms)

    train_only(model, keep)
    saved = [name for name, p in model.named_parameters() if p.requires_grad]
    attach_record(model, MethodRecord("bottleneck", config.to_dict(), saved))
    return model
