"""Bottleneck adapters (Houlsby et al. 2019; Pfeiffer et al. 2021) in the shape of a ``peft`` method."""

from lm_workbench.engine.finetune.methods.bottleneck.config import BottleneckConfig
from lm_workbench.engine.finetune.methods.bottleneck.layer import BottleneckAdapter, NormWithAdapter, WithAdapter
from lm_workbench.engine.finetune.methods.bottleneck.model import add_bottleneck_adapters, adapter_sites

__all__ = [
    "BottleneckAdapter", "BottleneckConfig", "NormWithAdapter", "WithAdapter", "adapter_sites", "add_bottleneck_adapters",
]
