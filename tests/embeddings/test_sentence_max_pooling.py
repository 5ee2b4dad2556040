"""STS's ``max`` pooling (issue 32): each dimension's maximum over a sentence's token vectors, checked against the
model's own last hidden state taken directly through transformers; and a model without a declared pooling refuses
``model`` pooling with a message naming max."""

from __future__ import annotations

import pytest
import torch

from lm_workbench.engine.embeddings.sentence_embeddings import resolve_pooling, sentence_vectors
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import drive


def test_max_pooling_is_the_maximum_over_the_tokens(tiny_models):
    from transformers import AutoModel, AutoTokenizer

    from lm_workbench.engine.models.loading import load_source as load_model

    folder = tiny_models["bert"]
    loaded = load_model(str(folder))
    texts = ["The cat sat on the mat.", "A much longer sentence, with a comma and more words in it."]
    got = drive(sentence_vectors(loaded, texts, pooling="max"))
    model, tokenizer = AutoModel.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)
    for row, text in zip(got, texts):
        with torch.no_grad():
            states = model(**tokenizer(text, return_tensors="pt")).last_hidden_state[0]  # [T, H], every token
        torch.testing.assert_close(torch.from_numpy(row), states.max(dim=0).values, atol=1e-5, rtol=1e-5)
    assert resolve_pooling("max", None) == ("max", False)
    with pytest.raises(WorkbenchError, match="mean, cls or max"):
        resolve_pooling("model", folder)
