"""Streaming generation against transformers' ``generate``; seeded sampling; stop strings; cancel."""

from __future__ import annotations

import pytest
import torch

from lm_workbench.engine.decoding import SamplingConfig
from lm_workbench.engine.errors import Cancelled, MissingHeadError, WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.progress import CancelToken, Partial, run_to_completion
from lm_workbench.engine.prompting.generation import GeneratedToken, generate_job


@pytest.fixture(scope="module")
def models(tiny_models):
    torch.set_num_threads(1)
    return {k: load_model(str(tiny_models[k])) for k in ("bert", "gpt2", "bart")}


def collect(gen):
    items = []
    while True:
        try:
            items.append(next(gen))
        except StopIteration as stop:
            return items, stop.value


@pytest.mark.parametrize("kind", ["gpt2", "bart"])
def test_greedy_equals_transformers_generate(models, kind):
    loaded = models[kind]
    text = "The function returns a value"
    items, result = collect(generate_job(loaded, text, max_new_tokens=8))
    assert all(isinstance(i, Partial) and isinstance(i.value, GeneratedToken) for i in items)
    assert [i.value.id for i in items] == result.token_ids
    enc = loaded.tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        ref = loaded.model.generate(**enc, do_sample=False, num_beams=1, max_new_tokens=8,
                                    pad_token_id=loaded.tokenizer.eos_token_id)[0].tolist()
    ref = ref[enc["input_ids"].shape[1]:] if kind == "gpt2" else ref[1:]  # the decoder's start token
    assert result.token_ids == ref[:len(result.token_ids)] and len(result.token_ids) >= 1
    assert result.text == loaded.tokenizer.decode(result.token_ids, skip_special_tokens=True)
    # each token's probability is the softmax of the model's logits at its step
    ids = enc["input_ids"][0].tolist()
    if kind == "gpt2":
        with torch.no_grad():
            logits = loaded.model(input_ids=torch.tensor([ids + result.token_ids])).logits[0]
        for j, token in enumerate(result.tokens):
            assert token.prob == pytest.approx(float(torch.softmax(logits[len(ids) - 1 + j].double(), -1)[token.id]),
                                               rel=1e-4)


def test_sampling_with_a_seed_is_reproducible(models):
    loaded = models["gpt2"]
    config = SamplingConfig(temperature=1.3, top_k=50, top_p=0.95, seed=11)
    first = run_to_completion(generate_job(loaded, "In the file", max_new_tokens=12, sampling=config))
    again = run_to_completion(generate_job(loaded, "In the file", max_new_tokens=12, sampling=config))
    assert first.token_ids == again.token_ids and [t.prob for t in first.tokens] == [t.prob for t in again.tokens]
    others = [run_to_completion(generate_job(loaded, "In the file", max_new_tokens=12,
                                               sampling=SamplingConfig(1.3, 50, 0.95, seed=s))).token_ids
              for s in (12, 13)]
    assert any(o != first.token_ids for o in others)
    assert all(0 < t.prob <= 1 for t in first.tokens)


def test_stop_strings_cut_the_text_and_cancel_stops_between_tokens(models):
    loaded = models["gpt2"]
    sampling = SamplingConfig(seed=5)
    full = run_to_completion(generate_job(loaded, "The", max_new_tokens=10, sampling=sampling))
    pieces = [t.text for t in full.tokens]
    j = next(j for j in range(1, len(pieces) - 1)  # a token whose text first appears where it is generated
             if len(pieces[j]) >= 2 and full.text.find(pieces[j]) == len("".join(pieces[:j])))
    stop = pieces[j]
    cut = run_to_completion(generate_job(loaded, "The", max_new_tokens=10, sampling=sampling, stop=[stop]))
    assert cut.stopped_by == "stop string" and cut.text == full.text[:full.text.index(stop)]
    assert cut.token_ids == full.token_ids[:len(cut.token_ids)] and len(cut.token_ids) == j + 1
    token = CancelToken()
    gen = generate_job(loaded, "The", max_new_tokens=10, cancel=token)
    next(gen)
    token.cancel()
    with pytest.raises(Cancelled):
        next(gen)


def test_generation_refuses_an_encoder_and_bad_settings(models):
    with pytest.raises(MissingHeadError, match="generation needs a decoder"):
        run_to_completion(generate_job(models["bert"], "text"))
    with pytest.raises(WorkbenchError, match="temperature must be above 0"):
        run_to_completion(generate_job(models["gpt2"], "text", sampling=SamplingConfig(temperature=0)))
    with pytest.raises(WorkbenchError, match="no room left"):
        run_to_completion(generate_job(models["gpt2"], "word " * 80))
