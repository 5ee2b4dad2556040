"""What a fine-tuning method costs besides accuracy: the checkpoint on disk and the training state in memory.

``checkpoint_bytes(folder)``: the bytes of every file a run saved for its method (the adapter folder: only
the trained tensors and their config for PEFT methods, the whole model for full fine-tuning).

``training_state_bytes(model)``: the memory the optimizer's view of a model needs, counted rather than
measured: every parameter (frozen ones too), a gradient for each trainable one, and AdamW's two moment
tensors (``exp_avg``, ``exp_avg_sq``, each the parameter's size and dtype) for each trainable one. It leaves
out activations (they grow with batch and length) and the allocator's slack, so it is what the method
changes, not the process's resident set. On a GPU the bench reports ``torch.cuda.max_memory_allocated``
instead (activations included); ``memory_kind`` says which a number is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ADAM_MOMENTS = 2
CUDA_PEAK = "cuda max_memory_allocated"
CPU_ESTIMATE = "cpu estimate: parameters + gradients + AdamW states"


def checkpoint_bytes(folder: str | Path) -> int:
    """The total size of the files under ``folder`` (0 when it does not exist)."""
    folder = Path(folder)
    if not folder.exists():
        return 0
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def training_state_bytes(model: Any) -> dict[str, int]:
    """{"parameters", "gradients", "optimizer", "total"} in bytes for AdamW on ``model`` (see the module)."""
    parameters = gradients = 0
    seen: set[int] = set()
    for p in model.parameters():  # a tied weight counts once
        if id(p) in seen:
            continue
        seen.add(id(p))
        size = p.numel() * p.element_size()
        parameters += size
        if p.requires_grad:
            gradients += size
    optimizer = ADAM_MOMENTS * gradients
    return {"parameters": parameters, "gradients": gradients, "optimizer": optimizer,
            "total": parameters + gradients + optimizer}


def memory_kind(device: str) -> str:
    """Which peak a run on ``device`` reports (``CUDA_PEAK`` or ``CPU_ESTIMATE``)."""
    return CUDA_PEAK if str(device).startswith("cuda") else CPU_ESTIMATE
