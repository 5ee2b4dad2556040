"""One model anatomy: where each family keeps its parts, hook points by name, and one hook toolkit.

- ``tables``: the per-family attribute names (the only place that names them);
- ``points``: ``hook_points(loaded)`` and ``resolve(loaded, name)`` in TransformerLens's vocabulary, the blocks
  and per-layer modules of each stack (``docs/model-anatomy.md``);
- ``hooks``: keep or replace a module's input or output within a ``with`` block;
- ``heads``: where each attention's heads and each MLP write (direct logit attribution, ablation);
- ``adapter_sites``: where bottleneck and parallel adapters attach.
"""

from lm_workbench.engine.anatomy.points import (
    HookSite, blocks_of, final_norm, hook_points, layer_modules, resolve, stack_blocks, transformer_blocks,
)
from lm_workbench.engine.anatomy.tables import submodule

__all__ = ["HookSite", "blocks_of", "final_norm", "hook_points", "layer_modules", "resolve", "stack_blocks",
           "submodule", "transformer_blocks"]
