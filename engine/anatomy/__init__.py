"""One model anatomy: where each family keeps its parts, hook points by name, and one hook toolkit.

- ``tables``: the per-family attribute names (the only place that names them; no torch, so the fine-tuning
  names can read them before a model is loaded);
- ``lookup``: finding modules by those paths;
- ``points``: ``hook_points(loaded)`` and ``resolve(loaded, name)`` in TransformerLens's vocabulary, the blocks
  and per-layer modules of each stack, the final norm and the masked-LM head (``docs/model-anatomy.md``);
- ``hooks``: keep or replace a module's input or output within a ``with`` block;
- ``adapter_sites``: where bottleneck and parallel adapters attach.

Nothing is imported here: ``from lm_workbench.engine.anatomy.points import resolve``.
"""
