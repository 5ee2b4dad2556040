"""Texts longer than the model's window (issue 42, kind 1): the harness.

Random Unicode texts, short and long (on both sides of the tiny models' 64-token window), go through every
command that answers at a position: next token, fill-mask, infilling, attribution, DLA, ablation, patching,
the logit lens, and the whole-text encode. Each says which tokens it read ("tokens a–b of n" in its notes, or
nothing when it read the whole text); the test checks that window against the rule written out independently
(``tests/support/window_reference.py``: a decoder's last window; an encoder's window holding every mask, as
much context on both sides as fits) and the answer against plain ``transformers`` run on exactly that window.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from lm_workbench.engine.analysis import encode
from lm_workbench.engine.attribution.attribute import attribute
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.heads.ablation import ablate
from lm_workbench.engine.heads.dla import direct_logit_attribution
from lm_workbench.engine.lens.logit import logit_lens
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.patching.tracing import restored_metric
from lm_workbench.engine.predictions import fill_mask, infill, next_tokens
from tests.support.window_reference import (
    check_decoder_window, check_mask_window, said_window, specials, text_ids, window_ids,
)

WINDOW = 64  # tests.support.tiny_models.WINDOW
HARNESS = settings(derandomize=True, deadline=None, max_examples=12, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# Unicode words (letters, marks, numbers, symbols, punctuation from every script; no controls or surrogates),
# cycled to a drawn number of words and joined by spaces: 1..200 words give from a few tokens to several windows
# (each family's 64 on both sides).
WORD = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Co", "Cn", "Zl", "Zp")), min_size=1, max_size=7)
TEXTS = st.builds(lambda words, count: " ".join(words[i % len(words)] for i in range(count)),
                  st.lists(WORD, min_size=1, max_size=12), st.integers(1, 200))


@pytest.fixture(scope="module")
def pairs(tiny_models):
    """kind -> (the workbench's loaded model, a plain transformers model and tokenizer of the same folder)."""
    import transformers as tf

    heads = {"gpt2": tf.AutoModelForCausalLM, "bert": tf.AutoModelForMaskedLM, "bart": tf.AutoModelForSeq2SeqLM,
             "t5": tf.AutoModelForSeq2SeqLM}
    out = {}
    for kind, head in heads.items():
        folder = str(tiny_models[kind])
        out[kind] = (load_model(folder), head.from_pretrained(folder).eval(), tf.AutoTokenizer.from_pretrained(folder))
    return out


def logits_on(model, ids: list[int], decoder_ids: list[int] | None = None) -> torch.Tensor:
    with torch.no_grad():
        if decoder_ids is None:
            return model(input_ids=torch.tensor([ids])).logits[0].double()
        return model(input_ids=torch.tensor([ids]), decoder_input_ids=torch.tensor([decoder_ids])).logits[0].double()


def with_masks(words: str, places: list[float], mask: str) -> str:
    """``words`` with ``mask`` put between words at the given fractions of the text."""
    parts = words.split(" ")
    for fraction in sorted(places, reverse=True):
        parts.insert(round(fraction * len(parts)), mask)
    return " ".join(parts)


@HARNESS
@given(text=TEXTS)
def test_a_decoder_answers_after_the_last_window_it_names(pairs, text):
    loaded, model, tokenizer = pairs["gpt2"]
    ids = text_ids(tokenizer, text)
    assume(ids)
    n = len(ids)

    read = next_tokens(loaded, text, k=3)  # next-token
    a, b = said_window([read.window.note] if read.window.cut else [], n)
    check_decoder_window(a, b, n, WINDOW)
    window = window_ids("gpt2", tokenizer, ids, a, b)
    assert read.ids == window
    logits = logits_on(model, window)[-1]
    p = torch.softmax(logits, -1)
    assert [c.id for c in read.candidates] == torch.argsort(-p, stable=True)[:3].tolist()
    assert np.allclose([c.prob for c in read.candidates], p[[c.id for c in read.candidates]].numpy(), atol=1e-6)
    top = read.candidates[0].token

    explained = attribute(loaded, text, target=top)  # attribute: the target's logit at the last position
    assert said_window(explained.notes, n) == (a, b) and explained.position == len(window) - 1
    assert explained.target_logit == pytest.approx(float(logits[explained.target_id]), abs=1e-4)

    dla = direct_logit_attribution(loaded, text, top)  # dla
    assert said_window(dla.notes, n) == (a, b) and dla.total == pytest.approx(float(logits[dla.target_id]), abs=1e-4)

    ablation = ablate(loaded, text, top, heads=[("self", 0, 0)])  # ablate
    assert said_window(ablation.notes, n) == (a, b)
    assert ablation.clean_metric == pytest.approx(float(logits[ablation.target_id]), abs=1e-4)

    _, patched = restored_metric(loaded, text, text, top, positions=[0])  # patch (clean = corrupt: same window)
    assert patched.notes == [f"{run} text: {n_}" for run in ("clean", "corrupted") for n_ in explained.notes]
    assert patched.clean_metric == pytest.approx(float(logits[patched.answer_id]), abs=1e-4)

    lens = logit_lens(loaded, text)  # lens: its last row is the model's output, its last column the next token
    assert said_window(lens.notes, n) == (a, b) and len(lens.tokens) == len(window)
    assert lens.top[-1][-1][0].id == read.candidates[0].id

    encoded = encode(loaded, text)  # encode (a whole-text view): the same window, said the same way
    assert encoded.tokenized.ids == window and said_window([encoded.tokenized.window_note or ""], n) == (a, b)


@HARNESS
@given(text=TEXTS, places=st.lists(st.floats(0, 1), min_size=1, max_size=2))
def test_an_encoder_reads_a_window_holding_every_mask(pairs, text, places):
    loaded, model, tokenizer = pairs["bert"]
    masked = with_masks(text, places, "[MASK]")
    ids = text_ids(tokenizer, masked)
    masks = [i for i, t in enumerate(ids) if t == tokenizer.mask_token_id]
    assert len(masks) == len(places)
    n, room = len(ids), WINDOW - 2
    if max(masks) - min(masks) + 1 > room:  # further apart than one window: refused in one line
        with pytest.raises(WorkbenchError, match="apart") as refused:
            fill_mask(loaded, masked)
        assert "\n" not in str(refused.value)
        return

    tok, predictions = fill_mask(loaded, masked, k=3)  # fill-mask
    a, b = said_window([tok.window_note] if tok.window_note else [], n)
    check_mask_window(a, b, n, room, masks)
    window = window_ids("bert", tokenizer, ids, a, b)
    assert tok.ids == window
    logits = logits_on(model, window)
    for prediction in predictions:
        p = torch.softmax(logits[prediction.position], -1)
        assert window[prediction.position] == tokenizer.mask_token_id
        assert [c.id for c in prediction.candidates] == torch.argsort(-p, stable=True)[:3].tolist()

    if len(masks) == 1:  # attribution, ablation, patching and the lens read one mask
        mask_at = predictions[0].position
        top = predictions[0].candidates[0].token
        explained = attribute(loaded, masked, target=top)
        assert said_window(explained.notes, n) == (a, b) and explained.position == mask_at
        assert explained.target_logit == pytest.approx(float(logits[mask_at, explained.target_id]), abs=1e-4)
        ablation = ablate(loaded, masked, top, heads=[("self", 1, 2)])
        assert ablation.clean_metric == pytest.approx(float(logits[mask_at, ablation.target_id]), abs=1e-4)
        _, patched = restored_metric(loaded, masked, masked, top, positions=[0])
        assert patched.clean_metric == pytest.approx(float(logits[mask_at, patched.answer_id]), abs=1e-4)
        lens = logit_lens(loaded, masked)
        assert said_window(lens.notes, n) == (a, b)
        assert lens.top[-1][mask_at][0].id == predictions[0].candidates[0].id

    encoded = encode(loaded, masked)  # a whole-text view of a masked text: the same window
    assert encoded.tokenized.ids == window


@HARNESS
@given(text=TEXTS, place=st.floats(0, 1), kind=st.sampled_from(["bart", "t5"]))
def test_an_encoder_decoder_reads_its_input_through_the_encoder_rule(pairs, text, place, kind):
    loaded, model, tokenizer = pairs[kind]
    mask = "<mask>" if kind == "bart" else "<extra_id_0>"
    masked = with_masks(text, [place], mask)
    ids = text_ids(tokenizer, masked)
    n = len(ids)
    masks = [i for i, t in enumerate(ids) if t == tokenizer.convert_tokens_to_ids(mask)]
    before, after = specials(kind, tokenizer)

    explained = attribute(loaded, masked)  # attribute: the first output token, from the encoder's window
    a, b = said_window(explained.notes, n)
    check_mask_window(a, b, n, WINDOW - len(before) - len(after), masks)
    window = window_ids(kind, tokenizer, ids, a, b)
    start = model.config.decoder_start_token_id
    logits = logits_on(model, window, [start])[0]
    assert explained.target_id == int(torch.argmax(logits))
    assert explained.target_logit == pytest.approx(float(logits[explained.target_id]), abs=1e-4)
    if kind == "bart":
        filled = infill(loaded, masked, max_new_tokens=2)  # infill: the encoder input is the same window
        assert filled.source_tokens == tokenizer.convert_ids_to_tokens(window)
        assert (filled.window.first, filled.window.last) == (a, b)
