"""The Compare tab's state without Qt: the request it makes for model B, and the labels and lines it derives
from a CKA result computed by the engine on two tiny models."""

from __future__ import annotations

from types import SimpleNamespace

from lm_workbench.compare.cka_state import NO_B_HINT, CkaState


def test_no_model_b_is_a_hint_and_no_request():
    state, seen = CkaState(), []
    state.events.changed.connect(lambda: seen.append(state.hint))
    assert state.request(("a", 1), None, "The bank.") is None
    assert state.hint == NO_B_HINT and state.result is None and seen == [NO_B_HINT]
    assert state.summary() == "" and state.row_labels() == [] and state.title() == ""


def test_the_request_keeps_non_empty_lines_and_names_model_b():
    b = SimpleNamespace(info=SimpleNamespace(spec="gpt2"))
    key, texts = CkaState().request(("a", 1), b, "The bank.\n\n  \nIt opens.")
    assert texts == ["The bank.", "It opens."]
    assert key == (("a", 1), id(b), "gpt2", ("The bank.", "It opens."))
    assert CkaState().request(("a", 1), b, "x")[0] != key  # other text, other request


def test_labels_and_summary_of_a_result():
    result = SimpleNamespace(model_a="/m/bert", model_b="/m/gpt2", words=["the", "bank", "opens"],
                             layers_a=[0, 1, 2], layers_b=[0, 1], cka=[[1.0, 0.5], [0.4, 0.3], [0.2, 0.1]])
    state = CkaState(label=lambda spec: spec.rsplit("/", 1)[-1])
    state.set_result(result)
    assert state.hint == ""
    assert state.row_labels() == ["A 0", "A 1", "A 2"] and state.column_labels() == ["B 0", "B 1"]
    assert state.title() == "CKA: bert × gpt2"
    assert state.summary().startswith("Linear CKA over 3 words: rows are A (bert) layers, columns B (gpt2)")
    state.show_hint("x")
    assert state.result is None and state.summary() == ""
