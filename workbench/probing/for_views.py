"""What the probing view uses from the engine: the sweep's per-layer result types and the file read report
(see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import lazy_exports

_E = "lm_workbench.engine."
FOR_VIEWS = {
    "LayerResult": _E + "probing.sweep",
    "StsLayer": _E + "probing.sweep",
    "ReadReport": _E + "data.rows",
}
__all__ = sorted(FOR_VIEWS)
__getattr__ = lazy_exports(FOR_VIEWS, __name__)
