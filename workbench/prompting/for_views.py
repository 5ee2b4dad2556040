"""What the prompting views use from the engine: templates, verbalizers and the model checks (see
lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import engine_names, lazy_exports

FOR_VIEWS = engine_names({
    "prompting.scoring": "answer_tokenizations check_model_for",
    "prompting.template": "Template",
    "prompting.verbalizer": "Verbalizer",
    "prompting.model_check": "small_model_note",
})
__all__ = sorted(FOR_VIEWS)
__getattr__ = lazy_exports(FOR_VIEWS, __name__)
