"""What the pre-training views and config forms use from the engine: the training config, its fields and
the Python-docs corpus, the article rule for a family's name (see lm_workbench.lazy_exports)."""

from __future__ import annotations

from lm_workbench.lazy_exports import lazy_exports

_E = "lm_workbench.engine."
FOR_VIEWS = {
    "TrainingConfig": _E + "training.config",
    "training_config_fields": _E + "training.config",
    "ConfigField": _E + "objectives.config_fields",
    "config_fields": _E + "objectives.config_fields",
    "python_docs_corpus": _E + "pretrain.python_docs",
    "with_article": _E + "wording",
}
__all__ = sorted(FOR_VIEWS)
__getattr__ = lazy_exports(FOR_VIEWS, __name__)
