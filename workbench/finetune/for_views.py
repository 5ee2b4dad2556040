"""What the fine-tuning and runs views use from the engine: the demo files, the footprint estimates and
the merge methods' names (see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import engine_exports

FOR_VIEWS, __all__, __getattr__ = engine_exports(__name__, {
    "finetune.demo": "demo_path demo_validation_path",
    "finetune.footprint": "CPU_ESTIMATE CUDA_PEAK",
    "finetune.merge_math": "DENSITY_HOWS FACTOR_HOWS HOWS SEEDED_HOWS",
})
