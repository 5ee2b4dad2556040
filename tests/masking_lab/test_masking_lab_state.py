"""The masking lab's state without Qt: the objective list per family from the real registry, the pick, and a
real preview (a tiny BERT's tokenizer, MLM) kept with its rows and the statistics' staleness."""

from __future__ import annotations


import pytest

from lm_workbench.models.loader import load_model
from lm_workbench.extensions.registry import ObjectiveRegistry
from lm_workbench.masking_lab import view_tasks
from lm_workbench.masking_lab.state import MaskingLabState, ObjectiveChoice
from lm_workbench.engine.progress import CancelToken


@pytest.fixture(scope="module")
def registry():
    return ObjectiveRegistry.discover()


def test_objective_choices_follow_the_family(registry):
    state = MaskingLabState()
    state.registry = registry
    every = state.objective_choices(None)
    names = [c.name for c in every]
    assert len(names) == len(set(names)) == len({r.name for r in registry.records})
    for family in ("encoder", "decoder", "encoder-decoder"):
        listed = {c.name for c in state.objective_choices(family)}
        expected = {r.name for r in registry.records if not r.families or family in r.families}
        assert listed == expected, family
    enabled = [c.enabled for c in every]
    assert enabled == sorted(enabled, reverse=True)  # working ones first


@pytest.mark.parametrize("current, family, want", [
    ("clm", "decoder", "clm"), (None, "decoder", "clm"), (None, "encoder", "mlm"), ("gone", None, "mlm"),
    ("broken", "encoder", "mlm")])
def test_pick_keeps_a_working_current_choice_else_the_familys(current, family, want):
    choices = [ObjectiveChoice("mlm", "mlm", True), ObjectiveChoice("clm", "clm", True),
               ObjectiveChoice("broken", "broken (failed)", False, "no module")]
    assert MaskingLabState.pick(current, choices, family) == want


def test_a_preview_is_kept_with_its_rows_and_stale_statistics_are_said(registry, tiny_models):
    loaded = load_model(str(tiny_models["bert"]))
    state, seen = MaskingLabState(), []
    state.registry, state.loaded = registry, loaded
    state.events.result_changed.connect(lambda: seen.append(state.result is not None))
    assert state.family(None) == str(loaded.info.family) and state.family("gpt2") is None
    config = registry.objective("mlm").default_config()
    key = state.request_key(("m", 1), "the bank is closed", None, "mlm", config, 3)
    result = view_tasks.corrupt(registry, "mlm", state.tokenizer(None), "the bank is closed", config, 3, loaded, True,
                          CancelToken())
    assert state.show(key, result) is True  # first preview: no statistics of these inputs yet
    assert state.show(key, result) is False
    assert state.bands and state.shown_key == key and seen == [True, True]
    ids = loaded.tokenizer("the bank is closed")["input_ids"]
    assert result["ids"] == ids and state.cut_note() is None  # the text fits: no note
    state.preset = {"samples": 40}
    assert state.take_preset_samples() == 40 and state.take_preset_samples() is None
    state.clear()
    assert state.result is None and state.bands == [] and seen[-1] is False


def test_a_cut_text_says_so():
    state = MaskingLabState()
    state.result = {"full_length": 700, "ids": list(range(512))}
    assert state.cut_note() == "The text has 700 tokens; only the first 512 fit the tokenizer's window."
