"""Probing's names that the window and the CLI read without importing numpy or torch."""

from __future__ import annotations

KINDS = ("token", "sentence")  # what a probing task labels: each token, or each sentence
