"""The Explain jobs every view runs: which target, then its attribution and the raw attention of a layer.

``make_explain_job(model, target_of, method, layer)`` is the one builder: ``target_of(model)`` finds the target
on the worker thread, ``lm_workbench.engine.attribution.explain.explain_job`` attributes it. The views' targets:
``prediction_job`` (Predictions: ids, a mask position or an encoder-decoder's text), ``prompt_label_job``
(Prompting: a label's score), ``run_label_job`` (Fine-tune: a run's predicted label, its model from
``run_models``) and ``prediction_in_a_and_b_job`` (Predictions with a model B: A's, then B's for A's word).
Their requests are typed (``lm_workbench.attribution.targets``); each carries a ``Foil`` ("instead of": a typed
``contrast``, or ``second_choice``: the model's best other token or label), and B's side gets A's foil word as B
spells it.
"""

from __future__ import annotations

from typing import Any, Callable, Generator

from lm_workbench.attribution.run_models import RUN_MODELS, RunModels
from lm_workbench.attribution.targets import Foil, LabelTarget, ModelBPrediction, NO_FOIL, PredictionTarget

Job = Callable[[Any], Any]


def explain_steps_for(model: Any, target_of: Callable[[Any], Any], method: str, layer: int, cancel: Any
                      ) -> Generator[Any, None, Any]:
    """The ``Explanation`` of ``target_of(model)`` by ``method`` with the attention row of ``layer``."""
    from lm_workbench.engine.attribution.explain import explain_job  # imports torch: on the worker thread

    cancel.check()
    target = target_of(model)
    return (yield from explain_job(model, target, method, layer=layer, cancel=cancel))


def make_explain_job(model: Any, target_of: Callable[[Any], Any], method: str, layer: int) -> Job:
    """``fn(cancel)``: the ``Explanation`` of ``target_of(model)``'s target."""
    return lambda cancel: explain_steps_for(model, target_of, method, layer, cancel)


def prediction_target_of(request: PredictionTarget) -> Callable[[Any], Any]:
    """The target of a prediction a view shows (``lm_workbench.engine.attribution.explain.prediction_target``)."""

    def target_of(model: Any) -> Any:
        from lm_workbench.engine.attribution.explain import prediction_target

        return prediction_target(model, **request.keywords())

    return target_of


def prediction_job(loaded: Any, request: PredictionTarget, method: str, layer: int) -> Job:
    """Predictions: the explanation of the prediction ``request`` names."""
    return make_explain_job(loaded, prediction_target_of(request), method, layer)


def prediction_in_a_and_b_job(loaded: Any, request: PredictionTarget, b: Any, b_request: ModelBPrediction,
                              method: str, layer: int) -> Job:
    """Predictions with a model B: ``(A's explanation, B's Counterpart)``, B's of the same prediction for A's
    target word (at the same mask, after the same text, or B's first output token)."""

    def job(cancel: Any):
        from lm_workbench.engine.attribution.counterpart import counterpart_job, target_word

        a = yield from explain_steps_for(loaded, prediction_target_of(request), method, layer, cancel)
        cancel.check()
        word = target_word(loaded, a.attribution.target_id)
        foil = target_word(loaded, a.attribution.contrast_id) if a.attribution.contrast_id is not None else None
        b_side = yield from counterpart_job(b, b_request.text, b_request.kind, word, method, layer,
                                            b_request.mask_index, cancel=cancel, foil=foil)
        return a, b_side

    return job


def prompt_label_job(loaded: Any, scored: Any, label: str | None, method: str, layer: int,
                     foil: Foil = NO_FOIL) -> Job:
    """Prompting: the explanation of ``label``'s score in ``scored`` (a ``ScoredPrompt`` of ``loaded``): its
    first answer token at the answer slot, on the filled prompt's ids exactly as scoring read them; with a foil
    label (``contrast``, or ``second_choice``: the best-scoring other label) minus that label's."""

    def target_of(model: Any) -> Any:
        from lm_workbench.engine.attribution.prompt import prompt_label_target

        return prompt_label_target(model, scored, label, foil.contrast, foil.second_choice)

    return make_explain_job(loaded, target_of, method, layer)


def run_label_job(out_dir: str, request: LabelTarget, method: str, layer: int,
                  models: RunModels = RUN_MODELS) -> Job:
    """Fine-tune: the explanation of the run's label for one input (``request``: text, text2, label, foil);
    the run's model is reloaded from ``out_dir`` on the worker thread (``models`` keeps the last one)."""

    def target_of(model: Any) -> Any:
        from lm_workbench.engine.attribution.classifier import classifier_target

        return classifier_target(model, **request.keywords())

    def job(cancel: Any):
        model = models.get(out_dir)
        return (yield from explain_steps_for(model, target_of, method, layer, cancel))

    return job
