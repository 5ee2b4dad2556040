"""The parallel adapter, the scaled parallel adapter and MAM on BART, T5 and Llama-style models.

Tiny random-weight models (tests/support/finetune_method_models): d = 32 wide, L = 2 layers (BART and T5: two
encoder and two decoder layers), feed-forward I = 64, C = 3 labels; the Llama-style model has 4 query heads and
2 key/value heads (8 wide each). Trainable counts against closed forms worked out here (MAM's also against peft's
own count); one layer's forward against Δh computed here from that layer's weights and a copy of the base:

- BART (post-LN): h = LN(x + SelfAttn(x) + s·f(x)), then LN(h + W₂·GELU(W₁h + b₁) + b₂ + s·f(h)), f(x) =
  ReLU(x·W_down + b)·W_up + b (the adapter joins after the sublayer's dropout, before the residual add and the
  LayerNorm); the decoder's cross-attention gets none;
- T5 (pre-LN): x + SelfAttn(n) + s·f(n) and x + ReLU(n·W_i)·W_o + s·f(n), n = RMSNorm(x);
- Llama-style (pre-LN): the sublayer's output + s·f(x), x its input.

The CLI trains MAM on a tiny BART's sequence-to-sequence set: the validation loss goes down, and ``predict``
on the saved run generates what validation generated. (Save → reload bit for bit on every family:
tests/newest/test_every_family_and_method.py.)
"""

from __future__ import annotations

import copy
import json

import pytest
import torch
from torch.nn import functional as F

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.plugin_api import count_parameters
from tests.support.finetune_method_models import HIDDEN as D
from tests.support.finetune_method_models import LABELS as C
from tests.support.finetune_method_models import LAYERS as L
from tests.support.finetune_method_models import task_model
from lm_workbench.finetune.methods import finetune_methods
from lm_workbench.settings import Settings

torch.set_num_threads(1)

METHODS = finetune_methods(Settings())
LLAMA_KV = 16  # key/value width of the tiny Llama-style model: 2 key/value heads × 8


def adapted(name: str, kind: str, task: str, **settings):
    method = METHODS[name]
    config = method.default_config()
    for key, value in settings.items():
        setattr(config, key, value)
    return method.apply(task_model(kind, task), config, task).eval()


def trainable(name: str, kind: str, task: str, **settings) -> int:
    model = adapted(name, kind, task, **settings)
    count = count_parameters(model).trainable
    if name == "mam":
        assert model.get_nb_trainable_parameters()[0] == count  # peft's own count
    return count


def randomise(model, word: str = "parallel_adapter", std: float = 0.3) -> None:
    generator = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if word in name:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * std)


def x_of(*shape: int, seed: int = 3) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def f(adapter, x: torch.Tensor, s: float) -> torch.Tensor:
    """s·(ReLU(x·W_downᵀ + b_down)·W_upᵀ + b_up), from the adapter's weights."""
    return s * (torch.relu(x @ adapter.down.weight.T + adapter.down.bias) @ adapter.up.weight.T + adapter.up.bias)


def layer_norm(norm, h: torch.Tensor) -> torch.Tensor:
    return F.layer_norm(h, (D,), norm.weight, norm.bias, norm.eps)


def rms_norm(norm, h: torch.Tensor) -> torch.Tensor:
    return norm.weight * h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + norm.variance_epsilon)


def adapter_size(m: int) -> int:
    return 2 * m * D + m + D


def prefix_size(n: int, width: int, h: int = 128) -> int:
    """peft's prefix through its MLP: n embeddings of ``width``, width → h → 2·L·width (decoder layers only)."""
    return n * width + (width * h + h) + (h * 2 * L * width + 2 * L * width)


# ------------------------------------------------------------------------------------------- counts
def test_parallel_adapter_counts_on_bart_t5_and_llama():
    assert trainable("parallel-adapter", "bart", "seq2seq", site="both", reduction_factor=4) == \
        2 * (L + L) * adapter_size(8)  # self-attention and FFN of every encoder and decoder layer; no new head
    assert trainable("parallel-adapter", "t5", "seq2seq") == (L + L) * adapter_size(D // 16)
    assert trainable("parallel-adapter", "t5", "seq2seq", site="attention", scale=4.0) == (L + L) * adapter_size(2)
    assert trainable("parallel-adapter", "llama", "seq-cls", site="both") == 2 * L * adapter_size(2) + D * C


def test_mam_counts_on_bart_t5_and_llama():
    m = D // 2  # He et al.'s 512 of 1024, scaled to the 32-wide models
    for kind in ("bart", "t5"):  # peft's prefix reaches the decoder's L layers; the FFN adapters all 2L layers
        assert trainable("mam", kind, "seq2seq") == prefix_size(30, D) + (L + L) * adapter_size(m), kind
    assert trainable("mam", "bart", "seq2seq", prefix_length=4, prefix_projection=False, ffn_bottleneck=8) == \
        4 * 2 * L * D + (L + L) * adapter_size(8)
    # grouped-query attention: the prefix holds key/value heads only (2 of 8 wide)
    assert trainable("mam", "llama", "seq-cls") == prefix_size(30, LLAMA_KV) + L * adapter_size(m) + D * C


# --------------------------------------------------------------------------------------- Δh by hand
def _bart_ffn(plain, h: torch.Tensor) -> torch.Tensor:
    return F.gelu(h @ plain.fc1.weight.T + plain.fc1.bias) @ plain.fc2.weight.T + plain.fc2.bias


@pytest.fixture(scope="module")
def bart_both():
    s = 3.0
    model = adapted("parallel-adapter", "bart", "seq2seq", site="both", reduction_factor=4, scale=s)
    randomise(model)
    return model, task_model("bart", "seq2seq"), s


def test_bart_encoder_layer_adds_s_f_of_each_sublayers_input_before_its_residual_add_and_layer_norm(bart_both):
    model, base, s = bart_both
    layer, plain = model.model.encoder.layers[0], base.model.encoder.layers[0]
    x = x_of(2, 5, D)
    with torch.no_grad():
        got = layer(x, attention_mask=None)
        h = layer_norm(plain.self_attn_layer_norm, x + plain.self_attn(x)[0] + f(layer.self_attn.parallel_adapter, x, s))
        expected = layer_norm(plain.final_layer_norm, h + _bart_ffn(plain, h) + f(layer.fc1.parallel_adapter, h, s))
    assert torch.allclose(got, expected, atol=1e-5)


def test_bart_decoder_layer_adapts_self_attention_and_the_ffn_not_cross_attention(bart_both):
    model, base, s = bart_both
    layer, plain = model.model.decoder.layers[1], base.model.decoder.layers[1]
    assert not hasattr(layer.encoder_attn, "parallel_adapter")
    x, memory = x_of(2, 4, D), x_of(2, 6, D, seed=4)
    with torch.no_grad():
        got = layer(x, encoder_hidden_states=memory, use_cache=False)
        got = got[0] if isinstance(got, tuple) else got
        h1 = layer_norm(plain.self_attn_layer_norm, x + plain.self_attn(x)[0] + f(layer.self_attn.parallel_adapter, x, s))
        h2 = layer_norm(plain.encoder_attn_layer_norm, h1 + plain.encoder_attn(h1, key_value_states=memory)[0])
        expected = layer_norm(plain.final_layer_norm, h2 + _bart_ffn(plain, h2) + f(layer.fc1.parallel_adapter, h2, s))
    assert torch.allclose(got, expected, atol=1e-5)


def test_t5_adds_s_f_of_the_normed_input_beside_self_attention_and_dense_relu_dense():
    s = 4.0
    base = task_model("t5", "seq2seq")
    model = adapted("parallel-adapter", "t5", "seq2seq", site="both", reduction_factor=4, scale=s)
    randomise(model)
    block, plain = model.encoder.block[0], base.encoder.block[0]
    decoder = model.decoder.block[1]
    assert hasattr(decoder.layer[-1].DenseReluDense, "parallel_adapter")
    assert not hasattr(decoder.layer[1].EncDecAttention, "parallel_adapter")
    x = x_of(2, 5, D)
    with torch.no_grad():
        n = rms_norm(plain.layer[0].layer_norm, x)
        attention = plain.layer[0].SelfAttention(n)[0]
        assert torch.allclose(block.layer[0](x)[0],
                              x + attention + f(block.layer[0].SelfAttention.parallel_adapter, n, s), atol=1e-5)
        n = rms_norm(plain.layer[1].layer_norm, x)
        dense = plain.layer[1].DenseReluDense
        ffn = torch.relu(n @ dense.wi.weight.T) @ dense.wo.weight.T
        assert torch.allclose(block.layer[1](x), x + ffn + f(block.layer[1].DenseReluDense.parallel_adapter, n, s),
                              atol=1e-5)


def test_llama_adds_s_f_of_the_input_to_self_attention_and_mlp_outputs():
    s = 2.0
    base = task_model("llama", "seq-cls")
    model = adapted("parallel-adapter", "llama", "seq-cls", site="both", scale=s)
    randomise(model)
    layer, plain = model.model.layers[1], base.model.layers[1]
    x = x_of(2, 5, D)
    with torch.no_grad():
        rotary = model.model.rotary_emb(x, torch.arange(5)[None])
        got = layer.self_attn(hidden_states=x, position_embeddings=rotary, attention_mask=None)[0]
        want = plain.self_attn(hidden_states=x, position_embeddings=rotary, attention_mask=None)[0]
        assert torch.allclose(got, want + f(layer.self_attn.parallel_adapter, x, s), atol=1e-5)
        mlp = plain.mlp
        ffn = (F.silu(x @ mlp.gate_proj.weight.T) * (x @ mlp.up_proj.weight.T)) @ mlp.down_proj.weight.T
        assert torch.allclose(layer.mlp(x), ffn + f(layer.mlp.parallel_adapter, x, s), atol=1e-5)


def test_mam_on_bart_is_a_prefix_of_30_and_a_4x_adapter_of_d_over_2_beside_every_ffn():
    base = task_model("bart", "seq2seq")
    model = adapted("mam", "bart", "seq2seq")
    randomise(model)
    bart = model.base_model.model
    assert model.peft_config["default"].num_virtual_tokens == 30
    layer, plain = bart.encoder.layers[1], base.model.encoder.layers[1]
    adapter = layer.fc1.parallel_adapter
    assert adapter.down.out_features == D // 2 and adapter.scale == 4.0
    assert not hasattr(layer.self_attn, "parallel_adapter")
    x = x_of(2, 5, D)
    with torch.no_grad():
        h = layer_norm(plain.self_attn_layer_norm, x + plain.self_attn(x)[0])
        expected = layer_norm(plain.final_layer_norm, h + _bart_ffn(plain, h) + f(adapter, h, 4.0))
        assert torch.allclose(layer(x, attention_mask=None), expected, atol=1e-5)


def test_a_deep_copy_of_an_adapted_bart_runs_its_own_adapters(bart_both):
    model, base, _ = bart_both
    twin = copy.deepcopy(model)
    with torch.no_grad():
        for name, parameter in twin.named_parameters():
            if "parallel_adapter.up" in name:
                parameter.zero_()  # the copy's adapters now add nothing; the original's still do
        ids = torch.randint(3, 100, (2, 7), generator=torch.Generator().manual_seed(0))
        decoder = torch.full((2, 3), base.config.decoder_start_token_id)
        plain = base(input_ids=ids, decoder_input_ids=decoder).logits
        assert torch.equal(twin(input_ids=ids, decoder_input_ids=decoder).logits, plain)
        assert not torch.allclose(model(input_ids=ids, decoder_input_ids=decoder).logits, plain)


# ------------------------------------------------------------------------------------------ refusals
def _distilbert():
    import transformers as tf

    torch.manual_seed(0)
    return tf.DistilBertForSequenceClassification(tf.DistilBertConfig(
        dim=D, n_layers=1, n_heads=4, hidden_dim=64, vocab_size=100, max_position_embeddings=64, num_labels=C))


@pytest.mark.parametrize("name, settings, words", [
    ("parallel-adapter", {}, "needs the feed-forward sublayer"),
    ("parallel-adapter", {"site": "attention"}, "needs the attention sublayer"),
    ("mam", {}, "needs the feed-forward sublayer"),
])
def test_a_family_without_the_site_is_still_refused_naming_it(name, settings, words):
    method = METHODS[name]
    config = method.default_config()
    for key, value in settings.items():
        setattr(config, key, value)
    with pytest.raises(WorkbenchError, match=f"{name} cannot attach to DistilBertForSequenceClassification: .*{words}"):
        method.apply(_distilbert(), config, "seq-cls")


def test_the_preflight_lets_mam_onto_bart_and_t5_seq2seq_and_refuses_barts_classification_head(tiny_models):
    from lm_workbench.engine.finetune.attach_check import check_attaches

    mam = METHODS["mam"]
    for kind in ("bart", "t5"):
        check_attaches(mam, mam.default_config(), tiny_models[kind], "seq2seq")
    with pytest.raises(WorkbenchError, match="mam cannot attach to BartForSequenceClassification: its prefix part "
                                             "cannot: .*sequence-to-sequence task only"):
        check_attaches(mam, mam.default_config(), tiny_models["bart"], "seq-cls", ["a", "b"])


# ------------------------------------------------------------------------------------- generation
@pytest.mark.parametrize("name, kind, task", [("mam", "bart", "seq2seq"), ("mam", "t5", "seq2seq"),
                                              ("mam", "llama", "instruct"), ("prefix", "bart", "seq2seq")])
def test_generation_keeps_the_prefix_the_forward_uses(tiny_models, name, kind, task):
    """Each greedy step's logits are the teacher-forced forward's (transformers 5.24 had dropped the prefix there)."""
    from lm_workbench.engine.finetune.task_model import build_task_model

    method = METHODS[name]
    config = method.default_config()
    setattr(config, "prefix_length" if name == "mam" else "num_virtual_tokens", 4)
    config.prefix_projection = False
    model = method.apply(build_task_model(tiny_models[kind], task), config, task).eval()
    randomise(model, "prompt_encoder", std=3.0)  # a prefix that moves the logits a lot
    with torch.no_grad():
        ids = torch.randint(3, 100, (2, 7), generator=torch.Generator().manual_seed(0))
        mask = torch.ones_like(ids)
        out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=4, min_new_tokens=4, do_sample=False,
                             num_beams=1, pad_token_id=0, output_logits=True, return_dict_in_generate=True)
        steps = torch.stack(out.logits, 1)
        if task == "instruct":
            sequence = out.sequences[:, :-1]
            forward = model(input_ids=sequence, attention_mask=torch.ones_like(sequence)).logits[:, ids.shape[1] - 1:]
        else:
            forward = model(input_ids=ids, attention_mask=mask, decoder_input_ids=out.sequences[:, :-1]).logits
    assert torch.allclose(steps, forward, atol=1e-4), (steps - forward).abs().max()


# ------------------------------------------------------------------------------------------ the CLI
def test_mam_on_a_tiny_bart_learns_the_passive_set_through_the_cli(tmp_path, tiny_models, fresh_home, capsys):
    from lm_workbench.engine.finetune.demo import demo_path
    from lm_workbench.cli.main import main

    lines = demo_path("seq2seq").read_text(encoding="utf-8").splitlines()
    train, validation = tmp_path / "train.tsv", tmp_path / "validation.tsv"
    train.write_text("\n".join([lines[0]] + lines[1:65]) + "\n", encoding="utf-8")
    validation.write_text("\n".join([lines[0]] + lines[201:209]) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    previous = torch.get_num_threads()
    try:
        code = main(["finetune", str(tiny_models["bart"]), "--task", "seq2seq", "--train", str(train),
                     "--validation", str(validation), "--method", "mam", "--mam-prefix-length", "4",
                     "--epochs", "3", "--batch-size", "16", "--max-length", "24", "--lr", "5e-3",
                     "--train-setting", "threads=1", "--out", str(out), "--json"])
    finally:
        torch.set_num_threads(previous)
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    losses = [values["validation_loss"] for _, values in printed["history"]]
    assert losses[-1] < losses[0], losses
    assert printed["final_loss"] < printed["first_loss"]
    adapters = sum(adapter_size(16) for _ in range(L + L))  # m = d/2 beside all four FFNs; the prefix through
    assert printed["trainable_parameters"] == prefix_size(4, D) + adapters  # its MLP; no new head
    assert (out / "adapter" / "mam_parallel_adapters.safetensors").is_file()
    rows = [json.loads(line) for line in (out / "validation_predictions.jsonl").read_text().splitlines()]
    assert main(["predict", str(out), "--text", rows[0]["text"], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["text"] == rows[0]["predicted"]
