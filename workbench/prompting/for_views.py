"""What the prompting views use from the engine: templates, verbalizers and the model checks (see
lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import lazy_exports

_E = "lm_workbench.engine."
FOR_VIEWS = {
    "answer_tokenizations": _E + "prompting.scoring",
    "check_model_for": _E + "prompting.scoring",
    "Template": _E + "prompting.template",
    "Verbalizer": _E + "prompting.verbalizer",
    "small_model_note": _E + "prompting.model_check",
}
__all__ = sorted(FOR_VIEWS)
__getattr__ = lazy_exports(FOR_VIEWS, __name__)
