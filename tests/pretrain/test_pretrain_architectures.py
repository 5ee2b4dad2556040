"""Architectures for pre-training: presets, configs from tokenizers, models per head, parameter counts."""

from __future__ import annotations

import time

import pytest
import torch
import transformers

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.objectives.api import HEADS
from lm_workbench.engine.pretrain.architectures import (
    ENGINE_FAMILY, FAMILY_HEADS, PRESETS, ArchitectureSpec, build_config, build_model, count_parameters,
)
from tests.support.pretrain_helpers import train_all, write_corpus

CLASSES = {
    ("bert", "mlm"): transformers.BertForMaskedLM, ("bert", "pretraining-nsp"): transformers.BertForPreTraining,
    ("gpt2", "causal-lm"): transformers.GPT2LMHeadModel,
    ("bart", "seq2seq-lm"): transformers.BartForConditionalGeneration,
    ("t5", "seq2seq-lm"): transformers.T5ForConditionalGeneration,
}


@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory):
    root = tmp_path_factory.mktemp("pretrain-arch")
    return train_all(root, write_corpus(root / "corpus.txt", documents=20), vocab_size=350)


def test_presets_are_turc_et_al_sizes():
    assert PRESETS == {"tiny": (2, 128), "mini": (4, 256), "small": (4, 512), "base": (12, 768)}
    for name, (layers, hidden) in PRESETS.items():
        r = ArchitectureSpec("bert", name).resolved()
        assert (r.layers, r.hidden, r.heads, r.intermediate) == (layers, hidden, hidden // 64, 4 * hidden)
    edited = ArchitectureSpec("gpt2", "mini", layers=3, heads=2).resolved()
    assert (edited.layers, edited.hidden, edited.heads, edited.intermediate) == (3, 256, 2, 1024)
    assert ENGINE_FAMILY == {"bert": Family.ENCODER, "gpt2": Family.DECODER, "bart": Family.ENCODER_DECODER,
                             "t5": Family.ENCODER_DECODER, "elmo": Family.BILM}
    assert {h for heads in FAMILY_HEADS.values() for h in heads} <= set(HEADS)


@pytest.mark.parametrize("family, head", list(CLASSES))
def test_build_count_save_and_load(tokenizers, tmp_path, family, head):
    tok = tokenizers[family]
    spec = ArchitectureSpec(family, "tiny", layers=1, hidden=64, max_positions=48)
    config = build_config(spec, tok)
    assert config.vocab_size == len(tok) and config.pad_token_id == tok.pad_token_id
    if family != "bert":
        assert config.eos_token_id == tok.eos_token_id
    if family == "bart":
        assert config.decoder_start_token_id == tok.eos_token_id and config.bos_token_id == tok.bos_token_id
    if family == "t5":
        assert config.decoder_start_token_id == tok.pad_token_id and config.num_decoder_layers == 1
    torch.manual_seed(0)
    model = build_model(config, head)
    assert type(model) is CLASSES[(family, head)]
    real = sum(p.numel() for p in model.parameters())
    assert count_parameters(spec, len(tok), head) == real
    # A forward pass with an example of the family's layout works.
    ids = torch.tensor([tok("the cat sees a dog")["input_ids"]])
    kwargs = {"labels": ids} if family in ("bart", "t5") else {}
    out = model(input_ids=ids, **kwargs)
    logits = out.prediction_logits if head == "pretraining-nsp" else out.logits  # [1, T, vocab]
    assert logits.shape == (1, ids.shape[1], len(tok))
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    loaded = load_model(str(tmp_path), device="cpu")
    assert loaded.family is ENGINE_FAMILY[family]
    assert loaded.info.has_mlm_head or loaded.info.has_lm_head
    assert loaded.info.layers == 1 and loaded.info.hidden_size == 64 and loaded.info.vocab_size == len(tok)
    assert loaded.info.max_positions == 48
    if head != "pretraining-nsp":  # loaded as the family's analysis head, i.e. without the NSP classifier
        assert loaded.info.parameters == real
        assert all(torch.equal(p, q) for p, q in zip(model.state_dict().values(),
                                                     loaded.model.state_dict().values()))


def bert_mlm_parameters(vocab: int, positions: int, hidden: int, layers: int, intermediate: int) -> int:
    """BertForMaskedLM's size by hand: embeddings, layers, the MLM transform and output bias (weights tied)."""
    embeddings = (vocab + positions + 2) * hidden + 2 * hidden
    attention = 4 * (hidden * hidden + hidden) + 2 * hidden
    feed_forward = hidden * intermediate + intermediate + intermediate * hidden + hidden + 2 * hidden
    head = hidden * hidden + hidden + 2 * hidden + vocab
    return embeddings + layers * (attention + feed_forward) + head


def test_count_parameters_is_fast_and_exact_at_base_size():
    start = time.perf_counter()
    n = count_parameters(ArchitectureSpec("bert", "base"), 30522, "mlm")
    assert time.perf_counter() - start < 2.0
    assert n == bert_mlm_parameters(30522, 512, 768, 12, 3072)
    assert 105e6 < count_parameters(ArchitectureSpec("gpt2", "base", max_positions=1024), 50257, "causal-lm") < 130e6
    assert count_parameters(ArchitectureSpec("t5", "mini"), 8000, "seq2seq-lm") > \
        count_parameters(ArchitectureSpec("t5", "tiny"), 8000, "seq2seq-lm")


def test_elmo_sizes_and_exact_parameter_count():
    from lm_workbench.engine.elmo.bilm import ElmoModel

    r = ArchitectureSpec("elmo", "course", layers=3).resolved()
    assert (r.layers, r.hidden, r.intermediate, r.heads) == (3, 64, 256, None)
    built = ElmoModel(build_config(ArchitectureSpec("elmo", "tiny", hidden=16), ["w"] * 500, softmax_size=300))
    assert built.config.vocab_size == 300 and built.config.projection_dim == 16
    assert count_parameters(ArchitectureSpec("elmo", "tiny", hidden=16), 300, "bilm") == \
        sum(p.numel() for p in built.parameters())


@pytest.mark.parametrize("spec, words", [
    (ArchitectureSpec("bert", "huge"), "unknown preset"),
    (ArchitectureSpec("xlnet"), "unknown model family"),
    (ArchitectureSpec("elmo", "base"), "unknown ELMo preset"),
    (ArchitectureSpec("elmo", heads=2), "no attention heads"),
    (ArchitectureSpec("elmo", hidden=256, intermediate=128), "cannot be wider"),
    (ArchitectureSpec("bert", hidden=100, heads=3), "not divisible"),
    (ArchitectureSpec("gpt2", layers=0), "layers must be"),
    (ArchitectureSpec("elmo", dropout=0.0), "no dropout setting"),
    (ArchitectureSpec("t5", dropout=1.0), "dropout must be"),
    (ArchitectureSpec("bert", dropout=-0.1), "dropout must be"),
])
def test_bad_specs(spec, words):
    with pytest.raises(WorkbenchError, match=words):
        spec.resolved()


def test_head_must_fit_the_family(tokenizers):
    config = build_config(ArchitectureSpec("gpt2", layers=1, hidden=64), tokenizers["gpt2"])
    with pytest.raises(WorkbenchError, match="cannot have"):
        build_model(config, "mlm")
    with pytest.raises(WorkbenchError, match="cannot have"):
        count_parameters(ArchitectureSpec("t5"), 1000, "causal-lm")


@pytest.mark.parametrize("family, head", [(f, h) for f, h in CLASSES if h != "pretraining-nsp"])
def test_dropout_sets_every_dropout_of_the_model(tokenizers, family, head):
    """``dropout=0`` leaves no dropout anywhere: in training mode two forward passes (different random states)
    give the eval-mode output exactly; the family's default and ``dropout=0.3`` do not. The parameter count is
    the same (dropout has no weights)."""
    tok = tokenizers[family]
    ids = torch.tensor([tok("the cat sees a dog and the dog sees a cat")["input_ids"]])
    kwargs = {"labels": ids} if family in ("bart", "t5") else {}

    def logits(dropout, train, seed):
        spec = ArchitectureSpec(family, "tiny", layers=1, hidden=64, max_positions=48, dropout=dropout)
        torch.manual_seed(0)
        model = build_model(build_config(spec, tok), head).train(train)
        assert count_parameters(spec, len(tok), head) == sum(p.numel() for p in model.parameters())
        torch.manual_seed(seed)
        with torch.no_grad():
            return model(input_ids=ids, **kwargs).logits

    for dropout in (None, 0.0, 0.3):
        reference = logits(dropout, train=False, seed=0)
        first, second = logits(dropout, train=True, seed=1), logits(dropout, train=True, seed=2)
        if dropout == 0.0:
            assert torch.equal(first, reference) and torch.equal(second, reference)
        else:
            assert not torch.allclose(first, reference) and not torch.allclose(first, second)
