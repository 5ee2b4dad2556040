"""The shared decoding function against transformers' own generate()."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.decoding import SamplingConfig, decode_job, filter_logits
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.progress import CancelToken, run_to_completion
from lm_workbench.engine.errors import Cancelled

PROMPT = "The meaning of the statement is"


@pytest.mark.parametrize("kind", ["gpt2", "llama", "bart", "t5"])
def test_greedy_equals_generate(kind, tiny_models):
    loaded = load_model(str(tiny_models[kind]))
    ids = loaded.tokenizer(PROMPT)["input_ids"]
    ours = run_to_completion(decode_job(loaded.model, loaded.family, ids, tokenizer=loaded.tokenizer,
                                          max_new_tokens=12))
    with torch.no_grad():
        ref = loaded.model.generate(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                                    do_sample=False, max_new_tokens=12, num_beams=1,
                                    pad_token_id=loaded.tokenizer.pad_token_id or 0)[0].tolist()
    if loaded.family is Family.ENCODER_DECODER:
        ref = ref[1:]  # generate() returns the decoder start token first
    else:
        ref = ref[len(ids):]
    assert ours == ref[: len(ours)]
    assert len(ours) == len(ref) or ours[-1] in (loaded.tokenizer.eos_token_id,)


def test_steps_report_probabilities_and_cancel(tiny_models):
    loaded = load_model(str(tiny_models["gpt2"]))
    ids = loaded.tokenizer(PROMPT)["input_ids"]
    token = CancelToken()
    gen = decode_job(loaded.model, loaded.family, ids, max_new_tokens=20, cancel=token, stop_at_eos=False)
    first = next(gen)
    with torch.no_grad():
        logits = loaded.model(torch.tensor([ids])).logits[0, -1].double().numpy()
    p = np.exp(logits - logits.max())
    p /= p.sum()
    assert first.token_id == int(np.argmax(p))
    assert abs(first.prob - p[first.token_id]) < 1e-5
    token.cancel()
    with pytest.raises(Cancelled):
        next(gen)


def test_sampling_is_seeded(tiny_models):
    loaded = load_model(str(tiny_models["gpt2"]))
    ids = loaded.tokenizer(PROMPT)["input_ids"]

    def sample(seed):
        cfg = SamplingConfig(temperature=1.5, top_k=50, top_p=0.95, seed=seed)
        return run_to_completion(decode_job(loaded.model, loaded.family, ids, max_new_tokens=15,
                                              sampling=cfg, stop_at_eos=False))

    assert sample(3) == sample(3)
    assert any(sample(3) != sample(s) for s in (4, 5, 6))


def test_top_k_top_p_filter_matches_numpy():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=200) * 3
    cfg = SamplingConfig(temperature=0.7, top_k=40, top_p=0.8)
    got = filter_logits(torch.tensor(logits), cfg).numpy()
    # independent: temperature, keep the 40 largest, then the smallest prefix reaching mass 0.8
    z = logits / 0.7
    order = np.argsort(-z)
    keep_k = set(order[:40].tolist())
    zk = np.where([i in keep_k for i in range(200)], z, -np.inf)
    order_k = np.argsort(-zk)
    probs = np.exp(zk[order_k] - zk[order_k][0])
    probs /= probs.sum()
    cum = np.cumsum(probs)
    n_keep = int(np.searchsorted(cum, 0.8) + 1)
    expected = set(order_k[:n_keep].tolist())
    assert set(np.flatnonzero(np.isfinite(got)).tolist()) == expected
