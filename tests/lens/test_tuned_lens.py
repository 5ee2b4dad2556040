"""The tuned lens's engine: identity translators are the logit lens, training lowers the KL, files round-trip.

Every KL here is checked against ``reference_kl`` (tests/support/tuned_lens_reference.py): plain transformers
hidden states, GPT-2's own ``ln_f`` and ``lm_head``, log-softmax in float64, the translators' weights applied
by hand.
"""

from __future__ import annotations

import tempfile

import numpy as np
import pytest
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import drive
from lm_workbench.engine.lens.tuned.config import TunedLensConfig
from lm_workbench.engine.lens.tuned.lens import read_both, translators_for
from lm_workbench.engine.lens.tuned.train import corpus_kl, corpus_windows, train_tuned_lens
from lm_workbench.engine.lens.tuned.translators import load_translators, save_translators
from tests.support.tuned_lens_reference import corpus_file, reference_kl

TEXT = "The value of the object is returned when the function is called."


@pytest.fixture(scope="module")
def loaded(tiny_models):
    from lm_workbench.engine.models.loading import load_source as load_model

    return load_model(str(tiny_models["gpt2"]))


@pytest.fixture(scope="module")
def trained(loaded, tmp_path_factory):
    """30 steps on 300 lines of the pydoc topics (windows of 32 tokens, 8 held out)."""
    from lm_workbench.engine.pretrain.corpus import corpus_lines

    folder = tmp_path_factory.mktemp("tuned")
    windows = corpus_windows(loaded.tokenizer, corpus_lines([corpus_file(folder)]), 32)
    config = TunedLensConfig(steps=30, batch_size=4, seq_len=32, lr=1e-2, eval_every=0, warmup_steps=3)
    result = drive(train_tuned_lens(loaded, windows[8:], windows[:8], config, checkpoint_dir=folder / "ckpt"))
    return result, windows[:8]


def _ids(loaded, text=TEXT):
    return torch.tensor([loaded.tokenizer(text)["input_ids"]])


def test_identity_translators_read_exactly_as_the_logit_lens(loaded):
    translators = translators_for(loaded)
    assert not translators.weight.detach().any() and not translators.bias.detach().any()
    both = read_both(loaded, TEXT, translators, k=3)
    expected = reference_kl(loaded.model, _ids(loaded))
    np.testing.assert_allclose(both.kl_logit, expected, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(both.kl_tuned, expected, rtol=1e-6, atol=1e-12)
    assert both.tuned.to_dict() == both.logit.to_dict()  # every layer's top 3, ids and probabilities
    assert both.kl_tuned[-1] == 0.0 and len(both.kl_tuned) == loaded.info.layers + 1


def test_training_lowers_the_held_out_kl_and_leaves_the_model_alone(loaded, trained):
    result, held_out = trained
    assert result.steps == 30
    np.testing.assert_allclose(result.kl_tuned_before, result.kl_logit, rtol=1e-6)  # identity at the start
    np.testing.assert_allclose(result.kl_logit_after, result.kl_logit, rtol=1e-6)  # the model did not change
    # The held-out KL, recomputed by hand, window by window, with the trained weights.
    weight, bias = result.translators.weight.detach(), result.translators.bias.detach()
    expected_tuned = np.mean([reference_kl(loaded.model, torch.as_tensor(w)[None], weight, bias) for w in held_out], 0)
    expected_logit = np.mean([reference_kl(loaded.model, torch.as_tensor(w)[None]) for w in held_out], 0)
    np.testing.assert_allclose(result.kl_tuned, expected_tuned, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(result.kl_logit, expected_logit, rtol=1e-6, atol=1e-12)
    assert expected_tuned[:-1].mean() < 0.7 * expected_logit[:-1].mean()
    assert all(t < g for t, g in zip(expected_tuned[:-1], expected_logit[:-1]))  # every layer, not just the mean
    assert all(p.requires_grad for p in loaded.model.parameters())  # the frozen flags were restored
    assert not loaded.model.training


def test_a_trained_lens_reads_a_text_as_computed_by_hand(loaded, trained):
    result, _ = trained
    both = read_both(loaded, TEXT, result.translators, k=1)
    weight, bias = result.translators.weight.detach(), result.translators.bias.detach()
    np.testing.assert_allclose(both.kl_tuned, reference_kl(loaded.model, _ids(loaded), weight, bias), rtol=1e-6,
                               atol=1e-10)
    with torch.no_grad():
        out = loaded.model(input_ids=_ids(loaded), output_hidden_states=True)
        h = out.hidden_states[1][0]
        probs = torch.softmax(loaded.model.lm_head(loaded.model.transformer.ln_f(h + h @ weight[1].T + bias[1])), -1)
    assert [row[0].id for row in both.tuned.top[1]] == probs.argmax(-1).tolist()
    np.testing.assert_allclose([row[0].prob for row in both.tuned.top[1]], probs.max(-1).values.numpy(), rtol=1e-5)


def test_saved_translators_load_back_to_identical_outputs(loaded, trained, tmp_path):
    result, held_out = trained
    save_translators(result.translators, tmp_path / "lens", {"model": "tiny"})
    again = load_translators(tmp_path / "lens", count=loaded.info.layers, hidden=loaded.info.hidden_size)
    assert torch.equal(again.weight, result.translators.weight.detach().cpu())
    assert torch.equal(again.bias, result.translators.bias.detach().cpu())
    assert corpus_kl(loaded, held_out[:2], again).tolist() == corpus_kl(loaded, held_out[:2], result.translators).tolist()
    with pytest.raises(WorkbenchError, match="this model has 5"):
        load_translators(tmp_path / "lens", count=5, hidden=loaded.info.hidden_size)
    with pytest.raises(WorkbenchError, match="holds no tuned lens"):
        load_translators(tmp_path)


def test_encoder_decoders_are_refused_with_one_line(tiny_models):
    from lm_workbench.engine.models.loading import load_source as load_model

    t5 = load_model(str(tiny_models["t5"]))
    with pytest.raises(WorkbenchError, match="decoders and masked LMs"):
        drive(train_tuned_lens(t5, np.zeros((2, 8), np.int64), np.zeros((1, 8), np.int64),
                               checkpoint_dir=tempfile.mkdtemp()))
