"""Layer × layer CKA between BERT and ELMo (a tiny biLM built here, as tests/elmo do): every whitespace word
is a row, the matrix is (BERT's layers + 1) × (ELMo's layers + 1), and equals the numpy HSIC CKA of BERT's
word means against ELMo's own forward pass on each sentence's words."""

from __future__ import annotations

import numpy as np
import torch

from lm_workbench.engine.compare.cka import layer_cka
from lm_workbench.engine.elmo.characters import batch_to_char_ids
from lm_workbench.engine.models.loading import load_source as load_model
from tests.support.cka_reference import hsic_cka, word_means
from tests.support.elmo_reference import tiny_elmo

# no punctuation: ELMo's tokens are then exactly the whitespace words (it splits "mat." into two)
TEXTS = ["The cat sat on the mat", "Dogs chase cats and they run", "A tokenizer splits unusual words"]


def test_bert_vs_elmo(tiny_models, tmp_path):
    elmo_model, folder = tiny_elmo(tmp_path / "tiny-elmo")
    config = elmo_model.config
    bert, elmo = load_model(str(tiny_models["bert"])), load_model(str(folder))

    result = layer_cka(bert, elmo, TEXTS)
    words = [w for t in TEXTS for w in t.split()]
    assert result.words == words  # both saw every whitespace word
    assert result.cka.shape == (bert.model.config.num_hidden_layers + 1, config.n_layers + 1)

    with torch.no_grad():  # ELMo's layers per word, sentence by sentence, from the biLM built above
        per_text = [elmo_model(batch_to_char_ids([t.split()])).layers for t in TEXTS]
    xb = [np.concatenate([layers[i][0].double().numpy() for layers in per_text]) for i in range(config.n_layers + 1)]
    xa = word_means(bert, TEXTS)
    expected = np.array([[hsic_cka(a, b) for b in xb] for a in xa])
    np.testing.assert_allclose(result.cka, expected, atol=1e-4)
