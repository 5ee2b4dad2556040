"""Space before work: what a run will write, and a refusal up front when it will not fit.

A training run writes checkpoints and then its outputs. A checkpoint (``lm_workbench.engine.training.checkpoint``)
holds every parameter of the model in its own dtype (``model.safetensors``), AdamW's two moments
(``exp_avg``, ``exp_avg_sq``: two float32 copies of the trainable parameters) and a few kilobytes of
RNG and JSON state. The loop keeps the newest ``keep`` checkpoints and writes the next one before it
prunes the oldest, so ``keep + 1`` can be on disk at once (a resumed run's own checkpoints count among
them); the outputs (the model folder) come after the last checkpoint, beside the ``keep`` left.
``training_bytes`` is that peak, less what is on the disk already.

``check_space(folder, needed, what)`` compares an estimate with ``shutil.disk_usage`` of the folder
(or its nearest existing parent) and raises ``NotEnoughSpace`` with the numbers: "needs about 280 MB
in /path, 3 MB free". Estimates carry a margin (``MARGIN``): a refusal must not come from rounding,
and a run that starts must not die for lack of a few megabytes. Kept light: no torch.
"""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

from lm_workbench.engine.errors import MachineFault

MB = 1_000_000
ADAMW_MOMENTS = 2  # exp_avg and exp_avg_sq, float32, one each per trainable parameter
OPTIMIZER_BYTES = 4
CHECKPOINT_EXTRA = 256 * 1024  # state.json, rng.safetensors, the safetensors headers
TOKENIZER_BYTES_PER_ENTRY = 120  # tokenizer.json, vocab and merges, per vocabulary entry
MARGIN = 1.1  # on top of every estimate
MIN_FREE = 5 * MB  # also left free: the run store, the log, summary files


class NotEnoughSpace(MachineFault):
    """The disk will not hold what a run is about to write."""


def human(n: float) -> str:
    """Bytes as the user reads them: ``"280 MB"``, ``"3.1 GB"``, ``"512 kB"``."""
    if n >= 10**9:
        return f"{n / 10**9:.1f} GB"
    if n >= MB:
        return f"{n / MB:.0f} MB"
    return f"{max(n, 0) / 1000:.0f} kB"


def checkpoint_bytes(total_params: int, trainable_params: int, bytes_per_param: int = 4) -> int:
    """One training checkpoint: every weight, AdamW's two float32 moments of the trainable ones, state."""
    return (int(total_params) * int(bytes_per_param)
            + ADAMW_MOMENTS * OPTIMIZER_BYTES * int(trainable_params) + CHECKPOINT_EXTRA)


def checkpoint_saves(steps: int, every: int) -> int:
    """How many checkpoints a run of ``steps`` writes: every ``every`` steps before the end, and at the end."""
    if every <= 0 or every >= steps:
        return 1
    return (steps - 1) // every + 1


def training_bytes(checkpoint: int, *, saves: int, keep: int, outputs: int, present: int = 0,
                   present_count: int = 0) -> int:
    """What a run adds to the disk at its fullest: the newest checkpoint is written beside the ones kept
    (a resumed run's ``present_count`` checkpoints, ``present`` bytes, among them) before the oldest is
    pruned, and the outputs come beside the ``keep`` left at the end."""
    saves = max(saves, 1)
    kept_before = min(present_count, keep)
    during = present + checkpoint
    if saves >= 2:
        during = max(during, (min(keep, kept_before + saves - 1) + 1) * checkpoint)
    at_the_end = min(keep, kept_before + saves) * checkpoint + outputs
    return max(0, max(during, at_the_end) - int(present))


def existing_checkpoints(folder: str | os.PathLike) -> tuple[int, int]:
    """(bytes, number of ``step-`` checkpoints) a run's checkpoint folder holds now (a resume's)."""
    path = Path(folder)
    if not path.is_dir():
        return 0, 0
    return folder_bytes(path), sum(1 for p in path.glob("step-*") if p.is_dir())


def transformer_parameters(*, vocab: int, hidden: int, layers: int, intermediate: int | None = None,
                           positions: int = 512, encoder_decoder: bool = False) -> int:
    """About how many parameters a BERT-, GPT-2-, BART- or T5-like model of this size has (tied output
    embedding): embeddings, then per layer attention (4 H²) and the feed-forward block (2 H I);
    an encoder-decoder has a decoder as deep with cross-attention (another 4 H²)."""
    inner = intermediate if intermediate else 4 * hidden
    per_layer = 4 * hidden * hidden + 2 * hidden * inner + 10 * hidden
    body = layers * per_layer
    if encoder_decoder:
        body += layers * (per_layer + 4 * hidden * hidden)
    return vocab * hidden + positions * hidden + body


def elmo_parameters(*, words: int, hidden: int, layers: int, cell: int) -> int:
    """About how many parameters a biLM has: the word softmax (``hidden`` wide) and, per direction and
    layer, an LSTM of ``cell`` units projected to ``hidden``; plus a character CNN allowance."""
    lstm = 2 * layers * (4 * cell * (2 * hidden) + cell * hidden)
    return words * (hidden + 1) + lstm + 200_000


def tokenizer_bytes(vocab: int) -> int:
    return int(vocab) * TOKENIZER_BYTES_PER_ENTRY + 64 * 1024


def folder_bytes(folder: str | os.PathLike) -> int:
    """What the files under ``folder`` take (0 when it does not exist)."""
    total = 0
    for root, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def existing_parent(path: str | os.PathLike) -> Path:
    """``path`` or the nearest parent that exists (an output folder is often made by the run)."""
    current = Path(path).absolute()
    while not current.exists() and current.parent != current:
        current = current.parent
    return current


def free_bytes(path: str | os.PathLike) -> int:
    """Free space for this user on the disk that holds ``path`` (or would hold it)."""
    return int(shutil.disk_usage(existing_parent(path)).free)


def with_margin(estimate: int) -> int:
    return int(math.ceil(estimate * MARGIN)) + MIN_FREE


def check_space(folder: str | os.PathLike, needed: int, what: str) -> int:
    """Refuse (``NotEnoughSpace``) when ``needed`` bytes (margin added here) will not fit in ``folder``;
    returns the free bytes."""
    needed = with_margin(needed)
    free = free_bytes(folder)
    if free < needed:
        raise NotEnoughSpace(f"{what} needs about {human(needed)} in {folder}, {human(free)} free: free some space "
                             "or choose a folder on another disk")
    return free
