"""LoRA (Hu et al. 2021) through ``peft``: a trained low-rank update B·A beside frozen weight matrices."""

from __future__ import annotations

from dataclasses import dataclass, replace

from torch import nn

from lm_workbench.engine.plugin_api import (
    setting,
    API_VERSION, CLASSIC_TASKS, SENTENCE_TASK, LORA_SITES_OF_TARGET, SITES, Attachment, FineTuneMethod, UnifiedRow,
    merge_peft, with_representation, peft_task_type, resolve_lora_targets, wrap_with_peft,
)
from lm_workbench.plugins.finetune_methods.peft_io import PeftIO



@dataclass
class LoRAConfig:
    rank: int = setting(8, "r, the rank of the update B·A (A: r × d_in, B: d_out × r).", min=1, max=1024)
    alpha: float = setting(
        16.0, "α: the update is scaled by α/r, so changing r keeps the update's size (Hu et al. set α to the first r "
        "they try).", min=0.0, max=10000.0)
    dropout: float = setting(0.1, "Dropout on the input of A·x while training.", min=0.0, max=0.9)
    target_modules: str = setting(
        "query,value", "Comma-separated names of the linear layers to adapt, e.g. query,value (Hu et al.'s choice) or "
        "query,key,value,dense. query/key/value also find q_proj/q (BART, T5) and GPT-2's fused c_attn; a name that "
        "matches no layer is an error listing the layers there are.")


class LoRA(PeftIO, FineTuneMethod):
    api_version = API_VERSION
    name = "lora"
    title = "LoRA (Hu et al. 2021)"
    description = ("Each chosen weight matrix W₀ stays frozen and gains a trained low-rank update (α/r)·B·A; "
                   "B starts at zero, so training starts from the base model. Can be merged into W₀.")
    Config = LoRAConfig
    tasks = frozenset((*CLASSIC_TASKS, SENTENCE_TASK, "instruct", "preference"))  # the newer tasks by name
    default_lr = 1e-3
    lr_reason = ("The update starts at zero and has few parameters, so it needs steps an order of magnitude "
                 "larger than full fine-tuning (Hu et al. used 2e-4 to 5e-4 on RoBERTa; 1e-3 trains faster "
                 "on small data).")
    attachment = Attachment(sites=("query", "value", "head"), formula="h = W₀x + (α/r)·B·A·x",
                            residual="inside the attention projections, parallel to the frozen W₀; "
                                     "no new residual path")
    can_merge = True
    unified = UnifiedRow(
        functional_form="x·W_down·W_up", insertion="parallel", representation="attention", composition="h ← h + s·Δh",
        formula="h ← h + s·x·W_down·W_up,  s = α/r",
        formula_html=("<i>h</i> ← <i>h</i> + <i>s</i>·<i>x</i><i>W</i><sub>down</sub><i>W</i><sub>up</sub>,"
                      "&nbsp; <i>s</i> = α/<i>r</i>"),
        note="He et al.'s LoRA row (on the query and value projections by default)")

    def unified_for(self, config: LoRAConfig) -> UnifiedRow:
        return with_representation(self.unified, self.attachment_for(config).sites)

    def apply(self, model: nn.Module, config: LoRAConfig, task: str) -> nn.Module:
        from peft import LoraConfig

        self.check_task(task)
        self.check_config(config)
        heads = self.trained_heads(model)
        targets = resolve_lora_targets(model, config.target_modules, exclude=tuple(heads or ()))
        peft_config = LoraConfig(
            task_type=peft_task_type(task, model), r=config.rank, lora_alpha=config.alpha, lora_dropout=config.dropout,
            target_modules=targets.names, fan_in_fan_out=targets.fan_in_fan_out, modules_to_save=heads)
        return wrap_with_peft(model, peft_config, self.name)

    def attachment_for(self, config: LoRAConfig) -> Attachment:
        names = [name.strip() for name in config.target_modules.split(",") if name.strip()]
        sites = {site for name in names for site in LORA_SITES_OF_TARGET.get(name, ())}
        ordered = tuple(site for site in SITES if site in sites) + ("head",)
        return replace(self.attachment, sites=ordered)

    def merge(self, model: nn.Module) -> nn.Module:
        return merge_peft(model)
