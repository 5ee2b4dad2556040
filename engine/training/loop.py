"""``train``: the workbench's one training loop, a generator of progress and metric events.

One optimizer step: for each of ``grad_accum`` micro-batches, take example
indices from the sampler, build the batch with the loop's numpy generator
(``task.make_batch``), run ``task.loss`` under autocast and backpropagate
``loss / grad_accum`` (through the gradient scaler for fp16; under DDP the
gradients are all-reduced on the last micro-batch only). Then the NaN/inf
guard, unscale, clip the global norm, set the scheduled learning rate, and
AdamW. The loss reported for the step is the mean of its micro-batch losses
(and of the ranks' losses under torchrun).

Events: ``Progress`` every step; ``StepMetrics`` every ``log_every`` steps
and at the last; ``EvalMetrics`` at step 0, every ``eval_every`` and at the
end; ``CheckpointSaved`` every ``checkpoint_every``, at the end and on
cancel (then ``Cancelled`` is raised). Returns a ``TrainingResult``.

Speed levers (``lm_workbench.engine.training.speed``; each switchable in ``TrainingConfig``
and reported in ``TrainingResult.speed``): the objectives' chunked causal-LM
loss and sparse masked-LM head (``lm_workbench.engine.objectives.levers``, on for the
training steps and validation), ``torch.compile`` of the model body (with a
fallback to eager), bf16 autocast where the CPU supports it natively
(``precision``), GPT-2's gelu_new as one fused kernel, and freed memory kept for the next step
(``lm_workbench.engine.training.allocator``). Each keeps the losses equal within float
rounding.

Reproducibility: ``train`` seeds torch (dropout) and python's ``random``
with ``config.seed + rank`` and makes the corruption generator
``np.random.default_rng([seed, rank])``; the model's initial weights are the
caller's. A resumed run restores every generator, the sampler, the optimizer
and the schedule, so on CPU in float32 with the same thread count its
losses are bit-identical to an uninterrupted run's.
"""

from __future__ import annotations

import contextlib
import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generator

import numpy as np
import torch
from torch import nn

from lm_workbench.engine.errors import Cancelled, WorkbenchError
from lm_workbench.engine.models.device import free_cpu_threads, set_cpu_threads
from lm_workbench.engine.objectives.levers import LossLevers, loss_levers
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress
from lm_workbench.engine.training.checkpoint import load_checkpoint, save_checkpoint
from lm_workbench.engine.training.config import TrainingConfig
from lm_workbench.engine.training.distributed import DistributedContext, setup_distributed, wrap_for_data_parallel
from lm_workbench.engine.training.evaluation import Evaluation, validate
from lm_workbench.engine.training.events import (
    CheckpointSaved, EvalMetrics, StepMetrics, StepsPlanned, TrainingResult,
)
from lm_workbench.engine.training.optimizer import build_adamw
from lm_workbench.engine.training.precision import PrecisionPlan, choose_precision
from lm_workbench.engine.training.allocator import page_faults, reuse_freed_memory
from lm_workbench.engine.training.rng_state import capture_json_rng, capture_torch_rng, restore_json_rng, restore_torch_rng
from lm_workbench.engine.training.sampler import SamplerFactory, SeededSampler
from lm_workbench.engine.training.schedule import WarmupSchedule
from lm_workbench.engine.training.speed import (
    SpeedReport, body_of, compile_in_place, decide_compile, eager_stance, fused_gelu, uncompile,
)
from lm_workbench.engine.training.task import TrainingTask

Event = Progress | StepsPlanned | StepMetrics | EvalMetrics | CheckpointSaved


class TrainableModules(nn.Module):
    """The model and its heads as one module, whose forward is the task's loss.

    DDP needs one module whose forward runs the whole loss so that it can
    all-reduce the gradients of the model and of every head; the loss
    function still receives the plain model and a plain dict of heads.
    """

    def __init__(self, task: TrainingTask):
        super().__init__()
        self.model = task.model
        self.heads = nn.ModuleDict(task.heads)
        self._loss = task.loss

    def forward(self, batch: Any) -> tuple[torch.Tensor, dict[str, float]]:
        return self._loss(self.model, dict(self.heads), batch)


@dataclass
class _Tally:
    """What the loop has measured so far; carried over a resume in the checkpoint's JSON."""

    losses: list[float] = field(default_factory=list)
    tokens_seen: int = 0
    train_time_s: float = 0.0  # time in training steps only (not validation, not checkpoints)
    elapsed_before_s: float = 0.0  # wall time of earlier segments of a resumed run
    last_eval: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, elapsed_s: float) -> dict[str, Any]:
        return {"losses": self.losses, "tokens_seen": self.tokens_seen, "train_time_s": self.train_time_s,
                "elapsed_s": elapsed_s, "last_eval": self.last_eval}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "_Tally":
        return cls(losses=[float(x) for x in data.get("losses", [])], tokens_seen=int(data.get("tokens_seen", 0)),
                   train_time_s=float(data.get("train_time_s", 0.0)), elapsed_before_s=float(data.get("elapsed_s", 0.0)),
                   last_eval=dict(data.get("last_eval", {})))


def _check_task(task: TrainingTask) -> None:
    if task.train_size < 1:
        raise WorkbenchError("no training examples: the training set is empty")
    bad = [name for name in task.heads if not name or "." in name]
    if bad:
        raise WorkbenchError(f"head names must be non-empty and without dots, not {bad}")


def _oom_error(config: TrainingConfig, step: int) -> WorkbenchError:
    return WorkbenchError(
        f"the GPU ran out of memory at step {step} (batch size {config.batch_size}, gradient accumulation "
        f"{config.grad_accum}); use a smaller batch size with more gradient accumulation steps (the same "
        "effective batch), a shorter sequence length or a smaller model"
    )


def train(task: TrainingTask, config: TrainingConfig, *, checkpoint_dir: Path, resume_from: Path | None = None,
          cancel: CancelToken = NEVER_CANCELLED, sampler_factory: SamplerFactory | None = None,
          ) -> Generator[Event, None, TrainingResult]:
    """Train ``task`` as ``config`` says; see the module docstring for the events and the result."""
    config.validate()
    _check_task(task)
    ctx, device = setup_distributed(config.device)
    try:
        return (yield from _Run(task, config, ctx, device, Path(checkpoint_dir), cancel,
                                sampler_factory or SeededSampler).run(resume_from))
    finally:
        ctx.close()


class _Run:
    """One call of ``train``: the state the steps share."""

    def __init__(self, task: TrainingTask, config: TrainingConfig, ctx: DistributedContext, device: torch.device,
                 checkpoint_dir: Path, cancel: CancelToken, sampler_factory: SamplerFactory):
        self.task, self.config, self.ctx, self.device = task, config, ctx, device
        self.checkpoint_dir, self.cancel = checkpoint_dir, cancel
        if config.threads:
            set_cpu_threads(config.threads)
        elif device.type == "cpu":  # leave as many cores as other processes use to them (issue 48)
            set_cpu_threads(free_cpu_threads())
        self.plan: PrecisionPlan = choose_precision(config.precision, device)
        torch.manual_seed(config.seed + ctx.rank)
        random.seed(config.seed + ctx.rank)
        self.rng = np.random.default_rng([config.seed, ctx.rank])
        self.modules = TrainableModules(task).to(device)
        self.modules.train()
        self.speed = SpeedReport(bf16=self.plan.name == "bf16")
        self.speed.note(self.plan.note)
        self.levers = LossLevers(chunked_loss=config.chunked_loss, sparse_mlm_head=config.sparse_mlm_head)
        compile_now, why = decide_compile(config.compile, config.steps, device)
        self.speed.note(why)
        self.compiled_body: nn.Module | None = None
        if compile_now:
            self.compiled_body = body_of(task.model)
            compile_in_place(self.compiled_body)
            self.speed.compiled = True
        self.compile_pending = compile_now  # the first step compiles (and may fall back to eager)
        self.optimizer = build_adamw([task.model, *task.heads.values()], lr=config.lr,
                                     weight_decay=config.weight_decay, device=device)
        self.schedule = WarmupSchedule(self.optimizer, total=config.steps, warmup=config.warmup_steps,
                                       kind=config.schedule)
        self.scaler = self.plan.make_scaler()
        self.sampler = sampler_factory(task.train_size, config.batch_size, config.seed, ctx.rank, ctx.world_size)
        self.tally = _Tally()
        self.step = 0
        self.started = time.perf_counter()
        self.checkpoint: Path | None = None

    # -- the run ----------------------------------------------------------------------------------------------------
    def run(self, resume_from: Path | None) -> Generator[Event, None, TrainingResult]:
        with reuse_freed_memory(self.config.reuse_memory) as reuse, \
                fused_gelu(self.task.model, self.config.fused_gelu) as swapped:
            self.speed.memory_reuse, self.speed.fused_gelu = reuse, swapped > 0
            return (yield from self._run(resume_from))

    def _run(self, resume_from: Path | None) -> Generator[Event, None, TrainingResult]:
        config, ctx = self.config, self.ctx
        if resume_from is not None:
            self._resume(Path(resume_from))
        self.wrapped = wrap_for_data_parallel(self.modules, ctx)
        if ctx.is_main:
            yield StepsPlanned(config.steps, self.step)
        if self.step == 0:
            yield from self._evaluate()
        window_tokens, window_time = 0, 0.0
        first_dt: float | None = None  # the first step's time, when it compiles
        segment_steps = 0
        while self.step < config.steps:
            if ctx.any(self.cancel.cancelled):
                yield from self._save()
                raise Cancelled()
            compiling = self.compile_pending
            t0 = time.perf_counter()
            faults0 = page_faults()
            loss, grad_norm, lr, tokens, extras = self._optimizer_step()
            dt = time.perf_counter() - t0
            segment_steps += 1
            if segment_steps > 1:  # the first step allocates its buffers: page faults from the second on
                self.speed.page_faults += page_faults() - faults0
                self.speed.steps += 1
            if compiling and self.speed.compiled:
                first_dt = dt
            elif first_dt is not None:  # compile time = the first step's time beyond an ordinary step's
                self.speed.compile_s = max(0.0, first_dt - dt)
                self.tally.train_time_s -= self.speed.compile_s
                window_time = max(0.0, window_time - self.speed.compile_s)
                first_dt = None
            self.tally.train_time_s += dt
            self.tally.tokens_seen += tokens
            self.tally.losses.append(loss)
            window_tokens, window_time = window_tokens + tokens, window_time + dt
            yield Progress(self.step, config.steps, f"step {self.step} of {config.steps} · loss {loss:.4f}")
            if self.step % config.log_every == 0 or self.step == config.steps:
                extras = dict(zip(sorted(extras), ctx.all_reduce_mean([extras[k] for k in sorted(extras)])))
                if ctx.is_main:
                    yield StepMetrics(step=self.step, loss=loss, lr=lr, grad_norm=grad_norm,
                                      tokens_per_s=window_tokens / window_time if window_time > 0 else 0.0,
                                      tokens_seen=self.tally.tokens_seen, elapsed_s=self._elapsed(), extra=extras)
                window_tokens, window_time = 0, 0.0
            if config.eval_every and self.step % config.eval_every == 0 and self.step < config.steps:
                yield from self._evaluate()
            if config.checkpoint_every and self.step % config.checkpoint_every == 0 and self.step < config.steps:
                yield from self._save()
        evaluation = yield from self._evaluate()
        yield from self._save()
        return self._result(evaluation)

    def _elapsed(self) -> float:
        return self.tally.elapsed_before_s + time.perf_counter() - self.started

    def _result(self, evaluation: Evaluation) -> TrainingResult:
        losses = self.tally.losses
        return TrainingResult(
            first_loss=losses[0] if losses else float("nan"), final_loss=losses[-1] if losses else float("nan"),
            validation_loss=evaluation.loss, perplexity=evaluation.perplexity, eval_extra=evaluation.extra,
            tokens_per_s=self.tally.tokens_seen / self.tally.train_time_s if self.tally.train_time_s > 0 else 0.0,
            steps_done=self.step, checkpoint=self.checkpoint, cancelled=False, losses=list(losses),
            tokens_seen=self.tally.tokens_seen, elapsed_s=self._elapsed(),
            device=str(self.device), precision=self.plan.name, speed=self.speed.to_dict(),
        )

    # -- compile fallback -------------------------------------------------------------------------------------------
    def _fall_back_to_eager(self, exc: BaseException) -> None:
        if self.compiled_body is not None:
            uncompile(self.compiled_body)
        self.speed.compiled = False
        first = " ".join(str(exc).split())[:160] or type(exc).__name__
        self.speed.note(f"torch.compile failed ({type(exc).__name__}: {first}); training eagerly instead")

    def _forward_backward(self, batch: Any, sync: Any) -> tuple[torch.Tensor, dict[str, float]]:
        """One micro-batch's loss and backward pass; on the first compiled call, a failed compile falls back."""
        if not self.compile_pending:
            return self._micro_step(batch, sync)
        rng = capture_torch_rng()
        try:
            out = self._micro_step(batch, sync)
        except (WorkbenchError, Cancelled, torch.OutOfMemoryError):
            raise
        except Exception as exc:  # noqa: BLE001 (any compile failure: the step is repeated eagerly)
            self.optimizer.zero_grad(set_to_none=True)
            self._fall_back_to_eager(exc)
            restore_torch_rng(rng)  # the eager step draws the same dropout
            out = self._micro_step(batch, sync)
        self.compile_pending = False
        return out

    def _micro_step(self, batch: Any, sync: Any) -> tuple[torch.Tensor, dict[str, float]]:
        with sync:
            with self.plan.autocast(), loss_levers(self.levers, self.speed.levers_ran):
                loss, metrics = self.wrapped(batch)
            self.scaler.scale(loss / self.config.grad_accum).backward()
        return loss, metrics

    # -- one optimizer step ------------------------------------------------------------------------------------------
    def _optimizer_step(self) -> tuple[float, float, float, int, dict[str, float]]:
        """Run step ``self.step + 1``; returns (loss, grad norm before clipping, lr, tokens, mean loss metrics)."""
        config, ctx = self.config, self.ctx
        number = self.step + 1
        try:
            micro_losses, tokens, metric_sums = [], 0, {}
            for k in range(config.grad_accum):
                batch = self.task.make_batch(self.sampler.next_indices(), self.rng)
                tokens += int(self.task.count_tokens(batch))
                batch = batch.to(self.device)
                last = k == config.grad_accum - 1
                sync = contextlib.nullcontext() if last or not ctx.enabled else self.wrapped.no_sync()
                loss, metrics = self._forward_backward(batch, sync)
                micro_losses.append(loss.detach().float())
                for key, value in (metrics or {}).items():
                    if key != "loss":
                        metric_sums[key] = metric_sums.get(key, 0.0) + float(value) / config.grad_accum
            loss_value = ctx.all_reduce_mean([float(torch.stack(micro_losses).mean())])[0]
            if not math.isfinite(loss_value):
                self.optimizer.zero_grad(set_to_none=True)
                raise WorkbenchError(
                    f"the loss became {loss_value} at step {number}; training stopped without saving the broken "
                    f"state. Try a lower learning rate (now {config.lr:g}), more warm-up steps or gradient clipping"
                )
            self.scaler.unscale_(self.optimizer)
            params = [p for group in self.optimizer.param_groups for p in group["params"]]
            max_norm = config.max_grad_norm if config.max_grad_norm > 0 else float("inf")
            grad_norm = float(torch.nn.utils.clip_grad_norm_(params, max_norm))
            if not math.isfinite(grad_norm) and not self.plan.uses_scaler:  # fp16: the scaler skips the step
                self.optimizer.zero_grad(set_to_none=True)
                raise WorkbenchError(
                    f"the gradients became {grad_norm} at step {number}; training stopped without saving the broken "
                    f"state. Try a lower learning rate (now {config.lr:g}) or more warm-up steps"
                )
            lr = self.schedule.apply(self.step)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad(set_to_none=True)
        except torch.OutOfMemoryError:
            self.optimizer.zero_grad(set_to_none=True)
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            raise _oom_error(config, number) from None
        self.step = number
        return loss_value, grad_norm, lr, tokens, metric_sums

    # -- validation and checkpoints ----------------------------------------------------------------------------------
    def _evaluate(self) -> Generator[Event, None, Evaluation]:
        try:
            with eager_stance(self.speed.compiled), loss_levers(self.levers):
                evaluation = validate(self.task, self.modules, self.plan, self.ctx, self.device)
        except torch.OutOfMemoryError:
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            raise _oom_error(self.config, self.step) from None
        self.tally.last_eval = {"step": self.step, "loss": evaluation.loss, "extra": evaluation.extra}
        if self.ctx.is_main:
            yield EvalMetrics(step=self.step, validation_loss=evaluation.loss, perplexity=evaluation.perplexity,
                              extra=dict(evaluation.extra))
        return evaluation

    def _save(self) -> Generator[Event, None, None]:
        """Gather every rank's RNG and sampler state; rank 0 writes the checkpoint."""
        ctx = self.ctx
        ranks = ctx.gather_json({"sampler": self.sampler.state_dict(), "rng": capture_json_rng(self.rng)})
        rng_tensors: dict[str, torch.Tensor] = {}
        for key, tensor in sorted(capture_torch_rng().items()):
            for rank, part in enumerate(ctx.gather_tensor(tensor)):
                rng_tensors[f"rank{rank}.{key}"] = part
        path = self.checkpoint_dir / f"step-{self.step:08d}"
        if ctx.is_main:
            state = {
                "scheduler": self.schedule.state_dict(), "scaler": self.scaler.state_dict(), "ranks": ranks,
                "world_size": ctx.world_size, "config": self.config.to_dict(), "precision": self.plan.name,
                "tally": self.tally.to_dict(self._elapsed()),
            }
            path = save_checkpoint(self.checkpoint_dir, self.step, model=self.task.model, heads=self.task.heads,
                                   optimizer=self.optimizer, state=state, rng_tensors=rng_tensors,
                                   keep=self.config.keep_checkpoints)
        ctx.barrier()
        self.checkpoint = path
        if ctx.is_main:
            yield CheckpointSaved(step=self.step, path=path)

    def _resume(self, path: Path) -> None:
        """Restore weights, optimizer, schedule, scaler, sampler and every RNG from a checkpoint."""
        loaded = load_checkpoint(path, model=self.task.model, heads=self.task.heads, optimizer=self.optimizer)
        state = loaded.state
        self.step = loaded.step
        self.schedule.load_state_dict(state["scheduler"])
        if self.scaler.is_enabled() and state.get("scaler"):
            self.scaler.load_state_dict(state["scaler"])
        self.tally = _Tally.from_dict(state.get("tally", {}))
        ranks = state.get("ranks", [])
        rank = self.ctx.rank
        if len(ranks) == self.ctx.world_size:  # the same number of processes: every state is exact
            self.sampler.load_state_dict(ranks[rank]["sampler"])
            restore_json_rng(self.rng, ranks[rank]["rng"])
            prefix = f"rank{rank}."
            restore_torch_rng({k[len(prefix):]: v for k, v in loaded.rng_tensors.items() if k.startswith(prefix)})
        elif ranks:  # another world size: continue from rank 0's data position with fresh generators
            self.sampler.load_state_dict(ranks[0]["sampler"])
            self.rng = np.random.default_rng([self.config.seed, rank, self.step])
            torch.manual_seed(self.config.seed + rank + 1_000_003 * self.step)
