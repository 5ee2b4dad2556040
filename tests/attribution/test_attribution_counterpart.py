"""Model B's side of an explanation (the Explain strip's A | B): the same prediction, the same word, in B.

Against plain transformers and a hand-written autograd loop on B: the next token after the same text in a
decoder B whose tokenizer differs (A's target word re-tokenized by B), the k-th mask of a masked text in a
BERT B; a B of another family says why in one line and explains nothing; a word B splits falls back to B's
own top token and says so.
"""

from __future__ import annotations

import numpy as np
import torch

from lm_workbench.engine.attribution.attribute import attribute
from lm_workbench.engine.attribution.counterpart import counterpart_job, same_token, target_word
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.progress import run_to_completion
from tests.support.grad_reference import hooked_grad_input

PROMPT = "The cat sat on the"


def test_a_decoder_b_explains_a_s_word_after_the_same_text(tiny_models):
    a, b = load_model(str(tiny_models["gpt2"])), load_model(str(tiny_models["llama"]))
    explained = attribute(a, PROMPT, "grad-input")
    word = target_word(a, explained.target_id)
    side = run_to_completion(counterpart_job(b, PROMPT, "next-token", word, "grad-input"))
    assert side.explanation is not None
    result = side.explanation.attribution

    ids = b.tokenizer(PROMPT)["input_ids"]  # B's own tokens of the text, B's own token for the word
    spelled = [t for t in (" " + word, word) if len(b.tokenizer(t, add_special_tokens=False)["input_ids"]) == 1]
    assert spelled, "the tiny decoders' tokenizers both hold A's top word as one token"
    assert result.target_id == b.tokenizer(spelled[0], add_special_tokens=False)["input_ids"][0]
    assert side.note == ""
    assert result.tokens == b.tokenizer.convert_ids_to_tokens(ids) and result.position == len(ids) - 1
    model = b.model
    expected = hooked_grad_input(model, model.get_input_embeddings(),
                                 lambda m: m(input_ids=torch.tensor([ids])).logits[0, -1, result.target_id])
    np.testing.assert_allclose(result.scores, expected, rtol=1e-4, atol=1e-7)


def test_a_masked_lm_b_explains_the_same_mask(tiny_models, tmp_path):
    import shutil

    from transformers import AutoModelForMaskedLM

    folder = tmp_path / "bert-b"
    shutil.copytree(tiny_models["bert"], folder)
    other = AutoModelForMaskedLM.from_pretrained(folder)
    torch.manual_seed(11)
    with torch.no_grad():
        for p in other.parameters():
            p.add_(0.3 * torch.randn_like(p))
    other.save_pretrained(folder)
    b = load_model(str(folder))
    text = "the [MASK] sat on the [MASK] ."
    side = run_to_completion(counterpart_job(b, text, "mask", "the", "grad-input", mask_index=1))
    result = side.explanation.attribution

    ids = b.tokenizer(text.replace("[MASK]", b.tokenizer.mask_token))["input_ids"]
    second_mask = [i for i, t in enumerate(ids) if t == b.tokenizer.mask_token_id][1]
    assert side.note == "" and result.position == second_mask and result.target_id == same_token(b, "the") == b.tokenizer.convert_tokens_to_ids("the")
    model = b.model
    expected = hooked_grad_input(model, model.get_input_embeddings(),
                                 lambda m: m(input_ids=torch.tensor([ids])).logits[0, second_mask, result.target_id])
    np.testing.assert_allclose(result.scores, expected, rtol=1e-4, atol=1e-7)
    with torch.no_grad():
        logit = float(model(input_ids=torch.tensor([ids])).logits[0, second_mask, result.target_id])
    assert abs(result.target_logit - logit) < 1e-4
    # a text written for a RoBERTa-style A (its <mask>) finds the same mask in B
    roberta_text = text.replace("[MASK]", "<mask>")
    again = run_to_completion(counterpart_job(b, roberta_text, "mask", "the", "grad-input", mask_index=1))
    assert again.explanation.attribution.scores == result.scores


def test_b_of_another_family_says_why_and_a_split_word_falls_back(tiny_models):
    bert, gpt2 = load_model(str(tiny_models["bert"])), load_model(str(tiny_models["gpt2"]))
    side = run_to_completion(counterpart_job(bert, PROMPT, "next-token", "mat", "rollout"))
    assert side.explanation is None
    assert side.note.startswith("Model B:") and "next token" in side.note and "encoder" in side.note
    assert "\n" not in side.note

    word = "xqzjvw"  # no tiny vocabulary holds this as one token
    assert same_token(gpt2, word) is None
    side = run_to_completion(counterpart_job(gpt2, PROMPT, "next-token", word, "grad-input"))
    ids = gpt2.tokenizer(PROMPT)["input_ids"]
    with torch.no_grad():
        top = int(torch.argmax(gpt2.model(input_ids=torch.tensor([ids])).logits[0, -1]))
    assert side.explanation.attribution.target_id == top
    assert "tokens for B" in side.note and "top token" in side.note
