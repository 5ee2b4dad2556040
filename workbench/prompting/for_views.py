"""What the prompting views use from the engine: templates, verbalizers and the model checks (see
lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import engine_exports

FOR_VIEWS, __all__, __getattr__ = engine_exports(__name__, {
    "prompting.scoring": "answer_tokenizations check_model_for",
    "prompting.template": "Template",
    "prompting.verbalizer": "Verbalizer",
    "prompting.model_check": "small_model_note",
})
