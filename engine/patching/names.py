"""Patching's names that the window and the CLI read without importing numpy or torch."""

from __future__ import annotations

SITES = ("resid", "attn", "mlp")  # a block's output, its attention's output, its MLP's output
DEFAULT_SITE = "resid"
