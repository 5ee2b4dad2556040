"""Training the translators through the workbench's one training loop, the model frozen.

The objective (Belrose et al. 2023): for a window of corpus tokens, run the model once (no gradient) for
its hidden states ``h_0..h_L`` and its output distribution ``p_L`` (the target, detached); for every
``l < L`` read the translated state through the model's own final norm and head, ``q_l =
softmax(head(norm(T_l(h_l))))``, and minimise ``sum_l mean_positions KL(p_L || q_l)``. Only the translators
learn: the model's parameters are set not to require gradients for the run (and restored after), the
translators are the loop's model, so its checkpoints hold them alone. Each layer's readout is
recomputed in the backward pass (``torch.utils.checkpoint``), so memory holds one layer's
positions x vocabulary logits at a time, not L of them.

``corpus_windows`` cuts a tokenized corpus into windows (with the tokenizer's special tokens around each);
``corpus_kl`` measures the per-layer KL of both lenses over held-out windows (position-weighted means).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generator, Iterable, Iterator

import numpy as np
import torch
from torch.utils.checkpoint import checkpoint

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.lens.logit import lens_readout
from lm_workbench.engine.objectives.batching import Batch
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress
from lm_workbench.engine.lens.tuned.config import TunedLensConfig
from lm_workbench.engine.lens.tuned.lens import check_tunable, kl_per_layer, translators_for
from lm_workbench.engine.lens.tuned.translators import Translators


def corpus_windows(tokenizer: Any, lines: Iterable[str], seq_len: int, max_windows: int | None = None
                   ) -> np.ndarray:
    """[N, seq_len] int64: the lines' tokens (an end-of-text token between lines where the tokenizer has one),
    cut into windows, each wrapped in the tokenizer's special tokens ([CLS] ... [SEP] for BERT, none for
    GPT-2); the last incomplete window is dropped."""
    prefix, suffix = special_frame(tokenizer)
    extra = len(prefix) + len(suffix)
    body = seq_len - extra
    if body < 1:
        raise WorkbenchError(f"a window of {seq_len} tokens leaves no room beside {extra} special tokens")
    sep = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else tokenizer.sep_token_id
    stream: list[int] = []
    windows: list[list[int]] = []
    for line in lines:
        stream.extend(tokenizer(line, add_special_tokens=False)["input_ids"])
        if sep is not None and extra == 0:
            stream.append(int(sep))
        while len(stream) >= body:
            windows.append(prefix + stream[:body] + suffix)
            del stream[:body]
        if max_windows is not None and len(windows) >= max_windows:
            break
    windows = windows[:max_windows] if max_windows is not None else windows
    return np.asarray(windows, dtype=np.int64).reshape(len(windows), seq_len)


def special_frame(tokenizer: Any) -> tuple[list[int], list[int]]:
    """The special tokens the tokenizer puts before and after a text: ([CLS], [SEP]) for BERT, ([], []) for
    GPT-2, ([<s>], []) for Llama."""
    plain = tokenizer("word", add_special_tokens=False)["input_ids"]
    full = tokenizer("word", add_special_tokens=True)["input_ids"]
    for start in range(len(full) - len(plain) + 1):
        if full[start:start + len(plain)] == plain:
            return [int(i) for i in full[:start]], [int(i) for i in full[start + len(plain):]]
    return [], []


@contextlib.contextmanager
def frozen(model: torch.nn.Module) -> Iterator[None]:
    """No parameter of ``model`` requires a gradient inside; each one's flag is restored after."""
    flags = [(p, p.requires_grad) for p in model.parameters()]
    try:
        for p, _ in flags:
            p.requires_grad_(False)
        yield
    finally:
        for p, flag in flags:
            p.requires_grad_(flag)


def hidden_states(loaded: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> list[torch.Tensor]:
    """The model's L+1 hidden states, each [real positions, H] (padding dropped), without a gradient."""
    with torch.no_grad():
        out = loaded.base_model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True)
    keep = attention_mask.reshape(-1).bool()
    return [h.reshape(-1, h.shape[-1])[keep] for h in out.hidden_states]


def lens_objective(loaded: Any, translators: Translators, input_ids: torch.Tensor, attention_mask: torch.Tensor
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """(sum over layers of the mean KL(p_L || q_l), the per-layer means [L]) for one batch of windows."""
    hidden = hidden_states(loaded, input_ids, attention_mask)
    n = len(hidden)
    if n - 1 != translators.count:
        raise WorkbenchError(f"{translators.count} translators for a model with {n} hidden states")
    readout = lens_readout(loaded, n)
    dtype = hidden[0].dtype
    with torch.no_grad():
        target = torch.log_softmax(readout(n - 1, hidden[-1]).float(), dim=-1)
        p = target.exp()

    def layer_kl(i: int, h: torch.Tensor) -> torch.Tensor:
        q = torch.log_softmax(readout(i, translators.translate(i, h).to(dtype)).float(), dim=-1)
        return (p * (target - q)).sum(-1).mean()

    per_layer = torch.stack([checkpoint(layer_kl, i, hidden[i], use_reentrant=False) if torch.is_grad_enabled()
                             else layer_kl(i, hidden[i]) for i in range(n - 1)])
    return per_layer.sum(), per_layer.detach()


def corpus_kl(loaded: Any, windows: np.ndarray, translators: Translators | None = None) -> np.ndarray:
    """[L+1]: the position-weighted mean KL(p_L || p_l) over ``windows`` of the logit lens, or of the tuned lens
    with ``translators``."""
    device = next(loaded.model.parameters()).device
    sums, count = None, 0
    for row in windows:
        ids = torch.as_tensor(row, device=device)[None]
        hidden = torch.stack(hidden_states(loaded, ids, torch.ones_like(ids)))
        if translators is not None:
            with torch.inference_mode():
                hidden = translators.to(device).translate_stack(hidden)
        kl = kl_per_layer(loaded, hidden) * hidden.shape[1]
        sums = kl if sums is None else sums + kl
        count += int(hidden.shape[1])
    if sums is None:
        raise WorkbenchError("no held-out windows to measure the KL on")
    return sums / count


@dataclass
class TunedLensResult:
    translators: Translators
    kl_logit: list[float]  # [L+1] held-out mean KL(p_L || p_l) of the logit lens (= the tuned lens at identity)
    kl_tuned: list[float]  # [L+1] the same for the trained tuned lens
    steps: int
    losses: list[float] = field(default_factory=list)
    checkpoint: str | None = None
    device: str = ""
    kl_tuned_before: list[float] = field(default_factory=list)  # the tuned lens at identity, before training
    kl_logit_after: list[float] = field(default_factory=list)  # the logit lens again after (the model is frozen)

    @property
    def mean_kl_logit(self) -> float:
        return float(np.mean(self.kl_logit[:-1]))

    @property
    def mean_kl_tuned(self) -> float:
        return float(np.mean(self.kl_tuned[:-1]))


def train_tuned_lens(loaded: Any, train_windows: np.ndarray, valid_windows: np.ndarray,
                     config: TunedLensConfig | None = None, *, checkpoint_dir: str | Path,
                     resume_from: str | Path | None = None, cancel: CancelToken = NEVER_CANCELLED,
                     ) -> Generator[Any, None, TunedLensResult]:
    """Train identity-initialised translators on ``train_windows`` [N, T]; yields ``Progress`` and the loop's
    metric and checkpoint events; returns the held-out KL per layer of both lenses and the translators."""
    from lm_workbench.engine.training.config import TrainingConfig
    from lm_workbench.engine.training.loop import train
    from lm_workbench.engine.training.task import TrainingTask

    config = config or TunedLensConfig()
    config.validate()
    check_tunable(loaded)
    if len(train_windows) == 0:
        raise WorkbenchError("the corpus gives no training windows: use a longer corpus or a shorter --seq-len")
    device = next(loaded.model.parameters()).device
    translators = translators_for(loaded)
    was_training = loaded.model.training
    loaded.model.eval()
    train_ids = torch.as_tensor(train_windows)
    valid_batches = [Batch(inputs={"input_ids": torch.as_tensor(valid_windows[i:i + config.batch_size]),
                                   "attention_mask": torch.ones_like(torch.as_tensor(valid_windows[i:i + config.batch_size]))},
                           labels=torch.zeros(0), previews=[])
                     for i in range(0, len(valid_windows), config.batch_size)]

    def make_batch(indices: list[int], rng: np.random.Generator) -> Batch:
        ids = train_ids[torch.as_tensor(indices, dtype=torch.long)]
        return Batch(inputs={"input_ids": ids, "attention_mask": torch.ones_like(ids)}, labels=torch.zeros(0),
                     previews=[])

    def loss(model: torch.nn.Module, heads: dict, batch: Batch) -> tuple[torch.Tensor, dict[str, float]]:
        total, per_layer = lens_objective(loaded, model, batch.inputs["input_ids"], batch.inputs["attention_mask"])
        return total, {"kl_mean": float(per_layer.mean())}

    task = TrainingTask(model=translators, heads={}, train_size=len(train_windows), make_batch=make_batch, loss=loss,
                        validation_batches=lambda: valid_batches,
                        eval_weight=lambda b: float(b.inputs["attention_mask"].sum()))
    loop_config = TrainingConfig(steps=config.steps, batch_size=config.batch_size, lr=config.lr,
                                 weight_decay=config.weight_decay, warmup_steps=config.warmup_steps,
                                 eval_every=config.eval_every, checkpoint_every=config.checkpoint_every,
                                 log_every=max(1, min(10, config.steps // 10)), seed=config.seed,
                                 device="cuda" if device.type == "cuda" else "cpu", precision="auto")
    try:
        with frozen(loaded.model):
            yield Progress(0, 0, "measuring the logit lens's KL on the held-out windows")
            kl_logit = corpus_kl(loaded, valid_windows)
            kl_tuned_before = corpus_kl(loaded, valid_windows, translators)
            result = yield from train(task, loop_config, checkpoint_dir=Path(checkpoint_dir),
                                      resume_from=Path(resume_from) if resume_from else None, cancel=cancel)
            yield Progress(0, 0, "measuring the tuned lens's KL on the held-out windows")
            translators.eval()
            kl_tuned = corpus_kl(loaded, valid_windows, translators)
            kl_logit_after = corpus_kl(loaded, valid_windows)
    finally:
        loaded.model.train(was_training)
    return TunedLensResult(translators=translators, kl_logit=kl_logit.tolist(), kl_tuned=kl_tuned.tolist(),
                           kl_tuned_before=kl_tuned_before.tolist(), kl_logit_after=kl_logit_after.tolist(),
                           steps=int(result.steps_done), losses=list(result.losses),
                           checkpoint=str(result.checkpoint) if result.checkpoint else None, device=str(device))
