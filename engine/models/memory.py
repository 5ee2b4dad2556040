"""Estimate the memory a model needs before loading it, and what is free.

Parameters come from the safetensors headers when there are weights (exact)
or from the config otherwise (the usual transformer count: embeddings plus
about 12·h² per layer). Loading takes the parameters at the target dtype plus
a working margin for activations and the loader's temporaries.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lm_workbench.engine.models.weights import weight_entries

WORKING_MARGIN = 1.25  # activations, tokenizer, temporary copies while loading
_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


def parameters_from_config(config: Any) -> int:
    h = getattr(config, "hidden_size", None) or getattr(config, "d_model", None) or getattr(config, "n_embd", 0)
    vocab = getattr(config, "vocab_size", 0) or 0
    layers = (
        getattr(config, "num_hidden_layers", None)
        or getattr(config, "n_layer", None)
        or getattr(config, "num_layers", None)
        or getattr(config, "encoder_layers", 0)
        or 0
    )
    ffn = (
        getattr(config, "intermediate_size", None)
        or getattr(config, "d_ff", None)
        or getattr(config, "n_inner", None)
        or getattr(config, "encoder_ffn_dim", None)
        or 4 * h
    )
    per_layer = 4 * h * h + 2 * h * ffn
    if getattr(config, "is_encoder_decoder", False):
        dec = getattr(config, "num_decoder_layers", None) or getattr(config, "decoder_layers", None) or layers
        per_decoder_layer = 8 * h * h + 2 * h * ffn  # self- and cross-attention
        return vocab * h + layers * per_layer + dec * per_decoder_layer
    return vocab * h + layers * per_layer


def estimate_load_bytes(folder: Path | None, config: Any, dtype_name: str = "float32") -> tuple[int, int]:
    """(parameter count, bytes needed to load) for a model folder or a bare config."""
    entries = weight_entries(folder) if folder is not None else []
    if entries:
        n_params = sum(e.numel for e in entries)
    else:
        n_params = parameters_from_config(config)
    return n_params, int(n_params * _BYTES.get(dtype_name, 4) * WORKING_MARGIN)


def available_bytes(device: str = "cpu") -> int:
    """Memory free for a new model on this device, right now."""
    if device.startswith("cuda"):
        import torch

        free, _total = torch.cuda.mem_get_info(torch.device(device))
        return int(free)
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except ImportError:
        pass
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))


def format_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"
