"""Prefix tuning (Li & Liang 2021) through ``peft``: trained key/value vectors prepended in every attention layer.

peft makes and saves the prefix; the workbench hands it to the model (``supply_prefix``) as a prefilled
key/value cache, so it does not depend on what a transformers release calls that argument.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from torch import nn

from lm_workbench.engine.plugin_api import (
    setting,
    API_VERSION, CLASSIC_TASKS, SENTENCE_TASK, Attachment, FineTuneMethod, UnifiedRow, load_peft, peft_task_type,
    supply_prefix, wrap_with_peft,
)
from lm_workbench.plugins.finetune_methods.peft_io import PeftIO


@dataclass
class PrefixConfig:
    num_virtual_tokens: int = setting(
        20, "n, the prefix length: n trained key and value vectors per layer. peft counts them as positions, so real "
        "tokens start at position n: n plus the longest input must fit the model's position table.", min=1, max=256)
    prefix_projection: bool = setting(
        True, "Reparameterise while training: the prefix is an MLP of n smaller vectors (Li & Liang found direct "
        "training unstable); the saved prefix is the MLP's output, so the MLP is not saved.")
    encoder_hidden_size: int = setting(
        128, "Hidden width of that reparameterisation MLP (d -> this -> 2·layers·d).", min=1, max=4096)


class PrefixTuning(PeftIO, FineTuneMethod):
    api_version = API_VERSION
    name = "prefix"
    title = "Prefix tuning (Li & Liang 2021)"
    description = ("Every attention layer attends to n trained key/value pairs before the real tokens; the "
                   "model's weights stay frozen. peft's PrefixEncoder makes those keys and values; the workbench "
                   "hands them to the model as a prefilled key/value cache (under the name the model's forward "
                   "declares) and widens the attention mask by n.")
    Config = PrefixConfig
    tasks = frozenset((*CLASSIC_TASKS, SENTENCE_TASK, "instruct"))  # the newer tasks declared by name
    default_lr = 1e-3
    lr_reason = ("The prefix starts random and only steers attention, so it takes PEFT-sized steps; through "
                 "the reparameterisation MLP 1e-3 trains MiniLM's demo sentiment set and 1e-2 diverged "
                 "(without the MLP, 1e-2 works, as in P-tuning v2).")
    attachment = Attachment(sites=("prefix", "head"),
                            formula="head = softmax(q·[P_k; K]ᵀ/√d)·[P_v; V]",
                            residual="inside attention: extra keys and values, no new residual path")
    unified = UnifiedRow(
        functional_form="softmax(x·W_q·P_kᵀ)·P_v", insertion="parallel", representation="attention",
        composition="h ← (1 − λ)h + λΔh", formula="h ← (1 − λ(x))·h + λ(x)·softmax(x·W_q·P_kᵀ)·P_v",
        formula_html=("<i>h</i> ← (1 − λ(<i>x</i>))<i>h</i> + λ(<i>x</i>)·softmax(<i>x</i><i>W</i><sub>q</sub>"
                      "<i>P</i><sub>k</sub><sup>T</sup>)<i>P</i><sub>v</sub>"),
        note="He et al.'s prefix-tuning row: λ(x) is the attention mass the prefix takes, per head")

    def apply(self, model: nn.Module, config: PrefixConfig, task: str) -> nn.Module:
        from peft import PrefixTuningConfig

        self.check_task(task)
        self.check_config(config)
        peft_config = PrefixTuningConfig(
            task_type=peft_task_type(task, model), num_virtual_tokens=config.num_virtual_tokens,
            prefix_projection=config.prefix_projection, encoder_hidden_size=config.encoder_hidden_size,
            modules_to_save=self.trained_heads(model))
        return supply_prefix(wrap_with_peft(model, peft_config, self.name))

    def load(self, base_model: nn.Module, folder: Path) -> nn.Module:
        return supply_prefix(load_peft(base_model, folder))
