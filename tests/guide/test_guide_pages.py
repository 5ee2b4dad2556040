"""The built-in guide: every page loads, in lecture order, and each exercise's expected answer is what the view's
own function gives when called directly, on two different models of the page's family (tiny models).

The direct computations below go around the Guide (no page parsing, no question registry): plain transformers
where that is short (token counts, separators, the top prediction, an attention row), else the view's job or the
lecture metric called on the page's settings as the test resolves them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from lm_workbench.guide.check import answer_of
from lm_workbench.guide.library import builtin_guide
from lm_workbench.guide.page import MAX_WORDS
from lm_workbench.lectures.metrics.base import StepRun

GUIDE = builtin_guide()
EXERCISES = [p for p in GUIDE.pages if p.exercise is not None]


def test_every_builtin_page_loads_in_lecture_order():
    assert len(GUIDE.pages) >= 24
    assert [p.lecture for p in GUIDE.pages] == sorted(p.lecture for p in GUIDE.pages)
    assert {p.lecture for p in GUIDE.pages} == {1, 2, 3, 4, 5}
    assert len({p.id for p in GUIDE.pages}) == len(GUIDE.pages)
    assert all(len(p.body.split()) <= MAX_WORDS for p in GUIDE.pages)
    assert len(EXERCISES) >= 20
    kinds = {p.exercise.kind for p in EXERCISES}
    assert kinds == {"click-layer", "click-head", "click-token", "choose", "number", "token"}


def _family(page: Any) -> str:
    return next((n for n in page.needs if n in ("encoder", "decoder", "biLM")), "encoder")


def _resolved(page: Any, course: dict[str, str]) -> tuple[dict, dict]:
    """The page's settings and inputs with course: and preset-data: references resolved (by hand)."""
    from lm_workbench.lectures.library import data_path

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str) and value.startswith("course:"):
            return course[value[len("course:"):]]
        if isinstance(value, str) and value.startswith("preset-data:"):
            return str(data_path(value[len("preset-data:"):]))
        return value

    return walk(dict(page.step.settings)), walk(dict(page.step.inputs))


# -- the direct computations, one per question ------------------------------------------------------------------
def _token_count(loaded, page, settings, inputs):
    return float(len(loaded.tokenizer(inputs["text"])["input_ids"]))


def _top_token(loaded, page, settings, inputs):
    import torch

    tok, text = loaded.tokenizer, inputs["text"]
    if loaded.info.family == "decoder":
        ids = tok(text, return_tensors="pt")["input_ids"]
        with torch.no_grad():
            logits = loaded.model(input_ids=ids).logits[0, -1]
    else:
        enc = tok(text.replace("[MASK]", tok.mask_token), return_tensors="pt")
        where = int((enc["input_ids"][0] == tok.mask_token_id).nonzero()[0, 0])
        with torch.no_grad():
            logits = loaded.model(**enc).logits[0, where]
    return tok.convert_ids_to_tokens(int(logits.argmax()))


def _most_attended(loaded, page, settings, inputs):
    import torch

    enc = loaded.tokenizer(inputs["text"], inputs.get("pair"), return_tensors="pt")
    with loaded.attention_implementation("eager"), torch.no_grad():
        attentions = loaded.model(**enc, output_attentions=True).attentions
    layer = min(int(settings.get("layer", 0)), len(attentions) - 1)
    heads = attentions[0].shape[1]
    chosen = settings.get("heads", "all")
    head = ([int(h) for h in chosen if int(h) < heads] or [0])[0] if chosen != "all" else 0
    tokens = loaded.tokenizer.convert_ids_to_tokens(enc["input_ids"][0])
    query = page.exercise.args["query"]
    q = query if isinstance(query, int) else next(i for i, t in enumerate(tokens) if t.lstrip("Ġ▁") == query)
    return int(attentions[layer][0, head, q].argmax())


def _lens_first_layer(loaded, page, settings, inputs):
    from lm_workbench.engine.lens.logit import logit_lens

    column = [row[-1][0].token for row in logit_lens(loaded, inputs["text"]).top]
    return column.index(column[-1])


def _explain_top(loaded, page, settings, inputs):
    from lm_workbench.attribution.targets import PredictionTarget
    from lm_workbench.attribution.view_tasks import prediction_job
    from lm_workbench.engine.predictions import next_tokens_from_ids, prompt_ids
    from lm_workbench.engine.progress import NEVER_CANCELLED, run_to_completion

    ids = prompt_ids(loaded, inputs["text"])
    top = next_tokens_from_ids(loaded, ids, 5).candidates[0]
    job = prediction_job(loaded, PredictionTarget(ids=tuple(ids), token_id=top.id),
                         settings.get("method", "grad-input"), int(settings.get("layer", -1)))
    scores = list(run_to_completion(job(NEVER_CANCELLED)).attribution.scores)
    return scores.index(max(scores))


def _patching_best(loaded, page, settings, inputs):
    from lm_workbench.engine.progress import NEVER_CANCELLED, run_to_completion
    from lm_workbench.patching.view_tasks import patching_sweep

    from lm_workbench.patching.state import PatchingState, settings_in_new_form

    settings = settings_in_new_form(settings)  # presets written before target/contrast say answer/wrong
    state = PatchingState()
    state.set_family(loaded.info.family)
    state.set_inputs(settings["clean"], settings["corrupt"], settings["target"], settings["contrast"],
                     settings.get("site", "resid"), "text", "", False, 0)
    r = run_to_completion(patching_sweep(loaded, state.request(), NEVER_CANCELLED))
    column = next(i for i, t in enumerate(r.tokens) if t.lstrip("Ġ▁").lower() == page.exercise.args["token"])
    values = [row[column] for row in r.effect]
    return values.index(max(values))


def _head_drop(loaded, page, settings, inputs):
    from lm_workbench.engine.heads.ablation import head_sweep_job
    from lm_workbench.engine.progress import NEVER_CANCELLED, run_to_completion

    sweep = run_to_completion(head_sweep_job(loaded, inputs["text"], settings["target"], settings["contrast"],
                                             how="zero", cancel=NEVER_CANCELLED))
    cells = [(v - sweep.clean_metric, layer, head) for layer, row in enumerate(sweep.ablated_metric)
             for head, v in enumerate(row)]
    _v, layer, head = min(cells)
    return (layer, head)


_PROBES: dict[tuple, Any] = {}  # the direct probe sweeps, one per model and task (two pages share one)


def _probe(field: str):
    def direct(loaded, page, settings, inputs):
        from lm_workbench.engine.progress import run_to_completion
        from lm_workbench.probing.runs import ProbeRun
        from lm_workbench.probing.state import ProbingState

        key = (loaded.info.spec, settings["task"], settings.get("kind"))
        if key not in _PROBES:
            state = ProbingState()
            state.set_task(settings["task"], settings.get("kind"))
            run = ProbeRun(state.probe_params(loaded.info.spec))
            _PROBES[key] = run_to_completion(run.compute(loaded, run.read()))
        result = _PROBES[key]
        values = list(getattr(result, field))
        return result.layers[values.index(max(values))]

    return direct


def _mix_top(loaded, page, settings, inputs):
    from lm_workbench.engine.progress import run_to_completion
    from lm_workbench.probing.scalar_mix_runs import ScalarMixRun
    from lm_workbench.probing.spec import ScalarMixSpec
    from lm_workbench.probing.state import ProbingState

    state = ProbingState()
    state.set_task(settings["task"], settings.get("kind"))
    probe = state.probe_params(loaded.info.spec)
    run = ScalarMixRun(ScalarMixSpec(**probe.to_dict(), steps=int(settings["mix_steps"])).checked())
    mix = run_to_completion(run.compute(loaded, run.read()))
    weights = list(mix.result.weights)
    return mix.layers[weights.index(max(weights))]


def _separators(loaded, page, settings, inputs):
    tok = loaded.tokenizer
    return float(tok(inputs["text"], inputs["pair"])["input_ids"].count(tok.sep_token_id))


DIRECT = {
    ("tokens", "token_count"): _token_count, ("predictions", "top_token"): _top_token,
    ("attention", "most_attended"): _most_attended, ("lens", "first_layer"): _lens_first_layer,
    ("predictions", "top_position"): _explain_top, ("patching", "best_layer"): _patching_best,
    ("heads", "largest_drop_head"): _head_drop, ("probing", "best_layer"): _probe("accuracy"),
    ("probing", "best_selectivity_layer"): _probe("selectivity"), ("probing", "mix_top_layer"): _mix_top,
    ("attention", "separators"): _separators,
}


def _metric_direct(page, spec, loader, settings, inputs):
    """A metric question (number) or a choose exercise's options, read from the view's metrics on a step the test
    builds itself."""
    from lm_workbench.lectures.metrics import metric_value

    run = StepRun(page.view, settings, inputs, spec, loader)
    ex = page.exercise
    if ex.kind == "choose":
        values = [metric_value(run, o.metric, dict(o.args)) for o in ex.options]
        best = (max if ex.pick == "largest" else min)(values)
        return [o.label for o, v in zip(ex.options, values) if v == best]
    return metric_value(run, ex.question, dict(ex.args))


@pytest.fixture(scope="module")
def guide_home(tmp_path_factory):
    """One data and cache folder for the module: the probing pages share the probe cache, as the view's runs do."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LM_WORKBENCH_HOME", str(tmp_path_factory.mktemp("guide-home")))
        yield


@pytest.mark.slow
@pytest.mark.parametrize("page", EXERCISES, ids=[p.id for p in EXERCISES])
def test_the_expected_answer_is_the_views_own_on_two_models(page, family_models, model_cache, guide_home):
    course = family_models.course
    settings, inputs = _resolved(page, course)
    seen = []
    for spec in family_models.of(_family(page)):
        expected = answer_of(page, spec, model_cache, course)
        accepted = expected.accepted or (expected.value,)
        direct = DIRECT.get((page.view, page.exercise.question))
        if direct is not None:
            value = direct(model_cache(spec), page, settings, inputs)
            if isinstance(value, float):
                assert math.isclose(float(expected.value), value, abs_tol=1e-9), (spec, expected, value)
            else:
                assert value in accepted, (spec, expected, value)
        else:
            value = _metric_direct(page, spec, model_cache, settings, inputs)
            if page.exercise.kind == "choose":
                assert set(value) == set(accepted), (spec, expected, value)
            else:
                assert math.isclose(float(expected.value), float(value), abs_tol=1e-9), (spec, expected, value)
        assert expected.explanation
        seen.append(Path(spec).name)
    assert len(set(seen)) == 2
