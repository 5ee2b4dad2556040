"""Which commands are computed here (``compute``, ``compute_why``, ``compute_evaluations``, ``compute_steer``,
``compute_embeddings``, ``compute_sae``, ``compute_guide``, ``compute_store``, ``compute_studies``,
``compute_models``, ``compute_presets``, ``compute_training``, ``compute_course``) rather than in their CLI
handler: the Python API runs these directly on the model it holds, and their CLI handlers call the same
functions."""

from __future__ import annotations

from typing import Any, Callable

from lm_workbench.command_results import (
    compute, compute_course, compute_embeddings, compute_evaluations, compute_guide, compute_models, compute_presets,
    compute_sae, compute_steer, compute_store, compute_studies, compute_training, compute_why,
)

COMPUTED: dict[str, Callable[[Any, Any], Any]] = {
    "info": compute.info, "encode": compute.encode, "attention": compute.attention, "fill-mask": compute.fill_mask,
    "next-token": compute.next_token, "lens": compute_why.lens, "dla": compute_why.dla,
    "attribute": compute_why.attribute, "ablate": compute_why.ablate, "generate": compute_why.generate,
    "patch": compute_why.patch, "steer": compute_steer.steer, "probe": compute_evaluations.probe,
    "sts": compute_evaluations.sts, "scalar-mix": compute_evaluations.scalar_mix,
    "prompt-eval": compute_evaluations.prompt_eval, "retrieval-eval": compute_evaluations.retrieval_eval,
    "retrieve": compute_evaluations.retrieve, "neighbours": compute_embeddings.neighbours,
    "project": compute_embeddings.project, "sae eval": compute_sae.sae_eval, "sae features": compute_sae.sae_features,
    "sae show": compute_sae.sae_show, "sae search": compute_sae.sae_search,
    "guide list": compute_guide.guide_list, "guide show": compute_guide.guide_show,
    "guide check": compute_guide.guide_check, "guide progress": compute_guide.guide_progress,
    "runs list": compute_store.runs_list, "runs diff": compute_store.runs_diff,
    "plugins list": compute_store.plugins_list, "study list": compute_studies.study_list,
    "study table": compute_studies.study_table, "compare": compute_models.compare,
    "download": compute_models.download, "corrupt": compute_models.corrupt, "predict": compute_models.predict,
    "finetune-merge": compute_models.finetune_merge, "presets list": compute_presets.presets_list,
    "presets check": compute_presets.presets_check, "presets verify": compute_presets.presets_verify,
    "pretrain": compute_training.pretrain, "finetune": compute_training.finetune,
    "tuned-lens": compute_training.tuned_lens, "sae train": compute_training.sae_train,
    "course-models": compute_course.course_models, "baseline tfidf-lr": compute_course.baseline,
    "baseline bilstm": compute_course.baseline, "study run": compute_studies.study_run,
}
# computed commands that read no loaded model (called with None; ``guide check`` loads the model it names itself)
MODELLESS = frozenset({
    "guide list", "guide show", "guide check", "guide progress", "runs list", "runs diff", "plugins list",
    "study list", "study table", "study run", "compare", "download", "corrupt", "predict", "finetune-merge",
    "presets list", "presets check", "presets verify", "pretrain", "finetune", "course-models", "baseline tfidf-lr",
    "baseline bilstm",
})


def computed_for(request: Any) -> Callable[[Any, Any], Any] | None:
    """The function that computes ``request`` (None for ``gui``, which opens the window)."""
    return COMPUTED.get(request.COMMAND)
