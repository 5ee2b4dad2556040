"""The workbench's own SAE training loop, a job generator: progress and cancel every step, a checkpoint every
``checkpoint_every`` steps and on Cancel, resume from it.

Activations are scaled by ``s = √d / mean ‖x‖`` (SAELens's ``normalize_activations="expected_average_only_in"``:
the mean norm estimated on the corpus's first ≈2,000 tokens becomes √d); the SAE trains on s·x and the factor is
folded into the saved weights (``SparseAutoencoder.fold_scaling``), so the saved SAE reads raw activations and
its ``cfg.json`` says ``normalize_activations: "none"`` with the factor kept under ``lm_workbench``.

Events: ``StepsPlanned``, ``Progress`` each step, ``StepMetrics`` every ``log_every`` steps (``loss``; in
``extra``: ``mse`` (Σ_d squared error, batch mean, in the scaled space), ``l0``, ``dead_fraction`` = features
that fired on none of the last ``dead_window`` steps' tokens), ``CheckpointSaved``.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Generator

import torch

from lm_workbench.engine.errors import Cancelled, WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, Progress
from lm_workbench.engine.sae.activations import (DEFAULT_CONTEXT, ActivationStream, StreamState, corpus_token_count,
                                                 mean_norm)
from lm_workbench.engine.sae.kinds import SparseAutoencoder

CHECKPOINT = "checkpoint.pt"


@dataclass
class SaeTrainConfig:
    """What a training run needs besides the model, the site and the corpus. ``expansion`` × d = d_sae."""

    kind: str = "topk"
    expansion: int = 8
    sparsity: float | None = None  # the kind's setting (None: its default)
    steps: int = 200
    batch: int = 256
    lr: float = 1e-3
    buffer_tokens: int = 4096
    context: int = DEFAULT_CONTEXT
    seed: int = 0
    log_every: int = 10
    checkpoint_every: int = 100
    dead_window: int = 50


@dataclass
class SaeTrainResult:
    """The trained SAE (weights folded to raw activations), the scaling factor, the curves and notes."""

    sae: SparseAutoencoder
    scaling_factor: float
    steps_done: int
    curves: dict[str, list[float]]
    notes: list[str]
    corpus_tokens: int
    buffer_bytes: int
    wall_s: float


def _checkpoint(out_dir: Path, sae, optimizer, step: int, stream: ActivationStream, scale: float,
                last_fired: torch.Tensor, curves: dict) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / CHECKPOINT
    torch.save({"sae": sae.state_dict(), "optimizer": optimizer.state_dict(), "step": step,
                "stream": asdict(stream.state), "scale": scale, "last_fired": last_fired, "curves": curves,
                "kind": sae.kind, "d_sae": sae.d_sae, "sparsity": sae.sparsity}, path)
    return path


def sae_step(sae: SparseAutoencoder, optimizer: Any, x: torch.Tensor) -> tuple[Any, torch.Tensor]:
    """One optimizer step on a batch x [N, d_in]: the loss, backward, the decoder's parallel gradient removed and
    its rows renormalised (unit-norm kinds); returns (the ``Loss``, which features fired [d_sae] bool)."""
    out = sae.loss(x)
    optimizer.zero_grad(set_to_none=True)
    out.total.backward()
    sae.remove_parallel_gradient()
    optimizer.step()
    sae.normalise_decoder()
    return out, out.fired


def train_sae(loaded: Any, site: Any, lines: list[str], config: SaeTrainConfig, *, out_dir: str | Path | None = None,
              resume: bool = False, cancel: Any = NEVER_CANCELLED) -> Generator[Any, None, SaeTrainResult]:
    """Train an SAE on ``site`` (a ``HookSite``) of ``loaded`` over ``lines``. With ``resume`` and a checkpoint
    in ``out_dir``, continue from it (the stream restarts at the corpus line it had reached; the shuffled buffer
    is refilled). Cancel: a checkpoint (with ``out_dir``), then ``Cancelled``."""
    from lm_workbench.engine.training.events import CheckpointSaved, StepMetrics, StepsPlanned

    start = time.monotonic()
    torch.manual_seed(config.seed)
    d_in = int(loaded.info.hidden_size)
    notes: list[str] = []
    corpus_tokens = corpus_token_count(loaded, lines, config.context)
    if corpus_tokens < config.buffer_tokens:
        notes.append(f"the corpus has {corpus_tokens} tokens, fewer than the buffer ({config.buffer_tokens}): "
                     "it is read again from its start to fill it (trained on what there is)")
    state_path = Path(out_dir) / CHECKPOINT if out_dir is not None else None
    saved = torch.load(state_path, weights_only=False) if resume and state_path and state_path.is_file() else None
    yield Progress(0, config.steps, "estimating the activations' mean norm")
    scale = saved["scale"] if saved else None
    if scale is None:
        probe = site_width(loaded, site, lines, config.context)
        d_in = probe
        scale = d_in ** 0.5 / mean_norm(loaded, site, lines, context=config.context)
    else:
        d_in = saved["sae"]["W_dec"].shape[1]
    sae = SparseAutoencoder(config.kind, d_in, config.expansion * d_in, config.sparsity, seed=config.seed)
    optimizer = torch.optim.Adam(sae.parameters(), lr=config.lr)
    step, curves = 0, {"step": [], "loss": [], "mse": [], "l0": [], "dead_fraction": []}
    last_fired = torch.zeros(sae.d_sae, dtype=torch.long)
    stream_state = None
    if saved:
        if saved["kind"] != sae.kind or saved["d_sae"] != sae.d_sae:
            raise WorkbenchError(f"the checkpoint in {out_dir} is a {saved['kind']} SAE of width {saved['d_sae']}, "
                                 f"not {sae.kind} of width {sae.d_sae}: resume it with its own settings")
        sae.load_state_dict(saved["sae"])
        optimizer.load_state_dict(saved["optimizer"])
        step, curves, last_fired = saved["step"], saved["curves"], saved["last_fired"]
        stream_state = StreamState(**saved["stream"])
        notes.append(f"resumed at step {step}")
    stream = ActivationStream(loaded, site, lines, buffer_tokens=config.buffer_tokens, batch=config.batch,
                              context=config.context, seed=config.seed, scale=scale, state=stream_state)
    yield StepsPlanned(config.steps, step)
    tokens_since, since = 0, time.monotonic()
    try:
        while step < config.steps:
            cancel.check()
            x = next(stream)
            out, fired = sae_step(sae, optimizer, x)
            step += 1
            last_fired[fired] = step
            tokens_since += len(x)
            if step % config.log_every == 0 or step == config.steps:
                dead = float((step - last_fired >= min(config.dead_window, step)).float().mean())
                for key, value in (("step", step), ("loss", float(out.total.detach())), ("mse", float(out.mse)),
                                   ("l0", float(out.l0)), ("dead_fraction", dead)):
                    curves[key].append(value)
                now = time.monotonic()
                yield StepMetrics(step=step, loss=float(out.total.detach()), lr=config.lr, grad_norm=0.0,
                                  tokens_per_s=tokens_since / max(now - since, 1e-9),
                                  tokens_seen=stream.state.tokens, elapsed_s=now - start,
                                  extra={"mse": float(out.mse), "l0": float(out.l0), "dead_fraction": dead})
                tokens_since, since = 0, now
            if state_path is not None and step % config.checkpoint_every == 0 and step < config.steps:
                yield CheckpointSaved(step, _checkpoint(Path(out_dir), sae, optimizer, step, stream, scale,
                                                        last_fired, curves))
            yield Progress(step, config.steps, f"SAE step {step}/{config.steps}, MSE {float(out.mse):.4f}, "
                                               f"L0 {float(out.l0):.1f}")
    except Cancelled:
        if state_path is not None:
            yield CheckpointSaved(step, _checkpoint(Path(out_dir), sae, optimizer, step, stream, scale, last_fired,
                                                    curves))
        raise
    sae.fold_scaling(scale)
    return SaeTrainResult(sae=sae, scaling_factor=float(scale), steps_done=step, curves=curves, notes=notes,
                          corpus_tokens=corpus_tokens, buffer_bytes=config.buffer_tokens * d_in * 4,
                          wall_s=time.monotonic() - start)


def site_width(loaded: Any, site: Any, lines: list[str], context: int = DEFAULT_CONTEXT) -> int:
    """The width of ``site``'s activations (hook_z and MLP sites may differ from the hidden size)."""
    from lm_workbench.engine.sae.activations import site_activations

    acts, _, _ = site_activations(loaded, site, lines[:1], context)
    return int(acts.shape[-1])
