"""Issue 48.2: a BART pre-trained from scratch reads its encoder.

Before the fix a freshly initialised BART (its ``final_logits_bias`` all zeros, a buffer that is never trained)
learnt the tokens' frequencies by putting one constant vector into its encoder: after 30 steps of this tiny run
every input gave the same encoder output (spread over positions 0.04 against 0.93 now) and the decoder ignored
its input. The fix starts that bias at the train tokens' unigram log-probabilities
(``lm_workbench.engine.pretrain.output_prior``). Checked here with plain numpy / transformers on the saved model
of a real ``run_pretrain``: the bias against counts made here from the packed train tokens, and the encoder
output of two sentences. (That the decoder then reads its input takes some 100 steps more: the course BART's
figure is measured by ``tests/bench/course_quality.py``.)
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
import torch
import transformers

from lm_workbench.engine.pretrain.output_prior import init_output_prior
from lm_workbench.engine.progress import NEVER_CANCELLED
from lm_workbench.pretrain.train import run_pretrain
from lm_workbench.pretrain.spec import PretrainSpec
from tests.support.pretrain_job_helpers import tiny_spec_dict, write_corpus

STEPS = 30


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny BART (2 + 2 layers x 64) after 30 steps of text infilling at lr 2e-3 (as the course BART)."""
    root = tmp_path_factory.mktemp("bart-encoder")
    corpus = write_corpus(root / "grammar.txt", n_documents=400, seed=0)
    torch.set_num_threads(1)
    spec = PretrainSpec.from_dict(tiny_spec_dict("bart", corpus, root / "bart", steps=STEPS, lr=2e-3, warmup_steps=3)
                                  | {"objective_config": {"sentence_permutation": "0", "text_infilling": "0.3"}})
    summary = run_pretrain(spec, cancel=NEVER_CANCELLED, report=lambda event: None)
    assert summary["steps"] == STEPS
    model_dir = root / "bart" / "model"
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(model_dir).eval()
    return root / "bart", tokenizer, model


def test_the_logits_bias_is_the_train_tokens_unigram_log_prior(trained):
    out_dir, tokenizer, model = trained
    (packed,) = list((out_dir / "data").glob("bart-*/train.tokens.bin"))
    counts = Counter(np.fromfile(packed, dtype=np.uint32).tolist())
    vocab = len(tokenizer)
    total = sum(counts.values()) + vocab
    expected = torch.tensor([math.log((counts.get(i, 0) + 1) / total) for i in range(vocab)])
    bias = model.final_logits_bias[0]
    assert bias.shape == (vocab,)
    assert torch.allclose(bias, expected, atol=1e-5)
    assert torch.exp(bias.double()).sum().item() == pytest.approx(1.0, abs=1e-5)


def test_the_encoder_keeps_inputs_apart(trained):
    _, tokenizer, model = trained
    with torch.no_grad():
        for text in ("The red frog plays beside the forest .", "In the garden , some dog eats often ."):
            hidden = model.model.encoder(**tokenizer(text, return_tensors="pt")).last_hidden_state[0]
            spread = float(hidden.std(0).mean())  # over positions; a collapsed encoder gives about 0.04 here
            assert spread > 0.5, (text, spread)


@pytest.mark.parametrize("kind", ["bart", "t5", "gpt2"])
def test_only_a_model_with_a_logits_bias_is_changed(kind):
    tiny = dict(vocab_size=10, d_model=8, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                decoder_attention_heads=2, encoder_ffn_dim=8, decoder_ffn_dim=8, max_position_embeddings=8)
    config = {"bart": lambda: transformers.BartConfig(**tiny),
              "t5": lambda: transformers.T5Config(vocab_size=10, d_model=8, d_kv=4, d_ff=8, num_layers=1, num_heads=2),
              "gpt2": lambda: transformers.GPT2Config(vocab_size=10, n_embd=8, n_layer=1, n_head=2, n_positions=8)}[kind]()
    model = transformers.AutoModelForSeq2SeqLM.from_config(config) if kind != "gpt2" else \
        transformers.AutoModelForCausalLM.from_config(config)
    before = {k: v.clone() for k, v in model.state_dict().items()}

    class Train:
        tokens = np.array([3, 3, 3, 5], dtype=np.uint32)

    assert init_output_prior(model, Train()) is (kind == "bart")
    after = model.state_dict()
    changed = {k for k in before if not torch.equal(before[k], after[k])}
    assert changed == ({"final_logits_bias"} if kind == "bart" else set())
    if kind == "bart":  # 3 three times, 5 once, add-one over 10 ids: (4, 2 and 1 of 14)
        expected = torch.log(torch.tensor([1, 1, 1, 4, 1, 2, 1, 1, 1, 1]) / 14.0)
        assert torch.allclose(model.final_logits_bias[0], expected)
