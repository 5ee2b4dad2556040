"""The Features view's metrics: the step's SAE (``sae``: a folder or a training recipe, made on first use:
``lm_workbench.sae.preset_sae``), the features on the step's text, the chosen feature (``feature``; absent: the
strongest on the text, as the view picks it) over the step's ``corpus``, steering with it at ``strength`` and the
layer × strength grid, from the view's jobs (``lm_workbench.sae.view_tasks``).
"""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.lectures.metrics.base import Metric, StepRun, finite, index_in, int_arg, metrics_of

DEFAULT_STRENGTH = 8.0


def _folder(run: StepRun) -> str:
    def build() -> str:
        from lm_workbench.engine.progress import run_to_completion
        from lm_workbench.sae.preset_sae import ensure_sae

        if "sae" not in run.settings:
            raise WorkbenchError("the step names no SAE (settings: sae)")
        return run_to_completion(ensure_sae(run.loaded, run.settings["sae"]))

    return run.once("sae", build)


def _strip(run: StepRun) -> Any:
    def build() -> Any:
        from lm_workbench.engine.progress import NEVER_CANCELLED
        from lm_workbench.sae.view_tasks import text_features_job

        features, _site, _notes = text_features_job(run.loaded, _folder(run), run.text(), NEVER_CANCELLED)
        return features

    return run.once("strip", build)


def _feature(run: StepRun) -> int:
    if "feature" in run.settings:
        return int(run.settings["feature"])
    order = _strip(run).order
    if not order:
        raise WorkbenchError("no feature is active on the step's text")
    return order[0]


def _view(run: StepRun) -> dict[str, Any]:
    def build() -> dict[str, Any]:
        from lm_workbench.engine.progress import NEVER_CANCELLED, run_to_completion
        from lm_workbench.sae.view_tasks import feature_job

        corpus = run.settings.get("corpus")
        if not corpus:
            raise WorkbenchError("a feature's top contexts read a corpus (settings: corpus)")
        return run_to_completion(feature_job(run.loaded, _folder(run), str(corpus), _feature(run), NEVER_CANCELLED))

    return run.once("feature", build)


def _grid(run: StepRun) -> Any:
    def build() -> Any:
        from lm_workbench.engine.progress import NEVER_CANCELLED, run_to_completion
        from lm_workbench.sae.view_tasks import grid_job

        return run_to_completion(grid_job(run.loaded, _folder(run), _feature(run), run.text(),
                                          float(run.settings.get("strength", DEFAULT_STRENGTH)), NEVER_CANCELLED))

    return run.once("grid", build)


def _steering(run: StepRun) -> Any:
    def build() -> Any:
        from lm_workbench.engine.progress import NEVER_CANCELLED
        from lm_workbench.sae.view_tasks import steer_job

        return steer_job(run.loaded, _folder(run), _feature(run), run.text(),
                         float(run.settings.get("strength", DEFAULT_STRENGTH)), NEVER_CANCELLED)

    return run.once("steer", build)


def _evaluation(run: StepRun) -> Any:
    def build() -> Any:
        from lm_workbench.engine.progress import run_to_completion
        from lm_workbench.engine.sae.activations import read_corpus
        from lm_workbench.engine.sae.evaluate import evaluate_sae
        from lm_workbench.sae.view_tasks import checked_sae

        corpus = run.settings.get("corpus")
        if not corpus:
            raise WorkbenchError("the SAE is evaluated on the step's corpus (settings: corpus)")
        file, site, _notes = checked_sae(run.loaded, _folder(run))
        return run_to_completion(evaluate_sae(run.loaded, site, file.sae, read_corpus(str(corpus)),
                                              max_tokens=2048))

    return run.once("evaluation", build)


def _cell(run: StepRun, args: dict[str, Any]) -> Any:
    grid = _grid(run)
    layer = grid.layers[index_in(int_arg(args, "layer"), len(grid.layers), "layer")]
    multiple = float(args.get("times", 1.0))
    strength = multiple * float(run.settings.get("strength", DEFAULT_STRENGTH))
    for cell in grid.cells:
        if cell.layer == layer and abs(cell.strength - strength) < 1e-9:
            return cell
    raise WorkbenchError(f"the grid has no cell at {multiple:g} x the strength (multiples: -1, 0, 0.5, 1, 2, 4)")


def _peak_share(run: StepRun) -> float | None:
    """The share of the feature's top contexts whose peak token is the first context's peak token."""
    contexts = _view(run)["stats"].contexts
    if not contexts:
        return None
    peaks = [c.tokens[c.peak].strip().lower() for c in contexts]
    return sum(p == peaks[0] for p in peaks) / len(peaks)


def _top_changed(run: StepRun) -> float:
    s = _steering(run)
    return float(s.steered.top[0]["id"] != s.unsteered.top[0]["id"])


def _best_layer(run: StepRun) -> float | None:
    grid = _grid(run)
    strongest = max(grid.strengths)
    cells = [c for c in grid.cells if c.strength == strongest and c.concept_score is not None]
    return float(max(cells, key=lambda c: c.concept_score).layer) if cells else None


def _max_kl(run: StepRun) -> float | None:
    values = [c.kl for c in _grid(run).cells if c.kl is not None]
    return finite(max(values)) if values else None


CELL = {"layer": "the grid's block, 0-based; -1 the last", "times": "the multiple of the step's strength: -1, 0, "
        "0.5, 1, 2 or 4 (default 1)"}
METRICS = metrics_of(
    "features",
    Metric("active_features", lambda run, args: float(len(_strip(run).order)),
           "the number of features active anywhere on the step's text"),
    Metric("text_l0", lambda run, args: finite((_strip(run).activations > 0).sum(1).float().mean()),
           "the mean number of active features per token of the step's text"),
    Metric("feature", lambda run, args: float(_feature(run)), "the chosen feature (the strongest on the text)"),
    Metric("feature_peak", lambda run, args: finite(_strip(run).activations[:, _feature(run)].max()),
           "the chosen feature's largest activation on the step's text"),
    Metric("density", lambda run, args: finite(_view(run)["stats"].density),
           "the share of the corpus's tokens the feature fires on"),
    Metric("max_activation", lambda run, args: finite(_view(run)["stats"].max_activation),
           "the feature's largest activation over the corpus"),
    Metric("contexts", lambda run, args: float(len(_view(run)["stats"].contexts)), "its top contexts shown"),
    Metric("peak_token_share", lambda run, args: _peak_share(run),
           "the share of its top contexts that peak on the same token as the strongest one"),
    Metric("top_promoted_effect", lambda run, args: finite(_view(run)["effect"]["promoted"][0]["value"])
           if _view(run)["effect"] else None, "the logit effect of the token it promotes most"),
    Metric("steer_kl", lambda run, args: finite(_steering(run).kl),
           "KL(unsteered ‖ steered) of the prediction, nats, at the step's strength"),
    Metric("top_changed", lambda run, args: _top_changed(run), "1 when steering changes the top prediction, else 0"),
    Metric("concept_score", lambda run, args: finite(_cell(run, args).concept_score),
           "one grid cell's concept score (logit gain of the 3 tokens the feature promotes most)", CELL, ("layer",)),
    Metric("grid_kl", lambda run, args: finite(_cell(run, args).kl), "one grid cell's KL to the unsteered model",
           CELL, ("layer",)),
    Metric("best_layer", lambda run, args: _best_layer(run),
           "the block where the largest strength gains the concept most"),
    Metric("max_kl", lambda run, args: _max_kl(run), "the grid's largest KL to the unsteered model"),
    Metric("explained_variance", lambda run, args: finite(_evaluation(run).explained_variance),
           "the SAE's explained variance on the step's corpus (first 2,048 tokens)"),
    Metric("l0", lambda run, args: finite(_evaluation(run).l0), "the SAE's mean active features per corpus token"),
    Metric("ce_loss_recovered", lambda run, args: finite(_evaluation(run).ce_loss_recovered),
           "the SAE's CE loss recovered on the step's corpus"),
)
