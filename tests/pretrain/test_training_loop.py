"""The training loop on CPU: learning, events, schedule, accumulation, clipping, validation, guards."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import Progress, iter_with_progress, run_to_completion
from lm_workbench.engine.training.checkpoint import latest_checkpoint, load_weights, checkpoint_step
from lm_workbench.engine.training.config import TrainingConfig, training_config_fields
from lm_workbench.engine.training.events import CheckpointSaved, EvalMetrics, StepMetrics, TrainingResult
from lm_workbench.engine.training.loop import train
from lm_workbench.engine.training.sampler import SeededSampler
from tests.support.training_helpers import batch_of, causal_loss, make_task, synthetic_sequences, tiny_gpt2


def run(task, config, tmp_path, **kwargs):
    events = list(iter_with_progress(train(task, config, checkpoint_dir=tmp_path / "ckpt", **kwargs)))
    result = events.pop()
    assert isinstance(result, TrainingResult)
    return events, result


def test_loss_goes_down_and_events_arrive_on_schedule(tmp_path):
    config = TrainingConfig(steps=30, batch_size=8, lr=1e-2, warmup_steps=5, eval_every=15, log_every=10, seed=0)
    events, result = run(make_task(tiny_gpt2()), config, tmp_path)
    progress = [e for e in events if isinstance(e, Progress)]
    assert [p.done for p in progress] == list(range(1, 31)) and all(p.total == 30 for p in progress)
    assert [e.step for e in events if isinstance(e, StepMetrics)] == [10, 20, 30]
    evals = [e for e in events if isinstance(e, EvalMetrics)]
    assert [e.step for e in evals] == [0, 15, 30]
    saved = [e for e in events if isinstance(e, CheckpointSaved)]
    assert [e.step for e in saved] == [30] and saved[0].path == result.checkpoint
    assert len(result.losses) == 30 and result.steps_done == 30 and not result.cancelled
    assert result.first_loss == result.losses[0] and result.final_loss == result.losses[-1]
    # learned: the stride rule makes every next token predictable
    assert evals[-1].validation_loss <= 0.6 * evals[0].validation_loss
    assert evals[-1].extra["accuracy"] > 0.5 > evals[0].extra["accuracy"]
    assert result.validation_loss == evals[-1].validation_loss
    assert evals[-1].perplexity == pytest.approx(math.exp(evals[-1].validation_loss))
    # tokens: 30 steps x 8 sequences x 16 tokens, no padding
    assert result.tokens_seen == 30 * 8 * 16 and result.tokens_per_s > 0
    step_metrics = [e for e in events if isinstance(e, StepMetrics)]
    assert step_metrics[-1].tokens_seen == 30 * 8 * 16 and all(m.tokens_per_s > 0 for m in step_metrics)


def reference_lr(step: int, peak: float, total: int, warmup: int, kind: str) -> float:
    """The documented schedule, written out independently of lm_workbench.engine.training.schedule."""
    if step < warmup:
        return peak * (step + 1) / warmup
    frac = (step - warmup) / (total - warmup)
    return {"linear": peak * (1 - frac), "cosine": peak * (1 + np.cos(np.pi * frac)) / 2, "constant": peak}[kind]


@pytest.mark.parametrize("kind", ["linear", "cosine", "constant"])
def test_learning_rate_schedule_matches_the_formula(kind, tmp_path):
    config = TrainingConfig(steps=10, batch_size=4, lr=1e-3, warmup_steps=3, schedule=kind, log_every=1,
                            eval_every=0)
    events, _ = run(make_task(tiny_gpt2(), n_train=64), config, tmp_path)
    lrs = [e.lr for e in events if isinstance(e, StepMetrics)]
    expected = [reference_lr(s, 1e-3, 10, 3, kind) for s in range(10)]
    np.testing.assert_allclose(lrs, expected, rtol=1e-12, atol=1e-15)


def test_two_accumulated_batches_of_8_equal_one_batch_of_16(tmp_path):
    results = {}
    for batch_size, accum in ((16, 1), (8, 2)):
        model = tiny_gpt2(seed=3, dropout=0.0)
        config = TrainingConfig(steps=3, batch_size=batch_size, grad_accum=accum, lr=1e-3, warmup_steps=0,
                                max_grad_norm=0.0, eval_every=0)
        _, result = run(make_task(model), config, tmp_path / f"{batch_size}")
        results[accum] = (result, {k: v.detach().clone() for k, v in model.state_dict().items()})
    (one, params_one), (two, params_two) = results[1], results[2]
    np.testing.assert_allclose(two.losses, one.losses, rtol=1e-5)
    assert one.tokens_seen == two.tokens_seen == 3 * 16 * 16
    for key in params_one:
        torch.testing.assert_close(params_two[key], params_one[key], rtol=1e-4, atol=1e-5)


def test_clipping_bounds_the_gradient_norm(tmp_path):
    model = tiny_gpt2(seed=4, dropout=0.0)
    reference = tiny_gpt2(seed=4, dropout=0.0)
    reference.load_state_dict(model.state_dict())
    seen = []

    def before_step(optimizer, args, kwargs):
        grads = [p.grad for g in optimizer.param_groups for p in g["params"] if p.grad is not None]
        if len(grads) < 2:  # the one-parameter probe that checks for fused AdamW
            return
        seen.append(float(torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))))

    handle = register_optimizer_step_pre_hook(before_step)
    try:
        config = TrainingConfig(steps=2, batch_size=16, lr=1e-3, max_grad_norm=0.05, log_every=1, eval_every=0)
        events, _ = run(make_task(model), config, tmp_path)
    finally:
        handle.remove()
    assert len(seen) == 2 and all(n <= 0.05 * (1 + 1e-4) for n in seen)
    # the reported norm is the one before clipping: recompute the first step's gradient with plain torch
    first = np.random.default_rng([0, 0]).permutation(256)[:16]  # the default sampler's first batch, seed 0
    data = synthetic_sequences(256, seed=1)
    ids = torch.from_numpy(data[first])
    reference(input_ids=ids, labels=ids).loss.backward()
    norm = float(torch.sqrt(sum((p.grad.double() ** 2).sum() for p in reference.parameters())))
    reported = [e.grad_norm for e in events if isinstance(e, StepMetrics)]
    assert reported[0] == pytest.approx(norm, rel=1e-4) and reported[0] > 0.05


def test_validation_is_token_weighted_in_eval_mode_and_training_mode_returns(tmp_path):
    model = tiny_gpt2(seed=5, dropout=0.3)
    valid = synthetic_sequences(40, seed=2)
    modes = []

    def evaluate(m, heads, batch):
        modes.append(m.training)
        return {"rows": float(len(batch.labels))}

    task = dataclasses.replace(
        make_task(model), evaluate=evaluate,
        validation_batches=lambda: [batch_of(valid[:16]), batch_of(valid[16:32]), batch_of(valid[32:40])])
    config = TrainingConfig(steps=3, batch_size=8, eval_every=0)
    events, result = run(task, config, tmp_path)
    assert modes and not any(modes) and model.training
    model.eval()
    with torch.no_grad():  # every validation token at once: the per-token mean, not a mean of batch means
        ids = torch.from_numpy(valid)
        expected = float(model(input_ids=ids, labels=ids).loss)
    assert result.validation_loss == pytest.approx(expected, rel=1e-5)
    # the weighted mean of the per-batch row counts (weights 16*16, 16*16, 8*16)
    assert result.eval_extra["rows"] == pytest.approx((16 * 256 + 16 * 256 + 8 * 128) / 640)


def test_nan_loss_stops_with_the_step_and_a_lower_learning_rate_hint(tmp_path):
    calls = []

    def exploding_loss(model, heads, batch):
        loss, metrics = causal_loss(model, heads, batch)
        calls.append(1)
        return (loss * float("nan") if len(calls) == 3 else loss), metrics

    task = make_task(tiny_gpt2(), loss=exploding_loss)
    task.validation_batches = lambda: []
    config = TrainingConfig(steps=6, batch_size=4, checkpoint_every=1, keep_checkpoints=5, eval_every=0)
    with pytest.raises(WorkbenchError, match=r"step 3.*lower learning rate"):
        run(task, config, tmp_path)
    last = latest_checkpoint(tmp_path / "ckpt")
    assert checkpoint_step(last) == 2  # nothing written for the broken step
    fresh = tiny_gpt2(seed=9)
    load_weights(last, fresh)
    assert all(torch.isfinite(p).all() for p in fresh.parameters())


def test_cuda_out_of_memory_becomes_a_smaller_batch_hint(tmp_path):
    def oom_loss(model, heads, batch):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    task = make_task(tiny_gpt2(), loss=oom_loss)
    task.validation_batches = lambda: []
    with pytest.raises(WorkbenchError, match=r"out of memory at step 1 .*smaller batch size") as info:
        run(task, TrainingConfig(steps=2, batch_size=4, grad_accum=2, eval_every=0), tmp_path)
    assert "\n" not in str(info.value)


def test_sampler_visits_every_example_once_per_epoch_and_shards_are_disjoint():
    n = 10
    shards = [SeededSampler(n, 3, seed=5, rank=r, world_size=2) for r in range(2)]
    seen = [sum((s.next_indices() for _ in range(5)), [])[:5] for s in shards]  # 5 = one epoch of a shard
    assert sorted(seen[0] + seen[1]) == list(range(n))
    order = np.random.default_rng([5, 0]).permutation(n)
    assert seen[0] == [int(i) for i in order[0::2]]
    restored = SeededSampler(n, 3, seed=5)
    original = SeededSampler(n, 3, seed=5)
    for _ in range(4):
        original.next_indices()
    restored.load_state_dict(original.state_dict())
    assert [restored.next_indices() for _ in range(3)] == [original.next_indices() for _ in range(3)]


def test_config_round_trips_and_rejects_bad_values():
    config = TrainingConfig(steps=7, schedule="cosine", threads=2)
    assert TrainingConfig.from_dict(config.to_dict()) == config
    with pytest.raises(WorkbenchError, match="unknown training setting"):
        TrainingConfig.from_dict({"stepz": 3})
    with pytest.raises(WorkbenchError, match="schedule"):
        TrainingConfig(schedule="exponential").validate()
    with pytest.raises(WorkbenchError, match="batch_size"):
        run_to_completion(train(make_task(tiny_gpt2()), TrainingConfig(batch_size=0), checkpoint_dir="unused"))
    fields = training_config_fields()
    assert [f.name for f in fields] == [f.name for f in dataclasses.fields(TrainingConfig)]
    assert all(f.help for f in fields) and {f.name: f for f in fields}["threads"].kind == "int"


def test_bf16_autocast_on_the_cpu_keeps_float32_weights(tmp_path):
    model = tiny_gpt2(dropout=0.0)
    _, result = run(make_task(model, n_train=32), TrainingConfig(steps=2, batch_size=4, precision="bf16",
                                                                 device="cpu", eval_every=0), tmp_path)
    assert all(math.isfinite(x) for x in result.losses) and next(model.parameters()).dtype == torch.float32


def test_fp16_is_refused_on_the_cpu(tmp_path):
    with pytest.raises(WorkbenchError, match="fp16 training needs a CUDA GPU"):
        run(make_task(tiny_gpt2()), TrainingConfig(steps=1, precision="fp16", device="cpu"), tmp_path)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_a_mixed_precision_step_on_cuda(precision, tmp_path):
    if precision == "bf16" and not torch.cuda.is_bf16_supported():
        pytest.skip("this GPU has no bf16")
    model = tiny_gpt2(seed=6, dropout=0.0)
    before = {k: v.detach().clone() for k, v in model.state_dict().items()}
    config = TrainingConfig(steps=2, batch_size=8, precision=precision, device="cuda", eval_every=0, warmup_steps=0)
    _, result = run(make_task(model), config, tmp_path)
    assert next(model.parameters()).device.type == "cuda" and next(model.parameters()).dtype == torch.float32
    assert all(math.isfinite(x) for x in result.losses) and math.isfinite(result.validation_loss)
    reference = tiny_gpt2(seed=6, dropout=0.0)
    reference.load_state_dict(before)
    first = np.random.default_rng([0, 0]).permutation(256)[:8]
    ids = torch.from_numpy(synthetic_sequences(256, seed=1)[first])
    with torch.no_grad():
        fp32_loss = float(reference(input_ids=ids, labels=ids).loss)
    assert result.losses[0] == pytest.approx(fp32_loss, rel=2e-2)  # half precision, same numbers roughly
    changed = sum(not torch.equal(before[k], v.cpu()) for k, v in model.state_dict().items())
    assert changed > 0
