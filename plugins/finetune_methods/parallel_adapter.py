"""Parallel adapters (He et al. 2022): a bottleneck beside the attention or feed-forward sublayer, scale s.

``--parallel-adapter-scale 4`` is He et al.'s *scaled* parallel adapter (their best single method on the
FFN); scale 1 is the plain parallel adapter.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from torch import nn

from lm_workbench.engine.plugin_api import (
    setting,
    API_VERSION, Attachment, FineTuneMethod, UnifiedRow, add_parallel_adapters, head_prefixes,
)
from lm_workbench.plugins.finetune_methods.own_weights import TrainedTensorsIO

SITE_CHOICES = {"ffn": ("feed_forward",), "attention": ("attention",), "both": ("attention", "feed_forward")}
DIAGRAM_SITES = {"attention": "parallel_attention", "feed_forward": "parallel_ffn"}
REPRESENTATION = {"ffn": "feed-forward", "attention": "attention", "both": "both"}


@dataclass
class ParallelAdapterConfig:
    site: str = setting(
        "ffn", "Which sublayer the adapter sits beside: ffn (He et al.'s better choice), attention, or both.",
        choices=tuple(SITE_CHOICES))
    reduction_factor: int = setting(
        16, "Bottleneck width m = hidden size / this; each adapter has 2·m·d + m + d parameters (16 on MiniLM: m = "
        "24).", min=1, max=1024)
    scale: float = setting(
        1.0, "s in h ← h + s·Δh: 1 is the plain parallel adapter, 4 He et al.'s scaled parallel adapter.",
        min=0.001, max=100.0)
    non_linearity: str = setting(
        "relu", "The non-linearity between the projections.", choices=("relu", "gelu", "tanh", "swish"))
    init_scale: float = setting(
        1e-3, "Standard deviation of the up-projection's start weights (0 = zeros): near 0 the adapter adds almost "
        "nothing at first, so training starts from the base model.", min=0.0, max=1.0)


PARALLEL_ROW = UnifiedRow(
    functional_form="ReLU(x·W_down)·W_up", insertion="parallel", representation="feed-forward",
    composition="h ← h + s·Δh", formula="h ← h + s·ReLU(x·W_down)·W_up,  x = the sublayer's input",
    formula_html="<i>h</i> ← <i>h</i> + <i>s</i>·ReLU(<i>x</i><i>W</i><sub>down</sub>)<i>W</i><sub>up</sub>"
                 ",&nbsp; <i>x</i> = the sublayer's input",
    note="He et al.'s parallel adapter; s = 4 is their scaled parallel adapter (s = 1 the plain one)")


class ParallelAdapter(TrainedTensorsIO, FineTuneMethod):
    api_version = API_VERSION
    name = "parallel-adapter"
    title = "Parallel adapter (He et al. 2022)"
    description = ("A bottleneck network beside the feed-forward (or attention) sublayer: it reads the "
                   "sublayer's input x and adds s·ReLU(x·W_down)·W_up to its output, before the residual add. "
                   "Scale 4 is He et al.'s scaled parallel adapter.")
    Config = ParallelAdapterConfig
    # BERT-style encoders, GPT-2, Llama-style decoders, BART and T5 (seq2seq and instruct on those that take them)
    tasks = frozenset({"seq-cls", "token-cls", "qa", "seq2seq", "instruct"})
    default_lr = 1e-3
    lr_reason = ("Like the sequential adapters it starts near zero and is small, so it takes PEFT-sized steps "
                 "(He et al. used 5e-5 to 1e-4 on BART-large with far more steps; 1e-3 trains small data).")
    attachment = Attachment(sites=("parallel_ffn", "head"), formula="h ← h + s·ReLU(x·W_down)·W_up",
                            residual="beside the sublayer: reads its input x, adds to its output before the "
                                     "residual add (no new residual path)")
    unified = PARALLEL_ROW

    def apply(self, model: nn.Module, config: ParallelAdapterConfig, task: str) -> nn.Module:
        self.check_task(task)
        self.check_config(config)
        add_parallel_adapters(model, sublayers=SITE_CHOICES[config.site], reduction_factor=config.reduction_factor,
                              scale=config.scale, non_linearity=config.non_linearity, init_scale=config.init_scale,
                              method=self.name, modules_to_save=list(head_prefixes(model, None)))
        return self.remember(model, config, task)

    def attachment_for(self, config: ParallelAdapterConfig) -> Attachment:
        sites = tuple(DIAGRAM_SITES[s] for s in SITE_CHOICES[config.site]) + ("head",)
        return replace(self.attachment, sites=sites)

    def unified_for(self, config: ParallelAdapterConfig) -> UnifiedRow:
        return replace(self.unified, representation=REPRESENTATION[config.site])
