"""Which command is which API name: ``Model`` methods for the commands that read one model, ``lm_workbench``
functions for the rest; the names are the CLI's with underscores for hyphens (``fill-mask`` -> ``fill_mask``,
``runs list`` -> ``runs``). Light: no torch.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from lm_workbench.requests import ModelRequest

# the options of ModelRequest that say how to load a model: ``lw.load``'s, not a method's
LOAD_OPTIONS = tuple(f.name for f in dataclasses.fields(ModelRequest))
MODEL_METHODS = {command: command.replace("-", "_").replace(" ", "_") for command in (
    "info", "encode", "attention", "fill-mask", "next-token", "lens", "tuned-lens", "attribute", "patch", "dla",
    "ablate", "neighbours", "project", "probe", "sts", "scalar-mix", "prompt-eval", "generate", "finetune",
    "retrieve", "retrieval-eval", "sae train", "steer")}
FUNCTIONS = {
    "compare": "compare", "corrupt": "corrupt", "pretrain": "pretrain", "course-models": "course_models",
    "finetune": "finetune", "finetune-merge": "finetune_merge", "predict": "predict", "runs list": "runs",
    "download": "download", "presets list": "presets", "presets check": "presets_check",
    "presets verify": "presets_verify", "plugins list": "plugins", "gui": "gui",
    "study run": "study", "study list": "study_list", "study table": "study_table", "runs diff": "runs_diff",
    "guide list": "guide_list", "guide show": "guide_show", "guide check": "guide_check",
    "guide progress": "guide_progress", "baseline tfidf-lr": "baseline_tfidf_lr", "baseline bilstm": "baseline_bilstm",
    "sae eval": "sae_eval", "sae features": "sae_features", "sae show": "sae_show", "sae search": "sae_search",
}
# the generated files, one per group of commands (a file per group keeps each small: scripts/generate_api.py)
MODEL_METHOD_GROUPS = {
    "reading": ("info", "encode", "attention", "fill-mask", "next-token", "neighbours", "project", "scalar-mix",
                "generate"),
    "interpreting": ("lens", "tuned-lens", "attribute", "patch", "dla", "ablate", "sae train", "steer"),
    "evaluating": ("probe", "sts", "prompt-eval", "finetune", "retrieve", "retrieval-eval"),
}
FUNCTION_GROUPS = {
    "training": ("pretrain", "course-models", "corrupt", "finetune", "finetune-merge", "predict",
                 "baseline tfidf-lr", "baseline bilstm"),
    "store": ("compare", "runs list", "runs diff", "download", "presets list", "presets check", "presets verify",
              "plugins list", "gui"),
    "studies": ("study run", "study list", "study table", "guide list", "guide show", "guide check",
                "guide progress", "sae eval", "sae features", "sae show", "sae search"),
}
# arguments given by position (the CLI's positionals, and a method's text)
POSITIONAL = {
    "compare": ("model_a", "model_b"), "finetune": ("model",), "finetune-merge": ("folders",),
    "predict": ("folder",), "download": ("repo_id",), "presets check": ("file",), "presets verify": ("presets",),
    "gui": ("model",), "study run": ("study",), "study table": ("study",), "runs diff": ("a", "b"),
    "guide show": ("page",), "guide check": ("page",), "sae eval": ("sae_dir",), "sae features": ("sae_dir",),
    "sae show": ("sae_dir",), "sae search": ("sae_dir",), **{command: ("text",) for command in (
        "encode", "attention", "fill-mask", "next-token", "lens", "attribute", "dla", "ablate", "generate")},
}
FILE_OUTPUTS = {"encode": ".npz", "project": ".csv"}  # --out optional in the API: the result keeps the data


def api_name(command: str) -> str:
    """The API's name of ``command``."""
    return MODEL_METHODS.get(command) or FUNCTIONS[command]


def model_fields(cls: Any) -> list[dataclasses.Field]:
    """A one-model command's fields without the load options (and ``finetune``'s model, the method's model)."""
    return [f for f in dataclasses.fields(cls) if f.name not in LOAD_OPTIONS]
