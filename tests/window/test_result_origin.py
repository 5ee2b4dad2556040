"""The provenance rule every view follows (issue 49.5), on plain objects: same model and inputs: current; other
inputs: stale; another model, the same spec loaded again, or none: gone; and the label a person reads."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from lm_workbench.result_origin import CURRENT, GONE, STALE, ResultOrigin


def _model(spec: str):
    return SimpleNamespace(info=SimpleNamespace(spec=spec))


BERT, GPT2 = _model("/tmp/runs/course-bert/model"), _model("gpt2")
BERT_AGAIN = _model("/tmp/runs/course-bert/model")  # the same spec loaded again: another model object


@pytest.mark.parametrize("loaded, inputs, expected", [
    (BERT, ("demo", "dogs"), CURRENT),
    (BERT, ("demo", "cats"), STALE),
    (BERT, ("file.txt", "dogs"), STALE),
    (GPT2, ("demo", "dogs"), GONE),  # the reported case: "Model: gpt2" above the course BERT's results
    (BERT_AGAIN, ("demo", "dogs"), GONE),
    (None, ("demo", "dogs"), GONE),
])
def test_state(loaded, inputs, expected):
    origin = ResultOrigin.of(BERT, ("demo", "dogs"), "query “dogs”, the demo corpus", 12)
    assert origin.state(loaded, inputs) == expected
    assert origin.matches(loaded, inputs) == (expected == CURRENT)


def test_label_names_model_input_and_run():
    origin = ResultOrigin.of(BERT, 1, "query “dogs”, the demo corpus", 12)
    assert origin.label() == "from course-bert/model, query “dogs”, the demo corpus, run 12"
    assert ResultOrigin.of(GPT2, 1, "").label() == "from gpt2"


@settings(derandomize=True, deadline=None, max_examples=20)
@given(a=st.tuples(st.text(max_size=5), st.integers()), b=st.tuples(st.text(max_size=5), st.integers()))
def test_stale_exactly_when_inputs_differ(a, b):
    origin = ResultOrigin.of(GPT2, a, "x")
    assert origin.state(GPT2, b) == (CURRENT if a == b else STALE)
