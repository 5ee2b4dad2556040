"""Model B's vectors for A's corpus when B is ELMo (a tiny biLM built here) and A a tiny BERT: every A word
has its ELMo partner over the same characters, B's vectors are ELMo's own forward pass on the sentence's
words, and a spec B lacks falls back to B's last layer and says so."""

from __future__ import annotations

import numpy as np
import torch

from lm_workbench.engine.elmo.characters import batch_to_char_ids
from lm_workbench.engine.embeddings.corpus import Corpus
from lm_workbench.engine.embeddings.counterpart import compared_vectors_job, counterpart_representation
from lm_workbench.engine.embeddings.extract import extract_occurrence_vectors
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.progress import run_to_completion
from tests.support.elmo_reference import tiny_elmo

TEXTS = ["The cat sat on the mat", "Dogs chase cats and they run", "A tokenizer splits unusual words"]


def test_elmo_b_lines_up_with_bert_a(tiny_models, tmp_path):
    elmo_model, folder = tiny_elmo(tmp_path / "elmo")
    config = elmo_model.config
    bert, elmo = load_model(str(tiny_models["bert"])), load_model(str(folder))
    corpus = Corpus(lines=TEXTS, source="test")
    table_a = run_to_completion(extract_occurrence_vectors(bert, corpus, layers=[0, 1, 2, "static"]))
    compared = run_to_completion(compared_vectors_job(elmo, corpus, None, "mean", table_a, "2"))

    words = [(line, w) for line, text in enumerate(TEXTS) for w in text.split()]
    assert [(o.line, o.word) for o in table_a.occurrences] == words
    assert compared.rows.tolist() == list(range(len(words)))  # every word, in the same order
    assert compared.spec.layer == 2 and compared.note == ""
    with torch.no_grad():
        expected = np.concatenate([elmo_model(batch_to_char_ids([t.split()])).layers[2][0].double().numpy()
                                   for t in TEXTS])
    np.testing.assert_allclose(compared.vectors, expected, atol=2e-3)  # the activation cache keeps float16

    spec, vectors, note = counterpart_representation(compared.table, "mean:1-5")
    assert spec.layer == config.n_layers and "last layer" in note
    np.testing.assert_array_equal(vectors, compared.table.vectors_for(spec))
