"""What the fine-tuning and runs views use from the engine: the demo files, the footprint estimates and
the merge methods' names (see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import lazy_exports

_E = "lm_workbench.engine."
FOR_VIEWS = {
    "demo_path": _E + "finetune.demo",
    "demo_validation_path": _E + "finetune.demo",
    "CPU_ESTIMATE": _E + "finetune.footprint",
    "CUDA_PEAK": _E + "finetune.footprint",
    "DENSITY_HOWS": _E + "finetune.merge_math",
    "FACTOR_HOWS": _E + "finetune.merge_math",
    "HOWS": _E + "finetune.merge_math",
    "SEEDED_HOWS": _E + "finetune.merge_math",
}
__all__ = sorted(FOR_VIEWS)
__getattr__ = lazy_exports(FOR_VIEWS, __name__)
