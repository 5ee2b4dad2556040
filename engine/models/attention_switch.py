"""Switching a loaded model's attention implementation for a block (``eager`` when attention weights are needed:
transformers 5's sdpa and flash paths return none). Every config in the model is switched, not only the top one:
in transformers 5.17 (5.24 switches them itself), ``set_attn_implementation`` left the config copies that an
encoder-decoder's stacks keep (T5's encoder and decoder) on sdpa, and those stacks returned no weights."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator


def model_configs(model: Any) -> list[Any]:
    """``model``'s config, then each distinct config its submodules hold."""
    configs = [model.config]
    for module in model.modules():
        config = getattr(module, "config", None)
        if config is not None and hasattr(config, "_attn_implementation") and all(config is not c for c in configs):
            configs.append(config)
    return configs


def _set(configs: list[Any], name: str) -> None:
    for config in configs:
        if getattr(config, "_attn_implementation", None) != name:
            config._attn_implementation = name


@contextlib.contextmanager
def attention_switched(model: Any, name: str, *, inner: Any = None) -> Iterator[None]:
    """Within the block every config of ``model`` says attention implementation ``name``; after it, each says
    what it said before. ``inner``: the module whose ``set_attn_implementation`` to call (a peft wrapper's
    transformers model; default ``model``). Not thread-safe: the caller holds its model's lock."""
    inner = model if inner is None else inner
    before = [(c, getattr(c, "_attn_implementation", None)) for c in model_configs(model)]
    if all(value == name for _, value in before):
        yield
        return
    current = before[0][1] or "eager"
    inner.set_attn_implementation(name)
    _set([c for c, _ in before], name)
    try:
        yield
    finally:
        inner.set_attn_implementation(current)
        for config, value in before:
            _set([config], value or current)
