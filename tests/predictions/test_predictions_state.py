"""The Predictions tab's state without Qt: what Explain and model B are asked for, Accept's ids, the prompt ids
kept per model and text, checked against tiny models run with plain transformers."""

from __future__ import annotations

import pytest
import torch

from lm_workbench.attribution.targets import ModelBPrediction, PredictionTarget
from lm_workbench.models.loader import load_model
from lm_workbench.engine.progress import CancelToken
from lm_workbench.predictions import view_tasks
from lm_workbench.predictions.state import PredictionsState


@pytest.fixture(scope="module")
def gpt2(tiny_models):
    return load_model(str(tiny_models["gpt2"]))


def test_next_token_requests_follow_the_chosen_candidate(gpt2):
    text = "The name of the"
    state, seen = PredictionsState(), []
    state.events.shown_changed.connect(seen.append)
    state.use_model(gpt2)
    assert state.prompt_ids(text) is None and state.explain_request() is None
    state.show_next(view_tasks.next_tokens(gpt2, text, state.prompt_ids(text), 3, CancelToken()))
    ids = gpt2.tokenizer(text)["input_ids"]
    with torch.no_grad():  # the reference: the model's own logits at the last position
        order = torch.argsort(gpt2.model(torch.tensor([ids])).logits[0, -1], descending=True).tolist()
    assert seen == ["next"]
    assert state.explain_request(row=1) == PredictionTarget(ids=tuple(ids), token_id=order[1])
    assert state.model_b_request() == ModelBPrediction(text=text, kind="next-token")
    accepted_ids, accepted_text = state.accepted(0)
    assert accepted_ids == ids + [order[0]]
    assert state.accepted(3) is None and state.accepted(-1) is None
    state.keep_prompt(accepted_ids, accepted_text)
    assert state.prompt_ids(accepted_text) == accepted_ids and state.prompt_ids(text) is None
    state.use_model(gpt2)
    assert state.prompt_ids(accepted_text) == accepted_ids  # the same model keeps them
    state.use_model(object())
    assert state.prompt_ids(accepted_text) is None  # another model forgets them


def test_fill_mask_requests_name_the_mask_and_its_candidate(tiny_models):
    bert = load_model(str(tiny_models["bert"]))
    text = "the [MASK] is closed and the [MASK] opens"
    tokens, preds, ids, text_back, _ = view_tasks.fill_masks(bert, text, 2, CancelToken())
    state = PredictionsState()
    state.show_fill(ids, preds, text_back)
    enc = bert.tokenizer(text)["input_ids"]
    masks = [i for i, t in enumerate(enc) if t == bert.tokenizer.mask_token_id]
    with torch.no_grad():
        logits = bert.model(torch.tensor([enc])).logits[0]
    second = torch.argsort(logits[masks[1]], descending=True).tolist()
    assert state.explain_request(index=1, row=1) == PredictionTarget(ids=tuple(enc), position=masks[1],
                                                                     token_id=second[1])
    assert state.model_b_request(1) == ModelBPrediction(text=text, kind="mask", mask_index=1)


def test_pending_explain_waits_for_shown_predictions_and_an_idle_view():
    state = PredictionsState()
    state.explain_pending = True
    assert not state.should_explain_now()  # nothing shown
    state.asked_text = "Hello <extra_id_0> world"
    state.show_infill()
    state.busy = True
    assert not state.should_explain_now()
    state.busy = False
    assert state.should_explain_now() and state.explain_request() == PredictionTarget(text="Hello <extra_id_0> world")
    state.show_nothing()
    assert state.explain_request() is None and state.model_b_request() is None
