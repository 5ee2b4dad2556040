"""What the probing view uses from the engine: the sweep's per-layer result types and the file read report
(see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import engine_exports

FOR_VIEWS, __all__, __getattr__ = engine_exports(__name__, {
    "probing.sweep": "LayerResult StsLayer",
    "data.rows": "ReadReport",
})
