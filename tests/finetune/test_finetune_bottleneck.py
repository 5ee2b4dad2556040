"""Bottleneck adapters: parameter counts against closed forms, identity at init, placement, and training."""

from __future__ import annotations

import pytest
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune.methods.bottleneck import BottleneckConfig, add_bottleneck_adapters
from lm_workbench.engine.finetune.methods.counting import count_parameters
from tests.support.finetune_classifier_models import HIDDEN, LABELS, LAYERS, tiny_classifier, two_class_batch

torch.set_num_threads(1)


def head_size(kind: str) -> int:
    # BERT's classifier is Linear(d, labels) with a bias; GPT-2's score has none.
    return HIDDEN * LABELS + (LABELS if kind == "bert" else 0)


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
@pytest.mark.parametrize("variant", ["houlsby", "pfeiffer"])
@pytest.mark.parametrize("reduction", [16, 4])
def test_trainable_parameters_match_the_closed_form(kind, variant, reduction):
    model = add_bottleneck_adapters(tiny_classifier(kind), BottleneckConfig(variant=variant,
                                                                            reduction_factor=reduction))
    d, m = HIDDEN, HIDDEN // reduction
    per_adapter = 2 * m * d + d + m
    adapters = (2 if variant == "houlsby" else 1) * LAYERS
    # Houlsby trains every LayerNorm: two per layer plus one more (BERT's embeddings, GPT-2's ln_f), each 2d.
    layer_norms = (2 * LAYERS + 1) * 2 * d if variant == "houlsby" else 0
    counts = count_parameters(model)
    assert counts.trainable == adapters * per_adapter + layer_norms + head_size(kind)
    assert counts.total == sum(p.numel() for p in tiny_classifier(kind).parameters()) + adapters * per_adapter


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
@pytest.mark.parametrize("variant", ["houlsby", "pfeiffer"])
def test_zero_up_projection_leaves_the_logits_exactly_unchanged(kind, variant):
    ids, _ = two_class_batch()
    base = tiny_classifier(kind)
    adapted = add_bottleneck_adapters(tiny_classifier(kind), BottleneckConfig(variant=variant, init_scale=0.0))
    with torch.no_grad():
        assert torch.equal(adapted(ids).logits, base(ids).logits)
        # ...while a non-zero up-projection does change them (the adapters are really in the path).
        noisy = add_bottleneck_adapters(tiny_classifier(kind), BottleneckConfig(variant=variant, init_scale=0.5))
        assert not torch.equal(noisy(ids).logits, base(ids).logits)


def _first_positional(args, kwargs, name):
    return args[0] if args else kwargs[name]


def test_bert_adapter_sees_the_dense_output_before_residual_and_layer_norm():
    model = add_bottleneck_adapters(tiny_classifier("bert"), BottleneckConfig(variant="houlsby", init_scale=0.3))
    seen = {}
    for sub in ("attention.output", "output"):
        output = model.get_submodule(f"bert.encoder.layer.0.{sub}")
        output.dense.register_forward_hook(lambda m, a, out, s=sub: seen.__setitem__((s, "dense"), out))
        output.dropout.adapter.register_forward_hook(
            lambda m, a, out, s=sub: seen.update({(s, "adapter_in"): a[0], (s, "adapter_out"): out}))
        output.LayerNorm.register_forward_pre_hook(lambda m, a, s=sub: seen.__setitem__((s, "ln_in"), a[0]))
        output.register_forward_pre_hook(
            lambda m, a, kw, s=sub: seen.__setitem__((s, "residual"), a[1] if len(a) > 1 else kw["input_tensor"]),
            with_kwargs=True)
    with torch.no_grad():
        model(two_class_batch()[0])  # eval mode: dropout is the identity
    for sub in ("attention.output", "output"):
        assert torch.equal(seen[sub, "adapter_in"], seen[sub, "dense"])
        assert torch.equal(seen[sub, "ln_in"], seen[sub, "adapter_out"] + seen[sub, "residual"])
        assert not torch.equal(seen[sub, "adapter_out"], seen[sub, "adapter_in"])


def test_gpt2_adapters_sit_on_both_c_proj_outputs_before_the_residual_add():
    model = add_bottleneck_adapters(tiny_classifier("gpt2"), BottleneckConfig(variant="houlsby", init_scale=0.3))
    block = model.get_submodule("transformer.h.0")
    seen = {}
    block.attn.c_proj.register_forward_hook(lambda m, a, out: seen.__setitem__("attn_proj", out))
    block.mlp.c_proj.register_forward_hook(lambda m, a, out: seen.__setitem__("mlp_proj", out))
    block.attn.resid_dropout.adapter.register_forward_hook(
        lambda m, a, out: seen.update({"attn_in": a[0], "attn_out": out}))
    block.mlp.dropout.adapter.register_forward_hook(lambda m, a, out: seen.update({"mlp_in": a[0], "mlp_out": out}))
    block.register_forward_pre_hook(
        lambda m, a, kw: seen.__setitem__("block_in", _first_positional(a, kw, "hidden_states")), with_kwargs=True)
    block.ln_2.register_forward_pre_hook(lambda m, a: seen.__setitem__("ln_2_in", a[0]))
    block.register_forward_hook(
        lambda m, a, kw, out: seen.__setitem__("block_out", out[0] if isinstance(out, tuple) else out),
        with_kwargs=True)
    with torch.no_grad():
        model(two_class_batch()[0])
    assert torch.equal(seen["attn_in"], seen["attn_proj"])
    assert torch.equal(seen["mlp_in"], seen["mlp_proj"])
    assert torch.equal(seen["ln_2_in"], seen["attn_out"] + seen["block_in"])
    assert torch.equal(seen["block_out"], seen["ln_2_in"] + seen["mlp_out"])


def _bottleneck(adapter, h):
    """U(ReLU(D(h))) from the adapter's weights, computed here with torch.nn.functional."""
    down = torch.nn.functional.linear(h, adapter.down.weight, adapter.down.bias)
    return torch.nn.functional.linear(torch.relu(down), adapter.up.weight, adapter.up.bias)


def test_bert_pfeiffer_adapter_reads_the_normed_feed_forward_output_with_f_as_residual():
    model = add_bottleneck_adapters(tiny_classifier("bert"), BottleneckConfig(variant="pfeiffer", init_scale=0.3))
    adapters = sorted(name for name, _ in model.named_modules() if name.endswith(".adapter"))
    assert adapters == [f"bert.encoder.layer.{i}.output.LayerNorm.adapter" for i in range(LAYERS)]
    assert not any(p.requires_grad for n, p in model.named_parameters() if "LayerNorm" in n and "adapter" not in n)
    output = model.get_submodule("bert.encoder.layer.1.output")
    seen = {}
    output.dense.register_forward_hook(lambda m, a, out: seen.__setitem__("f", out))
    output.register_forward_pre_hook(
        lambda m, a, kw: seen.__setitem__("x", a[1] if len(a) > 1 else kw["input_tensor"]), with_kwargs=True)
    output.register_forward_hook(lambda m, a, out: seen.__setitem__("out", out))
    with torch.no_grad():
        model(two_class_batch()[0])
        norm = output.LayerNorm.base_layer
        layer_norm = lambda t: torch.nn.functional.layer_norm(t, norm.normalized_shape, norm.weight, norm.bias,
                                                              norm.eps)
        f, x = seen["f"], seen["x"]
        h = layer_norm(f + x)
        # Pfeiffer et al. 2021: a = U(ReLU(D(h))) + r with r = f, then the layer's own LayerNorm over a + x.
        expected = layer_norm(_bottleneck(output.LayerNorm.adapter, h) + f + x)
    torch.testing.assert_close(seen["out"], expected, rtol=0, atol=1e-6)
    assert (seen["out"] - layer_norm(f + x)).abs().max() > 1e-3  # the adapter is really in the path


def test_gpt2_pfeiffer_adapter_reads_and_adds_to_the_block_output():
    model = add_bottleneck_adapters(tiny_classifier("gpt2"), BottleneckConfig(variant="pfeiffer", init_scale=0.3))
    adapters = sorted(name for name, _ in model.named_modules() if name.endswith(".adapter"))
    assert adapters == [f"transformer.h.{i}.adapter" for i in range(LAYERS)]
    block = model.get_submodule("transformer.h.0")
    seen = {}
    block.ln_2.register_forward_pre_hook(lambda m, a: seen.__setitem__("after_attention", a[0]))
    block.mlp.register_forward_hook(lambda m, a, out: seen.__setitem__("f", out))
    model.get_submodule("transformer.h.1").register_forward_pre_hook(
        lambda m, a, kw: seen.__setitem__("next_in", _first_positional(a, kw, "hidden_states")), with_kwargs=True)
    with torch.no_grad():
        model(two_class_batch()[0])
        z = seen["after_attention"] + seen["f"]
        expected = z + _bottleneck(block.adapter, z)
    torch.testing.assert_close(seen["next_in"], expected, rtol=0, atol=1e-6)
    assert (seen["next_in"] - z).abs().max() > 1e-3


def test_unsupported_architecture_and_bad_settings_give_one_line_errors():
    import transformers as tf

    llama = tf.LlamaForSequenceClassification(tf.LlamaConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4, vocab_size=100))
    with pytest.raises(WorkbenchError, match="support BERT-style encoders and GPT-2, not LlamaForSequence"):
        add_bottleneck_adapters(llama, BottleneckConfig())
    with pytest.raises(WorkbenchError, match="variant must be one of houlsby, pfeiffer"):
        BottleneckConfig(variant="lora")
    with pytest.raises(WorkbenchError, match="reduction factor"):
        BottleneckConfig(reduction_factor=0)
    with pytest.raises(WorkbenchError, match="modules_to_save names no module"):
        add_bottleneck_adapters(tiny_classifier("bert"), BottleneckConfig(modules_to_save=["nonexistent"]))
    model = add_bottleneck_adapters(tiny_classifier("bert"), BottleneckConfig())
    with pytest.raises(WorkbenchError, match="already"):
        add_bottleneck_adapters(model, BottleneckConfig())


def test_every_config_field_has_help_for_the_form():
    from dataclasses import fields

    assert all(f.metadata.get("help") for f in fields(BottleneckConfig))


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
def test_short_training_lowers_the_loss_and_changes_only_trained_weights(kind):
    model = add_bottleneck_adapters(tiny_classifier(kind), BottleneckConfig(variant="houlsby"))
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    ids, labels = two_class_batch(size=32)
    with torch.no_grad():
        loss_before = model(ids, labels=labels).loss.item()
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=1e-3)
    model.train()
    for step in range(20):
        batch = slice((step % 2) * 16, (step % 2) * 16 + 16)
        loss = model(ids[batch], labels=labels[batch]).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        loss_after = model(ids, labels=labels).loss.item()
    assert loss_after < loss_before
    for name, parameter in model.named_parameters():
        if parameter.requires_grad:
            continue
        assert torch.equal(parameter, before[name]), name
    changed = {n for n, p in model.named_parameters() if not torch.equal(p, before[n])}
    assert any(".adapter.up." in n for n in changed) and any(".adapter.down." in n for n in changed)
