"""Pre-training ELMo with the bilm objective through the one training loop; the run folder opens as a model."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from lm_workbench.engine.analysis import encode
from lm_workbench.engine.models.loading import load_source as load_model
from tests.support.elmo_entry_point import bilm_registered  # noqa: F401 (fixture)
from tests.support.pretrain_job_helpers import write_corpus
from lm_workbench.cli.main import main


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("elmo-corpus") / "grammar.txt", n_documents=120, seed=2)


def test_pretrain_elmo_bilm_validation_perplexity_falls(bilm_registered, fresh_home, corpus, tmp_path, capsys):
    out_dir = tmp_path / "run"
    code = main(["pretrain", "--family", "elmo", "--objective", "bilm", "--corpus", str(corpus), "--preset", "tiny",
                 "--hidden", "16", "--intermediate", "64", "--seq-len", "16", "--vocab-size", "5000",
                 "--batch-size", "16", "--steps", "30", "--lr", "2e-2", "--device", "cpu", "--train", "threads=1",
                 "--train", "eval_every=10", "--train", "eval_batches=2", "--train", "warmup_steps=2",
                 "--train", "log_every=5", "--out", str(out_dir), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    summary = json.loads(out)
    steps, losses = zip(*summary["validations"])
    assert steps == (0, 10, 20, 30)
    vocab = summary["vocab_size"]  # every word type of the grammar, plus <S> </S> <UNK>
    assert losses[0] == pytest.approx(math.log(vocab), rel=0.05)  # an untrained softmax is near uniform
    assert all(b < a for a, b in zip(losses, losses[1:]))  # validation perplexity falls at every evaluation
    # and ends below the corpus's unigram entropy: no context-free guess does as well
    assert losses[-1] < summary["unigram_entropy"] - 0.1
    assert summary["perplexity"] == pytest.approx(math.exp(summary["validation_loss"]), rel=1e-6)

    loaded = load_model(str(out_dir))  # the run folder opens as the model it made
    assert loaded.info.family == "biLM" and loaded.info.vocab_size == vocab and loaded.info.layers == 2
    enc = encode(loaded, "The river flows quickly .")
    assert enc.tokens == ["The", "river", "flows", "quickly", "."] and enc.hidden_states.shape == (3, 5, 32)
    assert loaded.tokenizer.convert_ids_to_tokens(enc.tokenized.ids[:1]) == ["The"]  # ids from vocab.txt
