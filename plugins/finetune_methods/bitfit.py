"""BitFit (Ben Zaken et al. 2022): only the bias vectors and the task head train."""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

from lm_workbench.engine.plugin_api import (
    API_VERSION, CLASSIC_TASKS, SENTENCE_TASK, Attachment, BitFitConfig, FineTuneMethod, UnifiedRow, apply_bitfit,
    head_prefixes,
)
from lm_workbench.plugins.finetune_methods.own_weights import TrainedTensorsIO


@dataclass
class BitFitSettings:
    """BitFit has nothing to set: which tensors train follows from the model."""


class BitFit(TrainedTensorsIO, FineTuneMethod):
    api_version = API_VERSION
    name = "bitfit"
    title = "BitFit (Ben Zaken et al. 2022)"
    description = "Only the bias terms of every layer (about 0.1% of the weights) and the task head train."
    Config = BitFitSettings
    tasks = frozenset(CLASSIC_TASKS) | {SENTENCE_TASK}  # the sentence task declared explicitly (issue 32)
    default_lr = 1e-3
    lr_reason = ("Biases are few and start far from what the task needs, so they take large steps (1e-4 to "
                 "1e-3 in the paper) without disturbing the frozen matrices.")
    attachment = Attachment(sites=("bias", "head"), formula="y = W₀x + b,  only b trains",
                            residual="none added: the biases on both residual paths shift", adds_modules=False)
    unified = UnifiedRow(
        functional_form="Δb (a constant vector)", insertion="parallel", representation="both",
        composition="h ← h + Δb", formula="h ← W₀x + b₀ + Δb", formula_html="<i>h</i> ← <i>W</i><sub>0</sub><i>x</i> + "
        "<i>b</i><sub>0</sub> + Δ<i>b</i>", note="Δh does not depend on x: a shift of every layer's output")

    def apply(self, model: nn.Module, config: BitFitSettings, task: str) -> nn.Module:
        self.check_task(task)
        self.check_config(config)
        heads = list(head_prefixes(model, None))  # seq2seq models have none: their LM head stays frozen
        apply_bitfit(model, BitFitConfig(modules_to_save=heads))
        return self.remember(model, config, task)
