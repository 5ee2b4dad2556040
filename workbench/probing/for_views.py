"""What the probing view uses from the engine: the sweep's per-layer result types and the file read report
(see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import engine_names, lazy_exports

FOR_VIEWS = engine_names({
    "probing.sweep": "LayerResult StsLayer",
    "data.rows": "ReadReport",
})
__all__ = sorted(FOR_VIEWS)
__getattr__ = lazy_exports(FOR_VIEWS, __name__)
