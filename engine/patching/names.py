"""Patching's names that the window and the CLI read without importing numpy or torch."""

from __future__ import annotations

SITES = ("resid", "attn", "mlp")  # a block's output, its attention's output, its MLP's output
DEFAULT_SITE = "resid"
DEFAULT_NOISE_SCALE = 3.0  # ROME's corruption: noise std = 3 x the embeddings' std
DEFAULT_NOISE_SAMPLES = 10  # noise draws averaged
