"""Every random number generator the loop uses, captured and restored for an exact resume.

Four generators decide a step: python's ``random`` (libraries that use it),
the loop's numpy ``Generator`` (corruption/masking in ``make_batch``),
torch's CPU generator (dropout on CPU, initialisations) and, on CUDA, each
device's generator (dropout on GPU). The numpy and python states are plain
numbers and go to JSON; the torch states are byte tensors and go to
safetensors as uint8.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import torch


def capture_json_rng(rng: np.random.Generator) -> dict[str, Any]:
    """The numpy generator's and python ``random``'s states as JSON-able values."""
    version, internal, gauss_next = random.getstate()
    return {
        "numpy": rng.bit_generator.state,
        "python": {"version": version, "state": list(internal), "gauss_next": gauss_next},
    }


def restore_json_rng(rng: np.random.Generator, state: dict[str, Any]) -> None:
    rng.bit_generator.state = state["numpy"]
    py = state["python"]
    random.setstate((py["version"], tuple(py["state"]), py["gauss_next"]))


def capture_torch_rng() -> dict[str, torch.Tensor]:
    """torch's CPU state and each CUDA device's state: uint8 tensors [n_bytes]."""
    out = {"torch_cpu": torch.get_rng_state()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        for i, state in enumerate(torch.cuda.get_rng_state_all()):
            out[f"cuda_{i}"] = state
    return out


def restore_torch_rng(states: dict[str, torch.Tensor]) -> None:
    torch.set_rng_state(states["torch_cpu"].to(torch.uint8).cpu())
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            state = states.get(f"cuda_{i}")
            if state is not None:
                torch.cuda.set_rng_state(state.to(torch.uint8).cpu(), i)
