"""The Predictions view's metrics: its predictions for the step's text and Explain's attribution of the top one.

The predictions are the view's jobs (``lm_workbench.predictions.view_tasks``): a decoder's next token after the text,
a masked LM's top tokens at each mask (the first mask is explained), an encoder-decoder's output (its first
token is explained); top k = 5 as the view shows. Explain is ``lm_workbench.attribution.view_tasks.prediction_job``
with the step's ``method`` (default grad-input), ``layer`` (the attention row under the tokens; default -1, the
last) and foil (``contrast``, or ``second_choice``: the model's runner-up), for the top prediction.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.attribution.targets import PredictionTarget
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.metrics.base import Metric, StepRun, finite, metrics_of, token_index

TOP_K = 5  # the view's default "top k"


def _predictions(run: StepRun) -> dict[str, Any]:
    """{"candidates": [Candidate] of the explained position, "request": Explain's request}."""

    def build() -> dict[str, Any]:
        from lm_workbench.engine.progress import NEVER_CANCELLED
        from lm_workbench.predictions.view_tasks import fill_masks, infill_text, next_tokens

        loaded, text = run.loaded, run.text()
        family = str(getattr(loaded.info.family, "value", loaded.info.family))
        if family == "biLM":
            raise WorkbenchError("the Predictions view does not predict with a biLM (ELMo)")
        if family == "decoder":
            shown = next_tokens(loaded, text, None, TOP_K, NEVER_CANCELLED)
            cands = shown["candidates"]
            return {"candidates": cands, "request": PredictionTarget(ids=tuple(shown["ids"]), token_id=cands[0].id)}
        if family == "encoder-decoder":
            result, _tokens = infill_text(loaded, text, NEVER_CANCELLED)
            return {"candidates": [], "request": PredictionTarget(text=text), "output": result}
        _tokens, preds, ids, _text, _window = fill_masks(loaded, text, TOP_K, NEVER_CANCELLED)
        if not preds:
            raise WorkbenchError("the text has no mask token to fill")
        cands = preds[0].candidates
        return {"candidates": cands, "request": PredictionTarget(ids=tuple(ids), position=preds[0].position,
                                                                 token_id=cands[0].id if cands else None)}

    return run.once("predictions", build)


def _explanation(run: StepRun) -> Any:
    def build() -> Any:
        from lm_workbench.attribution.view_tasks import prediction_job
        from lm_workbench.engine.progress import NEVER_CANCELLED, run_to_completion

        from lm_workbench.attribution.targets import Foil

        request = _predictions(run)["request"]
        if run.settings.get("second_choice"):
            request = request.with_foil(Foil(second_choice=True))
        elif str(run.settings.get("contrast") or "").strip():
            request = request.with_foil(Foil(contrast=str(run.settings["contrast"])))
        method = str(run.settings.get("method", "grad-input"))
        layer = int(run.settings.get("layer", -1))
        return run_to_completion(prediction_job(run.loaded, request, method, layer)(NEVER_CANCELLED))

    return run.once("explanation", build)


def top_probability(run: StepRun, args: dict[str, Any]) -> float | None:
    cands = _predictions(run)["candidates"]
    if not cands:
        raise WorkbenchError("an encoder-decoder's output has no top-k list here")
    return finite(cands[0].prob)


def probability(run: StepRun, args: dict[str, Any]) -> float | None:
    """The probability of ``token`` among the top k shown (0 when it is not among them)."""
    cands = _predictions(run)["candidates"]
    wanted = str(args["token"])
    return next((finite(c.prob) for c in cands if c.token == wanted or c.token.strip() == wanted.strip()), 0.0)


def top_position(run: StepRun, args: dict[str, Any]) -> float:
    """The input position with the largest attribution score (signed: the token that raises the metric most)."""
    scores = _explanation(run).attribution.scores
    return float(max(range(len(scores)), key=lambda i: scores[i]))


def score_of(run: StepRun, args: dict[str, Any]) -> float | None:
    a = _explanation(run).attribution
    return finite(a.scores[token_index(a.tokens, args["token"])])


def relative_completeness_gap(run: StepRun, args: dict[str, Any]) -> float | None:
    """|sum(scores) − (metric − baseline)| / |metric − baseline| (integrated gradients only)."""
    a = _explanation(run).attribution
    if a.completeness_gap is None or a.baseline_logit is None:
        raise WorkbenchError(f"{a.method} has no completeness gap (integrated gradients has)")
    change = a.metric - a.baseline_logit
    return finite(abs(a.completeness_gap) / abs(change)) if change else None


def attention_agreement(run: StepRun, args: dict[str, Any]) -> float | None:
    """Spearman's rho between |attribution score| and the layer's raw attention row, over the input tokens."""
    from lm_workbench.engine.probing.sts import spearman

    e = _explanation(run)
    if e.attention is None:
        raise WorkbenchError("the model returns no attention weights")
    return finite(spearman([abs(s) for s in e.attribution.scores], e.attention))


TOKEN = {"token": "a token as the view lists it (e.g. \" instance\")"}
METRICS = metrics_of(
    "predictions",
    Metric("top_probability", top_probability, "the top prediction's probability"),
    Metric("probability", probability, "a token's probability among the top k shown (0 when not shown)", TOKEN,
           ("token",)),
    Metric("top_position", top_position, "the input position Explain scores highest"),
    Metric("score", score_of, "Explain's score of one input token (by text or index)",
           {"token": "an input token's text or index"}, ("token",)),
    Metric("explained_metric", lambda run, args: finite(_explanation(run).attribution.metric),
           "what Explain explains: logit(top), minus the foil's with one"),
    Metric("relative_completeness_gap", relative_completeness_gap,
           "integrated gradients: |completeness gap| / |metric − baseline|"),
    Metric("attention_agreement", attention_agreement,
           "Spearman's rho of |scores| and the raw attention row of the step's layer"),
    Metric("layers", lambda run, args: float(_explanation(run).layers), "attention layers to choose from"),
)
