"""What the pre-training views and config forms use from the engine: the training config, its fields and
the Python-docs corpus, the article rule for a family's name (see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import engine_exports

FOR_VIEWS, __all__, __getattr__ = engine_exports(__name__, {
    "training.config": "TrainingConfig training_config_fields",
    "objectives.config_fields": "ConfigField config_fields",
    "pretrain.python_docs": "python_docs_corpus",
    "wording": "with_article",
})
