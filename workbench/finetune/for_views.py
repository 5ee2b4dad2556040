"""What the fine-tuning and runs views use from the engine: the demo files, the footprint estimates and
the merge methods' names (see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import engine_names, lazy_exports

FOR_VIEWS = engine_names({
    "finetune.demo": "demo_path demo_validation_path",
    "finetune.footprint": "CPU_ESTIMATE CUDA_PEAK",
    "finetune.merge_math": "DENSITY_HOWS FACTOR_HOWS HOWS SEEDED_HOWS",
})
__all__ = sorted(FOR_VIEWS)
__getattr__ = lazy_exports(FOR_VIEWS, __name__)
