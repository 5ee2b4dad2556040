"""The prompting lab's names that the window's state and the CLI read without importing numpy or torch."""

from __future__ import annotations

MODES = ("cloze", "prefix")  # how a template asks: fill a mask, or continue a prefix
MULTI_TOKEN = ("left-to-right", "pll")  # how an answer of several tokens is scored by a masked model
SELECTIONS = ("random", "balanced", "similar")  # how few-shot demonstrations are chosen
ORDERS = ("as-chosen", "shuffled", "by-label")  # how they are ordered
