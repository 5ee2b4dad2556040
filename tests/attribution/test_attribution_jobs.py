"""lm_workbench.attribution.view_tasks: the one Explain job builder the views run gives the engine's explanation, and the
fine-tuned run's model is opened once for a run's rows (``run_models``)."""

from __future__ import annotations

import pytest

from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.progress import NEVER_CANCELLED, run_to_completion
from lm_workbench.attribution import run_models
from lm_workbench.attribution.targets import LabelTarget, PredictionTarget
from lm_workbench.attribution.view_tasks import prediction_job, run_label_job


def test_prediction_job_is_the_engines_explanation(tiny_models):
    from lm_workbench.engine.attribution.explain import explain_job, prediction_target

    loaded = load_model(str(tiny_models["gpt2"]))
    ids = loaded.tokenizer("The cat sat on the")["input_ids"]
    got = run_to_completion(prediction_job(loaded, PredictionTarget(ids=tuple(ids)), "grad-input", -1)(NEVER_CANCELLED))
    want = run_to_completion(explain_job(loaded, prediction_target(loaded, ids=ids), "grad-input", layer=-1))
    assert got.attribution.target_id == want.attribution.target_id and got.layer == want.layer == 1
    assert got.attribution.scores == pytest.approx(want.attribution.scores, abs=1e-6)
    assert got.attention == pytest.approx(want.attention, abs=1e-9)


def test_run_label_job_opens_the_run_once_per_folder(monkeypatch):
    import lm_workbench.engine.attribution.classifier as classifier
    import lm_workbench.finetune.train as finetune_run

    opened = []

    def open_output(out_dir):
        opened.append(out_dir)
        return out_dir

    class Model:
        def __init__(self, output, name):
            self.out_dir = output

    monkeypatch.setattr(finetune_run, "open_output", open_output)
    monkeypatch.setattr(classifier, "ClassifierModel", Model)
    seen = []

    def explain(model, target_of, method, layer, cancel):
        seen.append(model.out_dir)
        return model
        yield  # a job: a generator

    monkeypatch.setattr("lm_workbench.attribution.view_tasks.explain_steps_for", explain)
    cache = run_models.RunModels()
    for folder in ("a", "a", "b", "a"):
        run_to_completion(run_label_job(folder, LabelTarget(text="x"), "grad-input", -1, models=cache)(NEVER_CANCELLED))
    assert seen == ["a", "a", "b", "a"] and opened == ["a", "b", "a"]  # the last run's model kept, one at a time


def test_each_method_s_legend_says_what_its_colours_mean():
    """Rollout and flow are shares of attention, never negative: their legend has no blue (issue 36)."""
    from lm_workbench.engine.attribution.names import FLOW, GRAD_INPUT, INTEGRATED_GRADIENTS, ROLLOUT
    from lm_workbench.ui.widgets.attribution_panel import colour_legend

    for method in (GRAD_INPUT, INTEGRATED_GRADIENTS):
        assert "blue lower it" in colour_legend(method)
    for method in (ROLLOUT, FLOW):
        assert "blue" not in colour_legend(method) and "never negative" in colour_legend(method)
