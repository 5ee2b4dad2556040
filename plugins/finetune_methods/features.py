"""Feature-based (ELMo-style): the model stays frozen; a scalar mix of all its layers feeds a small task head."""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

from lm_workbench.engine.plugin_api import (
    setting,
    API_VERSION, FEATURE_TASKS, POOLINGS, SENTENCE_TASK, Attachment, FeatureBasedModel, FineTuneMethod,
    SentenceFeatureModel, UnifiedRow, pooling_name,
)
from lm_workbench.plugins.finetune_methods.own_weights import TrainedTensorsIO


@dataclass
class FeaturesConfig:
    pooling: str = setting(
        "mean", "Sentence tasks: the mean of the mixed vectors over the real tokens (works whether or not the first "
        "token was trained to sum up the sentence), the first token's ([CLS]), or the last real token's (for a "
        "left-to-right model such as GPT-2).", choices=POOLINGS)
    dropout: float = setting(0.1, "Dropout on the mixed vectors before the head.", min=0.0, max=0.9)

    def __post_init__(self) -> None:
        self.pooling = pooling_name(self.pooling)  # "first" (a saved run's or an old preset's) is "cls"


class FeatureBased(TrainedTensorsIO, FineTuneMethod):
    api_version = API_VERSION
    name = "features"
    title = "Feature-based (scalar mix, Peters et al. 2018)"
    description = ("The model is not changed: a learned softmax-weighted mix of the embeddings and every "
                   "layer's output (times γ) feeds a linear task head.")
    Config = FeaturesConfig
    tasks = frozenset(FEATURE_TASKS) | {SENTENCE_TASK}  # the sentence task: the mix is the encoder's output
    default_lr = 5e-3
    lr_reason = ("Only L+2 mixing scalars and a new linear head train, from scratch on frozen features, as "
                 "for a probe: large steps are safe (on MiniLM's demo sentiment set 1e-3 had not converged "
                 "after 40 steps, 3e-3 to 1e-2 had).")
    attachment = Attachment(sites=("layers", "head"), formula="h = γ·Σⱼ softmax(s)ⱼ·hⱼ,  j = 0 … L",
                            residual="outside the blocks: reads every block's output, changes none")
    unified = UnifiedRow(
        functional_form="none: no hidden state changes", insertion="—", representation="—",
        composition="features = γ·Σⱼ sⱼ·hⱼ", formula="h_task ← γ·Σⱼ softmax(s)ⱼ·hⱼ", formula_html=(
            "<i>h</i><sub>task</sub> ← γ·Σ<sub><i>j</i></sub> softmax(<i>s</i>)<sub><i>j</i></sub><i>h</i>"
            "<sub><i>j</i></sub>"), note="outside the framework: the model is read, never modified (ELMo's scalar mix)")

    def apply(self, model: nn.Module, config: FeaturesConfig, task: str) -> nn.Module:
        self.check_task(task)
        self.check_config(config)
        if task == SENTENCE_TASK:  # no head: the mix of the frozen layers is pooled (the run's --pooling)
            return self.remember(SentenceFeatureModel(model), config, task)
        return self.remember(FeatureBasedModel(model, task, config.pooling, config.dropout), config, task)
