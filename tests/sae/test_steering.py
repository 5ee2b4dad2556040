"""Steering equals a hand-written hook adding the vector (a decoder, a masked LM, an encoder-decoder); the
contrastive direction equals the mean difference computed here; a NaN output stops with one line; the grid's
concept score and KL follow their definitions."""

from __future__ import annotations

import pytest
import torch

from lm_workbench.engine.anatomy.points import resolve
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source
from lm_workbench.engine.progress import drive
from lm_workbench.engine.steering.apply import steer
from lm_workbench.engine.steering.grid import steering_grid
from lm_workbench.engine.steering.vectors import contrastive_direction

# family, the text, the site, the module a plain hook goes on, how the plain forward reads the prediction
CASES = {
    "gpt2": ("The cat sat", "blocks.1.hook_resid_post", lambda m: m.transformer.h[1]),
    "bert": ("the cat [MASK] on the mat", "blocks.0.hook_resid_post", lambda m: m.bert.encoder.layer[0]),
    "bart": ("The cat sat", "decoder.blocks.0.hook_resid_post", lambda m: m.model.decoder.layers[0]),
}


@pytest.fixture(scope="module")
def models(tiny_models):
    return {kind: load_source(str(tiny_models[kind])) for kind in CASES}


def _plain_logits(loaded, kind, text, module, add):
    """The prediction's logits from a plain forward with a hand-written forward hook adding ``add``."""
    tok, model = loaded.tokenizer, loaded.model
    batch = tok(text.replace("[MASK]", tok.mask_token or "[MASK]"), return_tensors="pt")
    handle = module.register_forward_hook(
        lambda m, a, out: (out[0] + add, *out[1:]) if isinstance(out, tuple) else out + add)
    try:
        with torch.no_grad():
            if kind == "bart":
                start = torch.tensor([[model.config.decoder_start_token_id]])
                return model(**batch, decoder_input_ids=start).logits[0, 0]
            logits = model(**batch).logits[0]
    finally:
        handle.remove()
    if kind == "bert":
        return logits[int((batch["input_ids"][0] == tok.mask_token_id).nonzero()[0])]
    return logits[-1]


@pytest.mark.parametrize("kind", sorted(CASES))
def test_steering_equals_a_hand_written_hook_adding_the_vector(models, kind):
    loaded = models[kind]
    text, site_name, module_of = CASES[kind]
    vector = torch.randn(loaded.info.hidden_size, generator=torch.Generator().manual_seed(0))
    result = steer(loaded, text, resolve(loaded, site_name), vector, 3.0, k=5)
    steered = _plain_logits(loaded, kind, text, module_of(loaded.model), 3.0 * vector).softmax(-1)
    clean = _plain_logits(loaded, kind, text, module_of(loaded.model), 0.0).softmax(-1)
    for side, probs in ((result.steered, steered), (result.unsteered, clean)):
        values, ids = probs.topk(5)
        assert [c["id"] for c in side.top] == ids.tolist()
        assert [c["probability"] for c in side.top] == pytest.approx(values.tolist(), rel=1e-4)
    assert result.kl == pytest.approx(float((clean * (clean.log() - steered.log())).sum()), rel=1e-3, abs=1e-7)
    assert result.steered.top != result.unsteered.top  # the vector changed the prediction


def test_an_encoders_contrastive_direction_reads_the_last_word_not_sep(models):
    loaded = models["bert"]
    tok, model = loaded.tokenizer, loaded.model

    def last_word(text):
        batch = tok(text, return_tensors="pt")
        with torch.no_grad():
            hidden = model(**batch, output_hidden_states=True).hidden_states[1][0]
        assert batch["input_ids"][0, -1] == tok.sep_token_id
        return hidden[-2]  # the token before [SEP]

    got = contrastive_direction(loaded, resolve(loaded, "blocks.0.hook_resid_post"), ["good"], ["bad"])
    assert torch.allclose(got, last_word("good") - last_word("bad"), atol=1e-5)


def test_the_contrastive_direction_is_the_mean_difference(models):
    loaded = models["gpt2"]
    tok, model = loaded.tokenizer, loaded.model
    pos, neg = ["I love this", "What a wonderful day"], ["I hate this", "What a terrible day", "Awful"]

    def last(text):
        with torch.no_grad():
            hidden = model(**tok(text, return_tensors="pt"), output_hidden_states=True).hidden_states
        return hidden[1][0, -1]  # blocks.0.hook_resid_post = hidden_states[1]

    expected = torch.stack([last(t) for t in pos]).mean(0) - torch.stack([last(t) for t in neg]).mean(0)
    got = contrastive_direction(loaded, resolve(loaded, "blocks.0.hook_resid_post"), pos, neg)
    assert torch.allclose(got, expected, atol=1e-5)


def test_a_strength_that_makes_the_output_nan_stops_in_one_line(models):
    loaded = models["gpt2"]
    vector = torch.ones(loaded.info.hidden_size)
    with pytest.raises(WorkbenchError, match="NaN or infinite: stopped"):
        steer(loaded, "The cat", resolve(loaded, "blocks.0.hook_resid_post"), vector, float("inf"))


def test_the_grid_scores_each_cell_by_its_definition(models):
    loaded = models["gpt2"]
    vector = torch.randn(loaded.info.hidden_size, generator=torch.Generator().manual_seed(1))
    grid = drive(steering_grid(loaded, "The cat sat", [0, 1], [0.0, 4.0, float("inf")],
                               lambda layer: (resolve(loaded, f"blocks.{layer}.hook_resid_post"), vector), ["the"]))
    assert len(grid.cells) == 6
    word = loaded.tokenizer(" the", add_special_tokens=False)["input_ids"][0]
    clean = _plain_logits(loaded, "gpt2", "The cat sat", loaded.model.transformer.h[1], 0.0)
    cell = next(c for c in grid.cells if c.layer == 1 and c.strength == 4.0)
    steered = _plain_logits(loaded, "gpt2", "The cat sat", loaded.model.transformer.h[1], 4.0 * vector)
    assert cell.concept_score == pytest.approx(float(steered[word] - clean[word]), rel=1e-4)
    zero = next(c for c in grid.cells if c.layer == 0 and c.strength == 0.0)
    assert zero.concept_score == pytest.approx(0.0, abs=1e-5) and zero.kl == pytest.approx(0.0, abs=1e-6)
    broken = [c for c in grid.cells if c.strength == float("inf")]
    assert all(c.kl is None and c.concept_score is None for c in broken) and len(grid.notes) == 2


@pytest.mark.parametrize("kind, filler, tail", [
    # the reported case: a decoder's text longer than its window raised IndexError; it reads the last window
    ("gpt2", "the dog ran far away. ", "The cat sat"),
    ("bert", "the dog ran far away. ", "the cat [MASK] on the mat"),
])
def test_a_text_longer_than_the_window_steers_the_window_holding_the_position(models, kind, filler, tail):
    from tests.support.tiny_models import WINDOW

    loaded = models[kind]
    site = resolve(loaded, CASES[kind][1])
    vector = torch.randn(loaded.info.hidden_size, generator=torch.Generator().manual_seed(1))
    text = filler * WINDOW + tail if kind == "gpt2" else tail + " " + filler * WINDOW
    result = steer(loaded, text, site, vector, 2.0, k=3)
    assert any(note.startswith("tokens ") and " of " in note for note in result.notes), result.notes
    ids = loaded.tokenizer(text.replace("[MASK]", loaded.tokenizer.mask_token or "[MASK]"))["input_ids"]
    assert len(ids) > WINDOW  # the text is longer than the window
    if kind == "gpt2":  # the last window: the same prediction as the window's text alone
        window_text = loaded.tokenizer.decode(ids[-WINDOW:])
        alone = steer(loaded, window_text, site, vector, 2.0, k=3)
        assert [c["id"] for c in result.steered.top] == [c["id"] for c in alone.steered.top]
