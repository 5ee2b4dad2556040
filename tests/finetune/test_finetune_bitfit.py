"""BitFit: only biases (and the head) train; counts against a closed form; training leaves all else unchanged."""

from __future__ import annotations

import pytest
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.methods.bitfit import apply_bitfit
from lm_workbench.engine.finetune.methods.counting import count_parameters
from tests.support.finetune_classifier_models import HIDDEN, INTERMEDIATE, LABELS, LAYERS, tiny_classifier, two_class_batch

torch.set_num_threads(1)


def closed_form(kind: str) -> int:
    d, i = HIDDEN, INTERMEDIATE
    # Per layer: query/key/value (3d) and attention output (d), two LayerNorm shifts (2d), the feed-forward's
    # inner (i) and outer (d) projections; GPT-2 fuses q, k, v into c_attn (still 3d).
    per_layer = 3 * d + d + 2 * d + i + d
    if kind == "bert":
        # + the embeddings' LayerNorm shift and the pooler's bias; classifier weight and bias.
        return LAYERS * per_layer + d + d + (d * LABELS + LABELS)
    # + ln_f's shift; GPT-2's score head has no bias.
    return LAYERS * per_layer + d + d * LABELS


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
def test_trainable_parameters_are_the_biases_plus_the_head(kind):
    model = apply_bitfit(tiny_classifier(kind))
    counts = count_parameters(model)
    assert counts.trainable == closed_form(kind)
    assert counts.total == sum(p.numel() for p in tiny_classifier(kind).parameters())
    assert 0 < counts.percent < 100


def test_training_changes_only_biases_and_head():
    model = apply_bitfit(tiny_classifier("bert"))
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    ids, labels = two_class_batch(size=32)
    with torch.no_grad():
        loss_before = model(ids, labels=labels).loss.item()
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    model.train()
    for step in range(20):
        batch = slice((step % 2) * 16, (step % 2) * 16 + 16)
        loss = model(ids[batch], labels=labels[batch]).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        assert model(ids, labels=labels).loss.item() < loss_before
    changed = {n for n, p in model.named_parameters() if not torch.equal(p, before[n])}
    assert changed and all(n.endswith(".bias") or n.startswith("classifier.") for n in changed)
    assert any(n.startswith("bert.encoder.") for n in changed)


def test_a_model_without_biases_is_refused():
    import transformers as tf

    llama = tf.LlamaForCausalLM(tf.LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                               num_attention_heads=4, vocab_size=100))
    with pytest.raises(WorkbenchError, match="no bias parameters"):
        apply_bitfit(llama)
