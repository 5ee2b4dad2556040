"""Pre-training's names that the form, the run spec and the CLI read without importing torch.

Only plain constants live here (the ``*.names`` import contract in pyproject.toml keeps them light).
"""

from __future__ import annotations

FAMILIES = ("bert", "gpt2", "bart", "t5", "elmo")
# The transformer size presets: name -> (layers, hidden size) (lm_workbench.engine.pretrain.architectures).
TRANSFORMER_SIZES = {"tiny": (2, 128), "mini": (4, 256), "small": (4, 512), "base": (12, 768)}
TRANSFORMER_PRESETS = tuple(TRANSFORMER_SIZES)
# The ELMo presets (lm_workbench.engine.elmo.presets.ELMO_PRESETS, whose configs need the ELMo code).
ELMO_PRESET_NAMES = ("tiny", "course")
