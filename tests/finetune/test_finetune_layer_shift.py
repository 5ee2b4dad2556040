"""Before/after per layer: linear CKA against an independent (Gram-matrix, HSIC) computation; cosine by hand."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.layer_shift import layer_shift
from lm_workbench.engine.maths.similarity import linear_cka, mean_cosine
from tests.support.cka_reference import hsic_cka as cka_by_hsic  # Kornblith et al. (2019): HSIC, n x n form


def test_linear_cka_matches_the_hsic_definition_and_its_invariances():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 7))
    y = x @ rng.normal(size=(7, 5)) + 0.5 * rng.normal(size=(40, 5))
    assert linear_cka(x, y) == pytest.approx(cka_by_hsic(x, y), rel=1e-10)
    q, _ = np.linalg.qr(rng.normal(size=(7, 7)))
    assert linear_cka(x, 3.0 * x @ q + 2.0) == pytest.approx(1.0, abs=1e-12)  # rotation, scale, shift
    unrelated = rng.normal(size=(40, 7))
    assert linear_cka(x, unrelated) < 0.5
    with pytest.raises(WorkbenchError):
        linear_cka(x[:1], y[:1])


def test_mean_cosine_by_hand():
    x = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    y = np.array([[1.0, 0.0], [0.0, -1.0], [1.0, 0.0]])
    assert mean_cosine(x, y) == pytest.approx((1.0 - 1.0 + 1 / np.sqrt(2)) / 3)


def test_layer_shift_is_one_for_the_same_model_and_finds_the_changed_layer(tiny_models):
    from transformers import AutoModel, AutoTokenizer

    torch.set_num_threads(1)
    folder = tiny_models["bert"]
    tokenizer = AutoTokenizer.from_pretrained(folder)
    base = AutoModel.from_pretrained(folder)
    tuned = AutoModel.from_pretrained(folder)
    texts = ["the cat sat on the mat", "a dog ran in the park today", "green ideas sleep"]
    same = layer_shift(base, tuned, tokenizer, texts)
    assert len(same) == base.config.num_hidden_layers + 1
    assert all(r.cka == pytest.approx(1.0, abs=1e-6) and r.mean_cosine == pytest.approx(1.0, abs=1e-6)
               for r in same)
    with torch.no_grad():  # move the last layer's output projection only
        last = tuned.encoder.layer[-1].output.dense
        last.weight.add_(torch.randn_like(last.weight) * 0.5)
    moved = layer_shift(base, tuned, tokenizer, texts)
    assert all(r.cka == pytest.approx(1.0, abs=1e-6) for r in moved[:-1])
    assert moved[-1].cka < 0.999 and moved[-1].mean_cosine < 0.999
