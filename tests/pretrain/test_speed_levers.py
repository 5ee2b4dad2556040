"""The training speed levers (issue 37): each gives the plain computation's loss and gradients.

Chunked head + loss against ``F.cross_entropy`` of the full logits (and
transformers' own GPT-2 loss); the sparse masked-LM head against the full head
for every MLM-family objective (mlm, mlm with next-sentence pairs, spanbert,
distillation), and the MLM loss against transformers' own; the compile
fallback; the CPU flag check behind bf16; the allocator setting's page faults.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lm_workbench.engine.objectives.chunked_ce import linear_cross_entropy
from lm_workbench.engine.objectives.levers import LossLevers, loss_levers
from lm_workbench.engine.plugin_api import LossContext
from tests.support.objective_helpers import objective, tokenizer_for

SPARSE = LossLevers(sparse_mlm_head=True)
CHUNKED = LossLevers(chunked_loss=True, chunk_rows=5)  # several chunks and a ragged last one
TEXTS = [
    "The bank raised its rates. Savers were pleased. Borrowers were not.",
    "We sat by the river bank and watched the boats go by. It was a quiet afternoon.",
    "Functions return values. A return statement ends the call. None is returned otherwise.",
    "A class statement defines a new class. Its body is executed in a new namespace.",
]


def grads_of(params) -> list[torch.Tensor]:
    return [torch.zeros_like(p) if p.grad is None else p.grad.detach().clone() for p in params]


def loss_and_grads(fn, params):
    for p in params:
        p.grad = None
    loss = fn()
    loss.backward()
    return float(loss.detach()), grads_of(params)


def assert_same(plain, fast, atol=1e-5):
    (loss_a, grads_a), (loss_b, grads_b) = plain, fast
    assert loss_b == pytest.approx(loss_a, rel=1e-5, abs=1e-6)
    assert len(grads_a) == len(grads_b)
    for a, b in zip(grads_a, grads_b):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=atol)
    assert any(float(g.abs().sum()) > 0 for g in grads_a)


# -- chunked head + loss ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("with_bias", [True, False])
def test_chunked_cross_entropy_equals_the_full_logits_loss_and_gradients(with_bias):
    g = torch.Generator().manual_seed(0)
    h = torch.randn(23, 16, generator=g).requires_grad_()
    w = (0.3 * torch.randn(50, 16, generator=g)).requires_grad_()
    b = torch.randn(50, generator=g).requires_grad_() if with_bias else None
    y = torch.randint(0, 50, (23,), generator=g)
    y[[0, 4, 5, 22]] = -100
    params = [p for p in (h, w, b) if p is not None]

    def full():
        logits = h @ w.t() + (b if b is not None else 0)
        return F.cross_entropy(logits, y, ignore_index=-100)

    plain = loss_and_grads(full, params)
    assert_same(plain, loss_and_grads(lambda: linear_cross_entropy(h, w, b, y, chunk_rows=4), params))
    assert_same(plain, loss_and_grads(lambda: 3.0 * linear_cross_entropy(h, w, b, y, chunk_rows=7) / 3.0, params))
    with torch.no_grad():  # validation: the loss alone
        assert float(linear_cross_entropy(h, w, b, y, chunk_rows=4)) == pytest.approx(plain[0], rel=1e-6)


def test_chunked_cross_entropy_with_nothing_scored_is_zero_and_backpropagates():
    h = torch.randn(6, 4, requires_grad=True)
    w = torch.randn(9, 4, requires_grad=True)
    loss = linear_cross_entropy(h, w, None, torch.full((6,), -100), chunk_rows=4)
    loss.backward()
    assert float(loss.detach()) == 0.0 and float(h.grad.abs().sum()) == 0.0 and float(w.grad.abs().sum()) == 0.0


def test_chunked_cross_entropy_under_bf16_autocast_stays_close():
    g = torch.Generator().manual_seed(1)
    h = torch.randn(40, 32, generator=g).requires_grad_()
    w = (0.2 * torch.randn(64, 32, generator=g)).requires_grad_()
    y = torch.randint(0, 64, (40,), generator=g)
    plain = loss_and_grads(lambda: F.cross_entropy(h @ w.t(), y), [h, w])
    with torch.autocast("cpu", dtype=torch.bfloat16):
        fast = loss_and_grads(lambda: linear_cross_entropy(h, w, None, y, chunk_rows=16), [h, w])
    assert fast[0] == pytest.approx(plain[0], rel=2e-2)
    assert all(a.dtype == torch.float32 for a in fast[1])
    for a, b in zip(plain[1], fast[1]):
        assert float((a - b).norm() / a.norm()) < 5e-2  # bf16 products: ~3 significant digits


@pytest.fixture(scope="module")
def tiny_gpt2_model():
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=97, n_positions=16, resid_pdrop=0.0,
                        embd_pdrop=0.0, attn_pdrop=0.0)
    return GPT2LMHeadModel(config).train()


def test_the_clm_objective_with_the_chunked_loss_matches_transformers_own_loss(tiny_gpt2_model):
    model = tiny_gpt2_model
    ids = torch.randint(0, 97, (3, 16), generator=torch.Generator().manual_seed(2))
    mask = torch.ones_like(ids)
    mask[2, 11:] = 0
    labels = ids.masked_fill(mask == 0, -100)
    from lm_workbench.engine.objectives.batching import Batch

    batch = Batch(inputs={"input_ids": ids, "attention_mask": mask}, labels=labels, previews=[])
    clm = objective("clm")
    params = [p for p in model.parameters()]
    reference = loss_and_grads(lambda: model(input_ids=ids, attention_mask=mask, labels=labels).loss, params)
    ran: set[str] = set()
    with loss_levers(CHUNKED, ran):
        fast = loss_and_grads(lambda: clm.loss(model, batch, LossContext(clm.default_config()))[0], params)
    assert ran == {"chunked_loss"}
    assert_same(reference, fast)


def test_the_fused_gelu_computes_gpt2s_gelu_new_and_is_put_back(tiny_gpt2_model):
    from lm_workbench.engine.training.speed import TanhGELU, fused_gelu

    x = torch.linspace(-6, 6, 101)
    written_out = 0.5 * x * (1.0 + torch.tanh((2.0 / torch.pi) ** 0.5 * (x + 0.044715 * x ** 3)))
    torch.testing.assert_close(TanhGELU()(x), written_out, rtol=1e-5, atol=1e-6)
    before = [type(block.mlp.act).__name__ for block in tiny_gpt2_model.transformer.h]
    with fused_gelu(tiny_gpt2_model) as swapped:
        assert swapped == 2 and all(isinstance(block.mlp.act, TanhGELU) for block in tiny_gpt2_model.transformer.h)
    after = [type(block.mlp.act).__name__ for block in tiny_gpt2_model.transformer.h]
    assert after == before == ["NewGELUActivation"] * 2


# -- the sparse masked-LM head --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bert_tok(tiny_models):
    return tokenizer_for(tiny_models, "bert")


def tiny_bert(tok, cls_name="BertForMaskedLM", seed=0, layers=2):
    import transformers as tf

    config = tf.BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=layers, num_attention_heads=4,
                           intermediate_size=64, max_position_embeddings=64, pad_token_id=tok.pad_token_id,
                           hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    torch.manual_seed(seed)
    return getattr(tf, cls_name)(config).train()


def mlm_case(name, tok, **settings):
    obj = objective(name)
    cfg = obj.default_config()
    for key, value in settings.items():
        setattr(cfg, key, value)
    batch = obj.make_batch(tok(TEXTS)["input_ids"], tok, np.random.default_rng(3), cfg)
    return obj, cfg, batch


def sparse_vs_full(obj, cfg, batch, model, heads=None, aux=None):
    heads = heads or {}
    params = [p for m in (model, *heads.values()) for p in m.parameters() if p.requires_grad]
    context = LossContext(cfg, heads=heads, aux=aux or {})
    plain = loss_and_grads(lambda: obj.loss(model, batch, context)[0], params)
    ran: set[str] = set()
    with loss_levers(SPARSE, ran):
        fast = loss_and_grads(lambda: obj.loss(model, batch, context)[0], params)
    assert ran == {"sparse_mlm_head"}  # the lever really computed the loss
    return plain, fast


def test_sparse_head_mlm_matches_the_full_head_and_transformers_own_loss(bert_tok):
    obj, cfg, batch = mlm_case("mlm", bert_tok)
    model = tiny_bert(bert_tok)
    assert 0 < int((batch.labels != -100).sum()) < batch.labels.numel() // 3
    plain, fast = sparse_vs_full(obj, cfg, batch, model)
    assert_same(plain, fast)
    own = float(model(**batch.inputs, labels=batch.labels).loss.detach())  # transformers' BertForMaskedLM loss
    assert fast[0] == pytest.approx(own, rel=1e-5)


def test_sparse_head_mlm_with_next_sentence_pairs_matches_the_full_head(bert_tok):
    obj, cfg, batch = mlm_case("mlm", bert_tok, next_sentence_prediction=True)
    plain, fast = sparse_vs_full(obj, cfg, batch, tiny_bert(bert_tok, "BertForPreTraining"))
    assert_same(plain, fast)


def test_sparse_head_spanbert_matches_the_full_head(bert_tok):
    obj, cfg, batch = mlm_case("spanbert", bert_tok)
    model = tiny_bert(bert_tok)
    torch.manual_seed(5)
    heads = obj.build_heads(cfg, model.config)
    plain, fast = sparse_vs_full(obj, cfg, batch, model, heads)
    assert_same(plain, fast)


def test_sparse_head_distillation_matches_the_full_head(bert_tok):
    from lm_workbench.engine.plugin_api import freeze_auxiliary

    obj, cfg, batch = mlm_case("distillation", bert_tok, teacher="unused", alpha_cos=1.0)
    teacher = freeze_auxiliary(tiny_bert(bert_tok, seed=9))
    plain, fast = sparse_vs_full(obj, cfg, batch, tiny_bert(bert_tok, layers=1), aux={"teacher": teacher})
    assert_same(plain, fast)


def test_an_unknown_architecture_keeps_the_full_head_and_reports_no_lever(bert_tok):
    import transformers as tf

    obj, cfg, batch = mlm_case("mlm", bert_tok)
    config = tf.DistilBertConfig(vocab_size=len(bert_tok), dim=32, n_layers=1, n_heads=2, hidden_dim=64,
                                 max_position_embeddings=64, pad_token_id=bert_tok.pad_token_id)
    model = tf.DistilBertForMaskedLM(config).eval()
    ran: set[str] = set()
    with loss_levers(SPARSE, ran):
        loss, _ = obj.loss(model, batch, LossContext(cfg))
    assert ran == set() and float(loss) == pytest.approx(float(model(**batch.inputs, labels=batch.labels).loss),
                                                          rel=1e-5)


# -- the loop: compile fallback, levers reported ---------------------------------------------------------------------

def _failing_backend(graph_module, example_inputs):
    raise RuntimeError("no compiler for this test")


class TinyLM(torch.nn.Module):
    """An embedding, dropout and a projection: quick for dynamo to trace."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.embed, self.drop, self.out = torch.nn.Embedding(200, 16), torch.nn.Dropout(0.1), torch.nn.Linear(16, 200)

    def forward(self, input_ids, attention_mask=None):
        return self.out(self.drop(self.embed(input_ids)))


def tiny_lm_loss(model, heads, batch):
    logits = model(**batch.inputs)
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, 200), batch.labels[:, 1:].reshape(-1))
    return loss, {"loss": float(loss.detach())}


def test_a_failed_compile_falls_back_to_eager_says_so_and_trains_the_same(tmp_path, monkeypatch):
    from lm_workbench.engine.progress import iter_with_progress
    from lm_workbench.engine.training import speed
    from lm_workbench.engine.training.config import TrainingConfig
    from lm_workbench.engine.training.loop import train
    from tests.support.training_helpers import make_task

    def run(compile_setting, folder):
        task = make_task(TinyLM(), n_train=32, n_valid=16, loss=tiny_lm_loss)
        task.evaluate = None
        # one thread: the automatic count follows the machine's load, and another count sums in another order
        config = TrainingConfig(steps=3, batch_size=4, eval_every=0, compile=compile_setting, device="cpu", seed=0,
                                threads=1)
        events = list(iter_with_progress(train(task, config, checkpoint_dir=folder)))
        return events[:-1], events[-1]

    monkeypatch.setattr(speed, "COMPILE_BACKEND", _failing_backend)
    monkeypatch.setattr(speed, "compiler_found", lambda: True)
    events, result = run("on", tmp_path / "a")
    _, eager = run("off", tmp_path / "b")
    assert result.speed["compiled"] is False and result.speed["compile_s"] is None
    assert any("torch.compile failed" in n and "eagerly" in n for n in result.speed["notes"])
    assert result.losses == eager.losses  # the failed step was repeated from the same random state


def test_compile_auto_is_off_for_short_runs_and_without_a_compiler(monkeypatch):
    from lm_workbench.engine.training import speed

    monkeypatch.setattr(speed, "compiler_found", lambda: True)
    assert speed.decide_compile("auto", 100, torch.device("cpu"))[0] is False
    assert "100 steps" in speed.decide_compile("auto", 100, torch.device("cpu"))[1]
    assert speed.decide_compile("auto", speed.AUTO_MIN_STEPS_CPU, torch.device("cpu")) == (True, "")
    assert speed.decide_compile("on", 5, torch.device("cpu")) == (True, "")
    assert speed.decide_compile("off", 10**6, torch.device("cpu")) == (False, "")
    monkeypatch.setattr(speed, "compiler_found", lambda: False)
    off, why = speed.decide_compile("on", 10**6, torch.device("cpu"))
    assert off is False and "C++ compiler" in why


# -- bf16 only where the CPU has it -----------------------------------------------------------------------------------

CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
flags\t\t: fpu sse2 avx2 avx512f {extra}
bogomips\t: 4890.84
"""


def test_the_bf16_flag_check_reads_the_cpu_flags():
    from lm_workbench.engine.training.cpu_features import cpu_flags, native_bf16

    assert {"avx2", "avx512f", "avx512_bf16"} <= cpu_flags(CPUINFO.format(extra="avx512_bf16"))
    assert native_bf16(cpu_flags(CPUINFO.format(extra="avx512_bf16")))[0] is True
    assert native_bf16(cpu_flags(CPUINFO.format(extra="amx_bf16 amx_tile")))[0] is True
    native, why = native_bf16(cpu_flags(CPUINFO.format(extra="avx512vl")))
    assert native is False and "no native bf16" in why
    assert native_bf16(set())[0] is False


@pytest.mark.parametrize("native", [True, False])
def test_bf16_on_the_cpu_runs_only_where_native_and_says_so_otherwise(monkeypatch, native):
    from lm_workbench.engine.training import cpu_features
    from lm_workbench.engine.training.precision import choose_precision

    monkeypatch.setattr(cpu_features, "cpu_flags", lambda: {"avx512f", "avx512_bf16"} if native else {"avx2"})
    plan = choose_precision("bf16", torch.device("cpu"))
    assert plan.name == ("bf16" if native else "fp32")
    assert (plan.note == "") is native and (native or "training in fp32" in plan.note)
    assert choose_precision("auto", torch.device("cpu")).name == "fp32"  # bf16 is never chosen silently


# -- memory reuse ----------------------------------------------------------------------------------------------------

@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="glibc's mallopt")
def test_reusing_freed_memory_saves_the_page_faults_of_large_blocks():
    from lm_workbench.engine.training.allocator import page_faults, reuse_freed_memory

    def faults_of_five_64mb_blocks() -> int:
        start = page_faults()
        for _ in range(5):
            block = torch.ones(16 * 2**20)  # 64 MB, written: every page is touched
            del block
        return page_faults() - start

    outside = faults_of_five_64mb_blocks()
    with reuse_freed_memory() as state:
        inside = faults_of_five_64mb_blocks()
    assert state == "on"
    assert inside * 2 < outside


# -- what the CLI and the Pre-train tab say ------------------------------------------------------------------------

def test_the_speed_line_names_the_levers_that_ran_and_those_that_did_not():
    from lm_workbench.pretrain.speed_text import describe_speed

    line = describe_speed({"tokens_per_s": 12345.6, "speed": {
        "compiled": False, "chunked_loss": True, "sparse_mlm_head": False, "bf16": False, "fused_gelu": True,
        "memory_reuse": "on", "compile_s": None, "notes": ["bf16 was asked for, but ...: training in fp32"]}})
    first, note = line.split("\n")
    assert first == ("12,346 tokens/s on average · levers: chunked LM loss, fused GELU, memory reuse; "
                     "not used: torch.compile, sparse MLM head, bf16")
    assert note.endswith("training in fp32")
