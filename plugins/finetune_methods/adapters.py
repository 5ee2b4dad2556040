"""Bottleneck adapters: Houlsby et al. (2019), two per layer, and Pfeiffer et al. (2021), one per layer."""

from __future__ import annotations

from dataclasses import dataclass, replace

from torch import nn

from lm_workbench.engine.plugin_api import (
    setting,
    API_VERSION, SENTENCE_TASK, Attachment, BottleneckConfig, FineTuneMethod, UnifiedRow, add_bottleneck_adapters,
    head_prefixes,
)
from lm_workbench.plugins.finetune_methods.own_weights import TrainedTensorsIO

_HELP_REDUCTION = ("Bottleneck width m = hidden size / this; each adapter has 2·m·d + m + d parameters "
                   "(16 on MiniLM: m = 24).")
_HELP_ACTIVATION = "The non-linearity between the down- and the up-projection."
_HELP_INIT = ("Standard deviation of the up-projection's start weights (0 = zeros): near 0 each adapter starts "
              "as the identity, so training starts from the base model.")


@dataclass
class HoulsbyConfig:
    reduction_factor: int = setting(16, _HELP_REDUCTION, min=1, max=1024)
    non_linearity: str = setting("relu", _HELP_ACTIVATION, choices=("relu", "gelu", "tanh", "swish"))
    init_scale: float = setting(1e-3, _HELP_INIT, min=0.0, max=1.0)
    train_layer_norms: bool = setting(True, "Also train every LayerNorm's scale and shift, as Houlsby et al. did.")


@dataclass
class PfeifferConfig:
    reduction_factor: int = setting(16, _HELP_REDUCTION, min=1, max=1024)
    non_linearity: str = setting("relu", _HELP_ACTIVATION, choices=("relu", "gelu", "tanh", "swish"))
    init_scale: float = setting(1e-3, _HELP_INIT, min=0.0, max=1.0)
    train_layer_norms: bool = setting(
        False, "Also train every LayerNorm's scale and shift (Pfeiffer et al. keep them frozen).")


class _BottleneckMethod(TrainedTensorsIO, FineTuneMethod):
    api_version = API_VERSION
    variant = ""
    tasks = frozenset({"seq-cls", "token-cls", "qa", SENTENCE_TASK})  # BERT-style encoders and GPT-2 (lm_workbench.engine.finetune.methods)
    default_lr = 1e-3
    lr_reason = ("The adapters start as the identity and are small, so they take steps 10-100x those of full "
                 "fine-tuning (Houlsby et al. searched 3e-5 to 3e-3; Pfeiffer et al. used 1e-4).")

    def apply(self, model: nn.Module, config, task: str) -> nn.Module:
        self.check_task(task)
        self.check_config(config)
        add_bottleneck_adapters(model, BottleneckConfig(
            variant=self.variant, reduction_factor=config.reduction_factor, non_linearity=config.non_linearity,
            init_scale=config.init_scale, train_layer_norms=config.train_layer_norms,
            modules_to_save=list(head_prefixes(model, None))))
        return self.remember(model, config, task)

    def attachment_for(self, config) -> Attachment:
        sites = tuple(s for s in self.attachment.sites if s != "layer_norm")
        if config.train_layer_norms:
            sites = sites[:-1] + ("layer_norm", "head")
        return replace(self.attachment, sites=sites)


class HoulsbyAdapters(_BottleneckMethod):
    name = "houlsby"
    variant = "houlsby"
    title = "Houlsby adapters (Houlsby et al. 2019)"
    description = ("Two small bottleneck networks per layer, after the attention output and after the "
                   "feed-forward block, each before the residual add and LayerNorm; LayerNorms train too.")
    Config = HoulsbyConfig
    attachment = Attachment(sites=("attention_output", "ffn_out", "layer_norm", "head"),
                            formula="h = LN(x + f + U·g(D·f)),  f = sublayer output",
                            residual="on the sublayer's output before both residual adds (its own skip f + U·g(D·f))")
    unified = UnifiedRow(
        functional_form="ReLU(h·W_down)·W_up", insertion="sequential", representation="both",
        composition="h ← h + Δh", formula="h ← h + ReLU(h·W_down)·W_up,  after attention and after the FFN",
        formula_html=("<i>h</i> ← <i>h</i> + ReLU(<i>h</i><i>W</i><sub>down</sub>)<i>W</i><sub>up</sub>,&nbsp; "
                      "after attention and after the FFN"),
        note="He et al.'s adapter row (Houlsby: on both sublayers)")


class PfeifferAdapters(_BottleneckMethod):
    name = "pfeiffer"
    variant = "pfeiffer"
    title = "Pfeiffer adapters (Pfeiffer et al. 2021)"
    description = "One bottleneck network per layer, after the feed-forward block: half Houlsby's adapters."
    Config = PfeifferConfig
    attachment = Attachment(sites=("ffn_out", "head"), formula="h = U·ReLU(D·LN(f + x)) + r,  r = f",
                            residual="after the feed-forward block's residual add, before its LayerNorm")
    unified = UnifiedRow(
        functional_form="ReLU(h·W_down)·W_up", insertion="sequential", representation="feed-forward",
        composition="h ← h + Δh", formula="h ← h + ReLU(h·W_down)·W_up,  after the FFN",
        formula_html=("<i>h</i> ← <i>h</i> + ReLU(<i>h</i><i>W</i><sub>down</sub>)<i>W</i><sub>up</sub>,&nbsp; "
                      "after the FFN"),
        note="He et al.'s adapter row, on the feed-forward output only (Pfeiffer)")
