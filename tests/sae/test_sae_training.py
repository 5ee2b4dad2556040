"""The training loop: Cancel saves a checkpoint and resume continues from it to the planned steps; the stream's
buffer stays bounded and a corpus smaller than the buffer is said; an encoder without a head gets ``null`` CE
loss recovered and KL with the note "no LM head"."""

from __future__ import annotations

import pytest
import torch

from lm_workbench.engine.anatomy.points import resolve
from lm_workbench.engine.errors import Cancelled
from lm_workbench.engine.models.loading import load_source
from lm_workbench.engine.progress import CancelToken, Progress, drive
from lm_workbench.engine.sae.evaluate import evaluate_sae
from lm_workbench.engine.sae.kinds import SparseAutoencoder
from lm_workbench.engine.sae.train import CHECKPOINT, SaeTrainConfig, train_sae
from tests.support.tiny_models import corpus_lines


@pytest.fixture(scope="module")
def gpt2(tiny_models):
    return load_source(str(tiny_models["gpt2"]))


def test_cancel_checkpoints_and_resume_finishes_the_planned_steps(gpt2, tmp_path):
    site = resolve(gpt2, "blocks.1.hook_mlp_out")
    lines = corpus_lines(40)
    config = SaeTrainConfig(kind="standard", expansion=2, steps=8, batch=32, buffer_tokens=128, log_every=2,
                            checkpoint_every=100)
    cancel = CancelToken()

    def stop_at_3(event):
        if isinstance(event, Progress) and event.done == 3:
            cancel.cancel()

    with pytest.raises(Cancelled):
        drive(train_sae(gpt2, site, lines, config, out_dir=tmp_path, cancel=cancel), stop_at_3)
    saved = torch.load(tmp_path / CHECKPOINT, weights_only=False)
    assert saved["step"] == 3 and saved["stream"]["tokens"] == 3 * 32
    result = drive(train_sae(gpt2, site, lines, config, out_dir=tmp_path, resume=True))
    assert result.steps_done == 8 and result.curves["step"] == [2, 4, 6, 8]
    assert "resumed at step 3" in result.notes
    assert not any("fewer than the buffer" in n for n in result.notes)


def test_a_corpus_smaller_than_the_buffer_is_said_and_the_buffer_stays_bounded(gpt2):
    site = resolve(gpt2, "blocks.0.hook_resid_post")
    config = SaeTrainConfig(kind="topk", expansion=2, sparsity=4, steps=6, batch=64, buffer_tokens=512)
    gen = train_sae(gpt2, site, corpus_lines(4), config)
    result = drive(gen)
    assert any("fewer than the buffer (512)" in n for n in result.notes)
    assert result.steps_done == 6 and result.buffer_bytes == 512 * 32 * 4


def test_an_encoder_without_a_head_gets_null_and_the_note(minilm):
    site = resolve(minilm, "blocks.2.hook_resid_post")
    sae = SparseAutoencoder("topk", 384, 768, 16)
    result = drive(evaluate_sae(minilm, site, sae, corpus_lines(6), max_tokens=200))
    assert result.ce_loss_recovered is None and result.kl is None
    assert "ce_loss_recovered not defined: no LM head" in result.notes
    assert result.l0 == pytest.approx(16.0) and result.tokens > 0


def test_an_encoders_ce_is_the_masked_lm_loss_on_masked_positions(tiny_models):
    """BERT: the masked inputs are the engine's (its documented rule), every loss is computed here from plain
    forwards with a hand-written splice hook, text by text without padding."""
    import torch.nn.functional as F

    from lm_workbench.engine.sae.activations import encode
    from lm_workbench.engine.sae.evaluate import masked

    loaded = load_source(str(tiny_models["bert"]))
    lines = corpus_lines(6)
    sae = SparseAutoencoder("standard", 32, 64, seed=5)
    result = drive(evaluate_sae(loaded, resolve(loaded, "blocks.0.hook_resid_post"), sae, lines, max_tokens=10**6))
    batch = masked(loaded, encode(loaded, lines), seed=0)
    model, block = loaded.model, loaded.model.bert.encoder.layer[0]
    sums, kl, n = {"clean": 0.0, "spliced": 0.0, "zero": 0.0}, 0.0, 0
    for row in range(len(lines)):
        keep = batch["attention_mask"][row].bool()
        ids, labels = batch["input_ids"][row][keep][None], batch["labels"][row][keep]
        logits = {}
        with torch.no_grad():
            for name, change in (("clean", None), ("spliced", lambda h: sae(h)), ("zero", torch.zeros_like)):
                handle = block.register_forward_hook(
                    lambda m, a, o, change=change: (change(o[0]), *o[1:]) if isinstance(o, tuple) else change(o)
                ) if change else None
                logits[name] = model(input_ids=ids).logits[0][labels != -100]
                if handle:
                    handle.remove()
        target = labels[labels != -100]
        for name in sums:
            sums[name] += float(F.cross_entropy(logits[name], target, reduction="sum"))
        p, q = logits["clean"].log_softmax(-1), logits["spliced"].log_softmax(-1)
        kl += float((p.exp() * (p - q)).sum())
        n += len(target)
    assert n >= len(lines)  # at least one masked token per text
    assert result.ce_clean == pytest.approx(sums["clean"] / n, abs=1e-4)
    assert result.ce_spliced == pytest.approx(sums["spliced"] / n, abs=1e-4)
    assert result.ce_zero == pytest.approx(sums["zero"] / n, abs=1e-4)
    assert result.kl == pytest.approx(kl / n, rel=1e-3, abs=1e-6)
    assert any("masked-LM" in note for note in result.notes)
