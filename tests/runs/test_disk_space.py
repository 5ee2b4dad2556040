"""The space estimates (lm_workbench.runs.disk_space) against what is really written: a checkpoint on disk, the
most a run of checkpoints has on disk at once, and the parameter counts of real model classes."""

from __future__ import annotations

import os
import shutil

import pytest
import torch

import lm_workbench.engine.training.checkpoint as checkpoint_module
from lm_workbench.engine.training.checkpoint import save_checkpoint
from tests.support.training_helpers import tiny_gpt2
from lm_workbench.runs import disk_space as space


def _bytes_on_disk(folder) -> int:
    return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(folder) for name in names)


def _stepped_adamw(model: torch.nn.Module) -> torch.optim.Optimizer:
    """AdamW after one step, so its two moments exist for every trainable parameter."""
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    model(input_ids=torch.zeros(2, 8, dtype=torch.long), labels=torch.zeros(2, 8, dtype=torch.long)).loss.backward()
    optimizer.step()
    return optimizer


@pytest.mark.parametrize("frozen", [False, True], ids=["all-trained", "embeddings-frozen"])
def test_a_checkpoint_takes_what_the_estimate_says(tmp_path, frozen):
    model = tiny_gpt2()
    if frozen:
        model.transformer.wte.requires_grad_(False)
        model.transformer.wpe.requires_grad_(False)
    unique = {id(p): p for p in model.parameters()}.values()  # the tied output embedding once
    total = sum(p.numel() for p in unique)
    trainable = sum(p.numel() for p in unique if p.requires_grad)
    assert (trainable < total) == frozen
    folder = save_checkpoint(tmp_path, 1, model=model, optimizer=_stepped_adamw(model), state={"x": 1},
                             rng_tensors={"cpu": torch.get_rng_state()})
    written = _bytes_on_disk(folder)
    weights = os.path.getsize(folder / "model.safetensors")
    moments = os.path.getsize(folder / "optimizer.safetensors")
    assert weights == pytest.approx(4 * total, rel=0.02)  # every weight, float32, whether trained or not
    assert moments == pytest.approx(2 * 4 * trainable, rel=0.02)  # exp_avg and exp_avg_sq, float32
    estimate = space.checkpoint_bytes(total, trainable, 4)
    assert written <= estimate <= written + space.CHECKPOINT_EXTRA


def test_the_peak_of_a_run_of_checkpoints_is_keep_plus_one(tmp_path, monkeypatch):
    model = tiny_gpt2()
    optimizer = _stepped_adamw(model)
    seen: list[int] = []
    real_prune = checkpoint_module._prune

    def measure_then_prune(folder, keep):  # the newest is written, the oldest not yet removed
        seen.append(_bytes_on_disk(folder))
        real_prune(folder, keep)

    monkeypatch.setattr(checkpoint_module, "_prune", measure_then_prune)
    for step in range(1, 6):
        save_checkpoint(tmp_path, step, model=model, optimizer=optimizer, keep=2)
    one = _bytes_on_disk(tmp_path / "step-00000005")
    assert max(seen) == pytest.approx(3 * one, rel=0.01)
    total = sum({id(p): p.numel() for p in model.parameters()}.values())
    estimate = space.training_bytes(space.checkpoint_bytes(total, total), saves=5, keep=2, outputs=0)
    assert max(seen) <= estimate <= max(seen) + 3 * space.CHECKPOINT_EXTRA


def test_training_bytes_by_hand():
    c, o = 100, 30
    assert space.training_bytes(c, saves=1, keep=2, outputs=o) == c + o
    assert space.training_bytes(c, saves=5, keep=2, outputs=o) == 3 * c  # keep + 1 while the newest is written
    assert space.training_bytes(c, saves=5, keep=1, outputs=250) == c + 250  # then the outputs beside one
    # a resumed run with one checkpoint already there: its first save is written beside it
    assert space.training_bytes(c, saves=1, keep=1, outputs=o, present=c, present_count=1) == c
    assert space.checkpoint_saves(steps=6, every=2) == 3 and space.checkpoint_saves(steps=6, every=0) == 1


@pytest.mark.parametrize("family", ["bert", "gpt2", "bart", "t5"])
def test_parameter_counts_match_the_model_classes(family):
    import transformers as tf

    hidden, layers, vocab, positions = 128, 2, 2000, 64
    config, cls = {
        "bert": (tf.BertConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=2,
                               intermediate_size=4 * hidden, max_position_embeddings=positions), tf.BertForMaskedLM),
        "gpt2": (tf.GPT2Config(vocab_size=vocab, n_embd=hidden, n_layer=layers, n_head=2, n_positions=positions,
                               bos_token_id=0, eos_token_id=0), tf.GPT2LMHeadModel),
        "bart": (tf.BartConfig(vocab_size=vocab, d_model=hidden, encoder_layers=layers, decoder_layers=layers,
                               encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=4 * hidden,
                               decoder_ffn_dim=4 * hidden, max_position_embeddings=positions),
                 tf.BartForConditionalGeneration),
        "t5": (tf.T5Config(vocab_size=vocab, d_model=hidden, num_layers=layers, num_heads=2, d_ff=4 * hidden),
               tf.T5ForConditionalGeneration),
    }[family]
    counted = sum(p.numel() for p in cls(config).parameters())
    estimate = space.transformer_parameters(vocab=vocab, hidden=hidden, layers=layers, positions=positions,
                                            encoder_decoder=family in ("bart", "t5"))
    assert estimate == pytest.approx(counted, rel=0.05)


def test_check_space_refuses_with_the_numbers(tmp_path, monkeypatch):
    real = shutil.disk_usage
    monkeypatch.setattr(space.shutil, "disk_usage", lambda path: real(path)._replace(free=3_000_000))
    target = tmp_path / "not" / "made" / "yet"  # measured on the nearest folder that exists
    with pytest.raises(space.NotEnoughSpace) as refused:
        space.check_space(target, 250_000_000, "pre-training")
    assert str(refused.value).startswith(f"pre-training needs about 280 MB in {target}, 3 MB free")
    monkeypatch.setattr(space.shutil, "disk_usage", lambda path: real(path)._replace(free=10**12))
    assert space.check_space(target, 250_000_000, "pre-training") == 10**12


def test_the_course_models_are_refused_before_any_trains(fresh_home, tmp_path, monkeypatch):
    import transformers as tf

    import lm_workbench.pretrain.runs as recording
    from lm_workbench.pretrain import course_models

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat\n" * 2000, encoding="utf-8")
    _, arch, _ = course_models.COURSE_SETTINGS["bert"]
    bert = tf.BertForMaskedLM(tf.BertConfig(vocab_size=arch["vocab_size"], hidden_size=arch["hidden"],
                                            num_hidden_layers=arch["layers"], num_attention_heads=2,
                                            intermediate_size=4 * arch["hidden"],
                                            max_position_embeddings=arch["max_positions"]))
    weights = 4 * sum(p.numel() for p in bert.parameters())
    # a checkpoint (weights and AdamW's two moments) and the model folder beside it, the packed data twice
    by_hand = 3 * weights + weights + 2 * corpus.stat().st_size
    assert course_models.estimated_bytes(["bert"], corpus) == pytest.approx(by_hand, rel=0.1)

    trained = []
    monkeypatch.setattr(recording, "run_recorded", lambda spec, echo=None: trained.append(spec))
    real = shutil.disk_usage
    monkeypatch.setattr(space.shutil, "disk_usage", lambda path: real(path)._replace(free=3_000_000))
    with pytest.raises(space.NotEnoughSpace, match=r"^training 5 course model\(s\) needs about \d+ MB in .*, 3 MB free"):
        course_models.train_course_models(corpus=corpus, out_root=tmp_path / "course", register=False)
    assert trained == []
