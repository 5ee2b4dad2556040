"""Layer × layer CKA between two models: against word vectors and an HSIC CKA computed here in numpy."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lm_workbench.engine.compare.cka import layer_cka
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model
from tests.support.cka_reference import hsic_cka, word_means

TEXTS = ["The cat sat on the mat.", "Dogs chase cats, don't they?", "A tokenizer splits unusual words."]


@pytest.fixture(scope="module")
def bert_gpt2(tiny_models):
    return load_model(str(tiny_models["bert"])), load_model(str(tiny_models["gpt2"]))


def test_bert_vs_gpt2_equals_numpy_hsic_cka_of_word_means(bert_gpt2):
    bert, gpt2 = bert_gpt2
    result = layer_cka(bert, gpt2, TEXTS)
    words = [w for t in TEXTS for w in t.split()]
    assert result.words == words
    xa, xb = word_means(bert, TEXTS), word_means(gpt2, TEXTS)
    assert result.layers_a == list(range(len(xa))) and result.layers_b == list(range(len(xb)))
    expected = np.array([[hsic_cka(a, b) for b in xb] for a in xa])
    assert result.cka.shape == expected.shape
    np.testing.assert_allclose(result.cka, expected, atol=1e-4)
    assert np.all((result.cka > 0) & (result.cka <= 1 + 1e-9))


def test_a_model_against_itself_has_a_diagonal_of_one(bert_gpt2):
    bert, _ = bert_gpt2
    result = layer_cka(bert, bert, TEXTS)
    np.testing.assert_allclose(np.diag(result.cka), 1.0, atol=1e-9)
    np.testing.assert_allclose(result.cka, result.cka.T, atol=1e-9)


def test_fewer_than_two_words_is_refused(bert_gpt2):
    bert, gpt2 = bert_gpt2
    with pytest.raises(WorkbenchError, match="two words"):
        layer_cka(bert, gpt2, ["alone", "   "])


def test_cli_compare_prints_the_matrix_as_json(tiny_models, bert_gpt2, capsys):
    from lm_workbench.cli.main import main

    bert, gpt2 = bert_gpt2
    code = main(["compare", str(tiny_models["bert"]), str(tiny_models["gpt2"]), "--text", TEXTS[0],
                 "--text", TEXTS[1], "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"model_a", "model_b", "layers_a", "layers_b", "words", "cka"}
    assert out["words"] == TEXTS[0].split() + TEXTS[1].split()
    np.testing.assert_allclose(out["cka"], layer_cka(bert, gpt2, TEXTS[:2]).cka, atol=1e-9)
