"""The engine returns what a plain transformers forward pass returns.

Eager vs eager, float32 on the CPU: one text ≤ 1e-5 max abs difference;
length-bucketed padded batches vs one text at a time ≤ 1e-4. For the real
MiniLM and tiny BERT, GPT-2, Llama, BART and T5 models built from configs.
"""

from __future__ import annotations

import numpy as np
import pytest

from lm_workbench.engine.analysis import encode, encode_texts, length_buckets
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.progress import Progress, run_to_completion
from tests.support.reference import max_abs, plain_forward

TEXT = "The bank raised its rates, unbelievably, while we sat by the river."
PAIR = "She deposited the cheque at the bank."
TARGET = "Rates went up at the bank."
KINDS = ["minilm", "bert", "gpt2", "llama", "bart", "t5"]


@pytest.fixture(scope="module")
def loaded_models(tiny_models, minilm):
    models = {"minilm": minilm}
    for kind in KINDS[1:]:
        models[kind] = load_model(str(tiny_models[kind]))
    return models


@pytest.mark.parametrize("kind", KINDS)
def test_single_text_matches_plain_transformers(kind, loaded_models):
    loaded = loaded_models[kind]
    is_seq2seq = loaded.info.family == "encoder-decoder"
    pair = PAIR if loaded.info.family == "encoder" else None
    target = TARGET if is_seq2seq else None
    ours = encode(loaded, TEXT, pair=pair, target=target)
    ref = plain_forward(loaded.info.folder, TEXT, pair, target)

    assert ours.tokenized.ids == ref["ids"]
    assert ours.hidden_states.shape[0] == loaded.info.layers + 1
    assert max_abs(ours.hidden_states, ref["hidden_states"]) <= 1e-5
    assert max_abs(ours.attentions, ref["attentions"]) <= 1e-5
    # attention rows are distributions
    assert abs(float(ours.attentions.sum(-1).mean()) - 1.0) < 1e-5
    if is_seq2seq:
        dec = ours.decoder
        assert dec.ids == ref["decoder_ids"]
        assert not dec.from_greedy
        assert max_abs(dec.hidden_states, ref["decoder_hidden_states"]) <= 1e-5
        assert max_abs(dec.attentions, ref["decoder_attentions"]) <= 1e-5
        assert max_abs(dec.cross_attentions, ref["cross_attentions"]) <= 1e-5
        # decoder self-attention is causal: nothing above the diagonal
        assert dec.attentions.shape[-1] > 1
        assert float(np.triu(dec.attentions, k=1).max()) == 0.0


@pytest.mark.parametrize("kind", KINDS)
def test_bucketed_batches_match_one_at_a_time(kind, loaded_models):
    loaded = loaded_models[kind]
    texts = [
        "Short.",
        TEXT,
        "A medium length sentence about nothing in particular.",
        "Tokens " * 9,
        "One more, with punctuation; and numbers 12345.",
        "x",
    ]
    targets = ["Out.", None, "Medium.", "T.", None, "y"] if loaded.info.family == "encoder-decoder" else None
    reports = []
    gen = encode_texts(loaded, texts, targets=targets, batch_size=3, attentions=True)
    while True:
        try:
            reports.append(next(gen))
        except StopIteration as stop:
            batched = stop.value
            break
    assert [p.done for p in reports if isinstance(p, Progress) and p.done] == [3, 6]
    for text, tgt, got in zip(texts, targets or [None] * len(texts), batched):
        single = encode(loaded, text, target=tgt)
        assert got.tokenized.tokens == single.tokenized.tokens
        assert max_abs(got.hidden_states, single.hidden_states) <= 1e-4
        assert max_abs(got.attentions, single.attentions) <= 1e-4
        if got.decoder is not None:
            assert got.decoder.ids == single.decoder.ids
            assert max_abs(got.decoder.hidden_states, single.decoder.hidden_states) <= 1e-4
            assert max_abs(got.decoder.cross_attentions, single.decoder.cross_attentions) <= 1e-4


def test_length_buckets_respect_size_and_budget():
    lengths = [5, 50, 7, 48, 6, 49, 8]
    batches = length_buckets(lengths, batch_size=3, max_batch_tokens=100)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        assert len(b) <= 3
        assert max(lengths[i] for i in b) * len(b) <= 100
    # similar lengths together: the short ones never share a batch with the long ones
    assert {frozenset(b) for b in batches} >= {frozenset({0, 2, 4})}


def test_attentions_restore_fast_implementation(loaded_models):
    loaded = loaded_models["gpt2"]
    before = loaded.model.config._attn_implementation
    encode(loaded, TEXT, attentions=True)
    assert loaded.model.config._attn_implementation == before


def test_greedy_decoder_side_without_target(loaded_models):
    loaded = loaded_models["bart"]
    result = encode(loaded, TEXT)
    dec = result.decoder
    assert dec.from_greedy
    assert 1 <= len(dec.output_ids) <= 64
    assert dec.ids[1:] == dec.output_ids[:-1]
    assert dec.cross_attentions.shape[-2:] == (len(dec.ids), len(result.tokens))
