"""The ``bilm`` objective plugin: its batch and loss against ElmoModel's own biLM loss, built by hand."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.elmo.bilm import ElmoModel
from lm_workbench.engine.elmo.characters import batch_to_char_ids
from lm_workbench.engine.elmo.config import ElmoConfig
from lm_workbench.engine.elmo.words import build_word_vocabulary, word_level_tokenizer
from lm_workbench.engine.plugin_api import LossContext, WorkbenchError
from lm_workbench.plugins.objectives.bilm import BidirectionalLM
from tests.support.elmo_entry_point import bilm_registered  # noqa: F401 (fixture)

LINES = ["the cat sat on the mat .", "a dog sat , the cat ran", "the end"]


@pytest.fixture(scope="module")
def tokenizer():
    return word_level_tokenizer(build_word_vocabulary(LINES))


def _model(vocab_size: int) -> ElmoModel:
    torch.manual_seed(0)
    return ElmoModel(ElmoConfig(char_embedding_dim=4, filters=((1, 4), (2, 4)), n_highway=1, lstm_dim=8,
                                projection_dim=4, n_layers=2, vocab_size=vocab_size))


def test_vocabulary_is_frequency_sorted_after_the_markers(tokenizer):
    vocab = build_word_vocabulary(LINES)
    assert vocab[:6] == ["<S>", "</S>", "<UNK>", "the", "cat", "sat"]  # the x4, cat x2, sat x2 (first seen first)
    assert tokenizer("the cat", add_special_tokens=True)["input_ids"] == [3, 4]  # no markers added
    assert build_word_vocabulary(LINES, max_size=5) == vocab[:5]


def test_batch_and_loss_equal_the_models_bilm_loss(tokenizer):
    objective = BidirectionalLM()
    config = objective.default_config()
    objective.check_requirements(tokenizer, {"family": "biLM", "spec": "x"}, config)
    with pytest.raises(WorkbenchError, match="bilm is for biLM models"):
        objective.check_requirements(tokenizer, {"family": "encoder", "spec": "x"}, config)
    sentences = [LINES[0].split(), LINES[2].split()]
    ids = [tokenizer.convert_tokens_to_ids(s) for s in sentences]
    batch = objective.make_batch(ids, tokenizer, np.random.default_rng(0), config)
    assert torch.equal(batch.inputs["char_ids"], batch_to_char_ids(sentences))
    v = len(tokenizer)
    expected = torch.tensor([[0, *ids[0], 1], [0, *ids[1], 1] + [-100] * 5])  # <S> words </S>, padding -100
    assert torch.equal(batch.labels, expected)

    model = _model(v)
    with torch.no_grad():
        loss, metrics = objective.loss(model, batch, LossContext(config=config))
        direct = model.bilm_loss(batch_to_char_ids(sentences), expected)
    assert float(loss) == pytest.approx(float(direct.loss), abs=1e-6)
    assert metrics["forward_loss"] == pytest.approx(float(direct.forward_loss), abs=1e-6)

    # a softmax smaller than the vocabulary scores the words past it as <UNK> (id 2)
    small = _model(6)
    with torch.no_grad():
        loss, _ = objective.loss(small, batch, LossContext(config=config))
    capped = expected.masked_fill(expected >= 6, 2)
    with torch.no_grad():
        want = float(small.bilm_loss(batch_to_char_ids(sentences), capped).loss)
    assert float(loss) == pytest.approx(want, abs=1e-6)


def test_sampled_softmax_trains_but_validation_scores_the_full_softmax(tokenizer):
    objective = BidirectionalLM()
    config = objective.Config(softmax="sampled", n_samples=4)
    batch = objective.make_batch([tokenizer.convert_tokens_to_ids(LINES[1].split())], tokenizer,
                                 np.random.default_rng(0), config)
    model = _model(len(tokenizer))
    full = float(model.bilm_loss(batch.inputs["char_ids"], batch.labels).loss.detach())
    model.eval()
    assert float(objective.loss(model, batch, LossContext(config=config))[0].detach()) == pytest.approx(full, abs=1e-6)
    model.train()
    torch.manual_seed(1)
    sampled, _ = objective.loss(model, batch, LossContext(config=config))
    assert abs(float(sampled.detach()) - full) > 1e-3  # 4 candidates of 13 words: not the full softmax
    sampled.backward()
    assert model.softmax.weight.grad is not None


def test_registry_finds_bilm_for_the_bilm_family(bilm_registered, tmp_path):
    from lm_workbench.extensions.registry import ObjectiveRegistry
    from lm_workbench.settings import Settings

    registry = ObjectiveRegistry.discover(Settings(), root=tmp_path / "no-folder-plugins")
    record = registry.record("bilm")
    assert (record.status, record.families, record.error) == ("ok", ["biLM"], None)
