"""The methods of issue 34 (parallel adapter, MAM, DoRA, rsLoRA, IA³, VeRA, LoHa, LoKr, OFT) on tiny models.

Trainable counts against closed forms worked out here (and, for the peft methods, against peft's own count);
each method's change Δh on one layer against the paper's formula computed by hand from that layer's weights;
the families a method cannot attach to are refused naming the missing site or the layer type.

Tiny BERT: d = 32 wide, L = 2 layers, feed-forward I = 64, C = 3 labels; GPT-2 the same sizes.
"""

from __future__ import annotations

import copy
import math

import pytest
import torch
from torch.nn import functional as F

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.plugin_api import SITES, config_fields, count_parameters
from lm_workbench.engine.finetune.unified import INSERTIONS, REPRESENTATIONS
from tests.support.finetune_method_models import HIDDEN as D
from tests.support.finetune_method_models import INTERMEDIATE as I
from tests.support.finetune_method_models import LABELS as C
from tests.support.finetune_method_models import LAYERS as L
from tests.support.finetune_method_models import task_model
from lm_workbench.finetune.methods import finetune_methods
from lm_workbench.settings import Settings

torch.set_num_threads(1)

METHODS = finetune_methods(Settings())
NEW = ("parallel-adapter", "mam", "dora", "rslora", "ia3", "vera", "loha", "lokr", "oft")
PEFT = ("dora", "rslora", "ia3", "vera", "loha", "lokr", "oft")
HEAD = D * C + C  # BERT's classifier Linear(d, C)
GPT2_HEAD = D * C  # GPT-2's score has no bias


def adapted(name: str, kind: str = "bert", task: str = "seq-cls", **settings):
    method = METHODS[name]
    config = method.default_config()
    for key, value in settings.items():
        setattr(config, key, value)
    return method.apply(task_model(kind, task), config, task)


def trainable(name: str, kind: str = "bert", **settings) -> int:
    model = adapted(name, kind, **settings)
    count = count_parameters(model).trainable
    if name in PEFT or name == "mam":
        assert model.get_nb_trainable_parameters()[0] == count, name  # peft's own count
    return count


def randomise(model, *words: str, std: float = 0.3) -> None:
    """Give the trained tensors whose names contain one of ``words`` random values (many start at zero)."""
    generator = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if any(word in name for word in words):
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * std)


def x_of(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(3))


def test_the_new_methods_are_registered_with_their_unified_rows_and_form_fields():
    assert set(NEW) <= set(METHODS)
    for name, method in METHODS.items():
        row = method.unified_for(method.default_config())
        assert row is not None, name  # every built-in declares its He et al. row
        assert row.insertion in INSERTIONS and row.representation in REPRESENTATIONS, name
        assert row.functional_form and row.composition and row.formula, name
        assert set(method.attachment_for(method.default_config()).sites) <= set(SITES)
        assert all(spec.help for spec in config_fields(method.Config)), name
    # He et al.'s Table 1, the rows the paper gives
    rows = {name: METHODS[name].unified for name in ("prefix", "houlsby", "lora", "parallel-adapter", "mam")}
    assert (rows["houlsby"].insertion, rows["prefix"].insertion, rows["lora"].insertion) == (
        "sequential", "parallel", "parallel")
    assert rows["prefix"].composition == "h ← (1 − λ)h + λΔh" and rows["lora"].composition == "h ← h + s·Δh"
    assert rows["mam"].representation == "both"
    pa = METHODS["parallel-adapter"]
    assert pa.unified_for(pa.Config(site="attention")).representation == "attention"
    assert pa.attachment_for(pa.Config(site="both")).sites == ("parallel_attention", "parallel_ffn", "head")
    assert METHODS["dora"].unified_for(METHODS["dora"].Config(target_modules="intermediate.dense")).representation \
        == "feed-forward"


# ------------------------------------------------------------------------------------------- counts
def test_parallel_adapter_trains_2md_plus_m_plus_d_per_adapter():
    m = D // 16
    adapter = 2 * m * D + m + D
    assert trainable("parallel-adapter") == L * adapter + HEAD
    assert trainable("parallel-adapter", site="both", reduction_factor=4) == 2 * L * (2 * 8 * D + 8 + D) + HEAD
    assert trainable("parallel-adapter", "gpt2", site="attention") == L * adapter + GPT2_HEAD


def test_mam_trains_a_prefix_and_a_scaled_down_ffn_adapter():
    n, h = 30, 128  # He et al.'s prefix length; the reparameterisation MLP's width
    m = D // 2  # 512 of BART-large's 1024 scaled to this 32-wide model
    prefix = n * D + (D * h + h) + (h * 2 * L * D + 2 * L * D)
    assert trainable("mam") == prefix + L * (2 * m * D + m + D) + HEAD
    assert trainable("mam", prefix_length=5, prefix_projection=False, ffn_bottleneck=4) == (
        5 * 2 * L * D + L * (2 * 4 * D + 4 + D) + HEAD)
    from lm_workbench.plugins.finetune_methods.mam import scaled_bottleneck

    assert (scaled_bottleneck(512, 1024), scaled_bottleneck(512, 384), scaled_bottleneck(64, 384)) == (512, 192, 64)


def test_lora_family_counts():
    r = 4  # query and value, d x d, in both layers
    lora = L * 2 * r * (D + D)
    assert trainable("rslora", rank=r) == lora + HEAD
    assert trainable("dora", rank=r) == lora + L * 2 * D + HEAD  # + one magnitude per output
    assert trainable("dora", "gpt2", rank=r) == L * (r * (D + 3 * D) + 3 * D) + GPT2_HEAD  # fused c_attn, d -> 3d


def test_ia3_trains_one_scale_per_key_value_and_ffn_activation():
    assert trainable("ia3") == L * (D + D + I) + HEAD
    assert trainable("ia3", feedforward=False) == L * 2 * D + HEAD
    assert trainable("ia3", "gpt2") == L * (3 * D + I) + GPT2_HEAD  # c_attn scales q, k and v


def test_vera_trains_r_plus_d_out_per_matrix():
    r = 8
    assert trainable("vera", rank=r) == L * 2 * (r + D) + HEAD
    assert trainable("vera", "gpt2", rank=r) == L * (r + 3 * D) + GPT2_HEAD


def test_loha_lokr_and_oft_counts():
    r = 4
    assert trainable("loha", rank=r) == L * 2 * 2 * r * (D + D) + HEAD
    # LoKr: 32 = 4 x 8 on both sides; C is 4 x 4; B·A is 8 x 8 at rank 2 (full when r >= 8/2)
    assert trainable("lokr", rank=2) == L * 2 * (4 * 4 + 2 * 8 * 2) + HEAD
    assert trainable("lokr", rank=4) == L * 2 * (4 * 4 + 8 * 8) + HEAD
    b = 8  # d/b blocks of b(b-1)/2 numbers
    assert trainable("oft", block_size=b) == L * 2 * (D // b) * b * (b - 1) // 2 + HEAD


# --------------------------------------------------------------------------------------- Δh by hand
def _adapter_by_hand(adapter, x: torch.Tensor, scale: float) -> torch.Tensor:
    down, up = adapter.down, adapter.up
    return scale * (torch.relu(x @ down.weight.T + down.bias) @ up.weight.T + up.bias)


@pytest.mark.parametrize("site", ["ffn", "attention"])
def test_bert_parallel_adapter_adds_s_f_of_the_sublayer_input_before_the_residual_and_layer_norm(site):
    s = 3.0
    model = adapted("parallel-adapter", site=site, scale=s).eval()
    randomise(model, "parallel_adapter")
    layer = model.bert.encoder.layer[0]
    module = layer.output if site == "ffn" else layer.attention.output
    width = I if site == "ffn" else D
    inner, x = x_of(2, 5, width), x_of(2, 5, D) * 0.5
    with torch.no_grad():
        got = module(inner, x)
        f = inner @ module.dense.weight.T + module.dense.bias
        norm = module.LayerNorm
        expected = F.layer_norm(f + s * _adapter_by_hand(module.parallel_adapter, x, 1.0) + x, (D,), norm.weight,
                                norm.bias, norm.eps)
    assert torch.allclose(got, expected, atol=1e-5)


def test_gpt2_parallel_adapter_adds_to_the_mlp_output_from_the_mlp_input():
    s = 4.0
    base = task_model("gpt2", "seq-cls")
    model = adapted("parallel-adapter", "gpt2", scale=s).eval()
    randomise(model, "parallel_adapter")
    x = x_of(2, 5, D)
    with torch.no_grad():
        got = model.transformer.h[0].mlp(x)
        expected = base.transformer.h[0].mlp(x) + _adapter_by_hand(model.transformer.h[0].mlp.parallel_adapter, x, s)
    assert torch.allclose(got, expected, atol=1e-5)


def test_a_zero_up_projection_leaves_the_base_model_exactly():
    base = task_model("bert", "seq-cls")
    model = adapted("parallel-adapter", site="both", init_scale=0.0).eval()
    ids = torch.randint(3, 100, (2, 7), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        assert torch.equal(model(input_ids=ids).logits, base(input_ids=ids).logits)


def test_mam_puts_a_4x_parallel_adapter_beside_the_ffn_and_a_prefix_of_30_on_attention():
    model = adapted("mam").eval()
    randomise(model, "parallel_adapter")
    output = model.base_model.bert.encoder.layer[1].output
    assert model.peft_config["default"].num_virtual_tokens == 30
    assert output.parallel_adapter.down.out_features == D // 2 and output.parallel_adapter.scale == 4.0
    inner, x = x_of(2, 5, I), x_of(2, 5, D)
    with torch.no_grad():
        f = inner @ output.dense.weight.T + output.dense.bias
        expected = F.layer_norm(f + _adapter_by_hand(output.parallel_adapter, x, 4.0) + x, (D,),
                                output.LayerNorm.weight, output.LayerNorm.bias, output.LayerNorm.eps)
        assert torch.allclose(output(inner, x), expected, atol=1e-5)


def _query(model):
    return model.base_model.model.bert.encoder.layer[0].attention.self.query


def test_dora_is_magnitude_times_the_normalised_direction():
    r, alpha = 4, 8.0
    base = task_model("bert", "seq-cls").bert.encoder.layer[0].attention.self.query
    model = adapted("dora", rank=r, alpha=alpha).eval()
    randomise(model, "lora_A", "lora_B")
    layer = _query(model)
    with torch.no_grad():
        layer.lora_magnitude_vector["default"].weight.copy_(torch.linspace(0.5, 2.0, D))
        A, B = layer.lora_A["default"].weight, layer.lora_B["default"].weight
        m = layer.lora_magnitude_vector["default"].weight
        direction = base.weight + (alpha / r) * B @ A  # d_out x d_in
        weight = m[:, None] * direction / direction.norm(dim=1, keepdim=True)  # each output's row scaled to m
        x = x_of(3, D)
        assert torch.allclose(layer(x), x @ weight.T + base.bias, atol=1e-5)


def test_rslora_scales_by_alpha_over_root_r():
    r, alpha = 4, 8.0
    base = task_model("bert", "seq-cls").bert.encoder.layer[0].attention.self.query
    model = adapted("rslora", rank=r, alpha=alpha).eval()
    randomise(model, "lora_A", "lora_B")
    layer = _query(model)
    with torch.no_grad():
        A, B = layer.lora_A["default"].weight, layer.lora_B["default"].weight
        x = x_of(3, D)
        assert torch.allclose(layer(x), x @ base.weight.T + base.bias + (alpha / math.sqrt(r)) * x @ A.T @ B.T,
                              atol=1e-5)


def test_ia3_rescales_keys_values_and_the_ffn_activation_elementwise():
    base = task_model("bert", "seq-cls").bert.encoder.layer[0]
    model = adapted("ia3").eval()
    randomise(model, "ia3_l")
    layer = model.base_model.model.bert.encoder.layer[0]
    x, a = x_of(3, D), x_of(3, I)
    with torch.no_grad():
        key = layer.attention.self.key
        l_k = key.ia3_l["default"].flatten()
        assert torch.allclose(key(x), l_k * (x @ base.attention.self.key.weight.T + base.attention.self.key.bias),
                              atol=1e-5)
        ffn = layer.output.dense
        l_ff = ffn.ia3_l["default"].flatten()
        assert l_ff.shape == (I,)
        assert torch.allclose(ffn(a), (l_ff * a) @ base.output.dense.weight.T + base.output.dense.bias, atol=1e-5)


def test_vera_is_lambda_b_b_lambda_d_a_x_with_frozen_shared_projections():
    r = 8
    base = task_model("bert", "seq-cls").bert.encoder.layer[0].attention.self.query
    model = adapted("vera", rank=r).eval()
    randomise(model, "vera_lambda")
    layer = _query(model)
    with torch.no_grad():
        A, B = layer.vera_A["default"][:, :D], layer.vera_B["default"][:D, :]
        assert not A.requires_grad and not B.requires_grad
        lam_b, lam_d = layer.vera_lambda_b["default"], layer.vera_lambda_d["default"]
        x = x_of(3, D)
        delta = ((x @ A.T) * lam_d) @ B.T * lam_b
        assert torch.allclose(layer(x), x @ base.weight.T + base.bias + delta, atol=1e-5)
    value = model.base_model.model.bert.encoder.layer[1].attention.self.value
    assert value.vera_A["default"].data_ptr() == layer.vera_A["default"].data_ptr()  # one A for every layer


def test_loha_is_a_hadamard_product_of_two_low_rank_products():
    r, alpha = 4, 8.0
    base = task_model("bert", "seq-cls").bert.encoder.layer[0].attention.self.query
    model = adapted("loha", rank=r, alpha=alpha).eval()
    randomise(model, "hada_")
    layer = _query(model)
    with torch.no_grad():
        w = {k: getattr(layer, f"hada_{k}")["default"] for k in ("w1_a", "w1_b", "w2_a", "w2_b")}
        delta_w = (w["w1_a"] @ w["w1_b"]) * (w["w2_a"] @ w["w2_b"]) * (alpha / r)
        x = x_of(3, D)
        assert torch.allclose(layer(x), x @ (base.weight + delta_w).T + base.bias, atol=1e-5)


def test_lokr_is_a_kronecker_product():
    r, alpha = 2, 4.0
    base = task_model("bert", "seq-cls").bert.encoder.layer[0].attention.self.query
    model = adapted("lokr", rank=r, alpha=alpha).eval()
    randomise(model, "lokr_")
    layer = _query(model)
    with torch.no_grad():
        c = layer.lokr_w1["default"]
        low = layer.lokr_w2_a["default"] @ layer.lokr_w2_b["default"]
        delta_w = torch.kron(c, low) * (alpha / r)
        x = x_of(3, D)
        assert torch.allclose(layer(x), x @ (base.weight + delta_w).T + base.bias, atol=1e-5)


def test_oft_rotates_the_input_by_a_block_diagonal_cayley_transform():
    b = 8
    base = task_model("bert", "seq-cls").bert.encoder.layer[0].attention.self.query
    model = adapted("oft", block_size=b, neumann_terms=0).eval()
    randomise(model, "oft_R", std=0.1)
    layer = _query(model)
    vectors = layer.oft_R["default"].weight  # one row of b(b-1)/2 numbers per block
    rows, cols = torch.triu_indices(b, b, 1)
    blocks = []
    with torch.no_grad():
        for vector in vectors:
            upper = torch.zeros(b, b)
            upper[rows, cols] = vector
            q = upper - upper.T  # skew-symmetric
            rotation = (torch.eye(b) - q) @ torch.linalg.inv(torch.eye(b) + q)
            assert torch.allclose(rotation @ rotation.T, torch.eye(b), atol=1e-5)
            blocks.append(rotation)
        x = x_of(3, D)
        rotated = torch.cat([x[:, i * b:(i + 1) * b] @ blocks[i] for i in range(D // b)], dim=1)
        assert torch.allclose(layer(x), rotated @ base.weight.T + base.bias, atol=1e-5)


# ------------------------------------------------------------------------------------------ refusals
@pytest.mark.parametrize("name", ["loha", "lokr", "oft"])
def test_linear_only_methods_refuse_gpt2s_conv1d_naming_the_layer_type(name):
    with pytest.raises(WorkbenchError, match=rf"{name} cannot attach to GPT2ForSequenceClassification: its target "
                                             r"layers \(c_attn\) are transformers' Conv1D"):
        adapted(name, "gpt2")


def test_mam_refuses_barts_classification_head_naming_its_prefix_part():
    # the parallel adapters attach to BART (tests/finetune/test_parallel_adapter_families.py, which also checks a
    # family without their sites is refused naming it); MAM's prefix, like prefix tuning, takes only seq2seq there
    with pytest.raises(WorkbenchError, match="mam cannot attach to BartForSequenceClassification: its prefix part "
                                             "cannot: .*sequence-to-sequence task only"):
        adapted("mam", "bart")


def test_the_refusal_comes_from_the_config_alone_before_any_weight_is_read(tiny_models):
    from lm_workbench.engine.finetune.attach_check import check_attaches

    with pytest.raises(WorkbenchError, match="Conv1D"):
        check_attaches(METHODS["oft"], METHODS["oft"].default_config(), tiny_models["gpt2"], "seq-cls", ["a", "b"])
    with pytest.raises(WorkbenchError, match="mam cannot attach to BartForSequenceClassification"):
        check_attaches(METHODS["mam"], METHODS["mam"].default_config(), tiny_models["bart"], "seq-cls", ["a", "b"])
    check_attaches(METHODS["mam"], METHODS["mam"].default_config(), tiny_models["gpt2"], "seq-cls", ["a", "b"])


def test_a_deep_copy_of_an_adapted_model_runs_its_own_adapters():
    base = task_model("bert", "seq-cls")
    model = adapted("parallel-adapter", site="both").eval()
    randomise(model, "parallel_adapter")
    twin = copy.deepcopy(model)
    with torch.no_grad():
        for name, parameter in twin.named_parameters():
            if "parallel_adapter.up" in name:
                parameter.zero_()  # the copy's adapters now add nothing; the original's still do
        ids = torch.randint(3, 100, (2, 7), generator=torch.Generator().manual_seed(0))
        assert torch.equal(twin(input_ids=ids).logits, base(input_ids=ids).logits)
        assert not torch.allclose(model(input_ids=ids).logits, base(input_ids=ids).logits)
