"""What a pre-training objective does to a text: the Qt-free logic shared by ``corrupt`` and the masking lab.

``encode_text`` tokenizes within the tokenizer's window, ``first_preview``
corrupts one copy with a seeded generator, ``sample_rates`` draws N copies
from the same generator (the first one included, as ``corrupt --samples``
does) and ``measure_rates`` counts what happened; ``configured_rates`` reads
the rates an objective's settings ask for, where they name one. Heavy
imports (torch, through the plugin API) happen inside the functions.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, Callable

SAMPLE_CHUNK = 256
RATE_NAMES = ("selected", "mask", "random", "keep", "deleted", "moved", "inserted")


def token_window(tokenizer: Any) -> int | None:
    """The tokenizer's maximum length, or None when it declares no real one."""
    window = getattr(tokenizer, "model_max_length", None)
    return window if isinstance(window, int) and 0 < window < 1_000_000 else None


def encode_text(tokenizer: Any, text: str) -> tuple[list[int], int]:
    """The text's ids (special tokens included) cut to the window, and the untruncated length."""
    window = token_window(tokenizer)
    ids = list(tokenizer(text)["input_ids"])
    full = len(ids)
    if window is not None and full > window:  # again, cut to the window with its special tokens
        ids = list(tokenizer(text, truncation=True, max_length=window)["input_ids"])
    return ids, full


def _rng(seed: int) -> Any:
    import numpy as np

    return np.random.default_rng(seed)


def first_preview(registry: Any, name: str, ids: list[int], tokenizer: Any, rng: Any, config: Any) -> Any:
    """The preview of one corrupted copy of ``ids`` (example id 0)."""
    return registry.make_batch(name, [ids], tokenizer, rng, config, example_ids=[0]).previews[0]


def preview_for_seed(registry: Any, name: str, ids: list[int], tokenizer: Any, config: Any, seed: int) -> Any:
    """What ``corrupt --seed SEED`` shows: the first draw of a generator seeded with ``seed``."""
    return first_preview(registry, name, ids, tokenizer, _rng(seed), config)


def draw_previews(registry: Any, name: str, ids: list[int], tokenizer: Any, rng: Any, config: Any, n: int,
                  previews: list[Any] | None = None, cancel: Any = None) -> list[Any]:
    """Extend ``previews`` to ``n`` draws of ``ids`` in chunks (example ids continue the count)."""
    previews = list(previews or [])
    while len(previews) < n:
        if cancel is not None:
            cancel.check()
        k = min(SAMPLE_CHUNK, n - len(previews))
        start = len(previews)
        batch = registry.make_batch(name, [ids] * k, tokenizer, rng, config, example_ids=list(range(start, start + k)))
        previews.extend(batch.previews)
    return previews


def special_mask(tokenizer: Any) -> Callable[[Any], Any]:
    """A function: ids -> boolean array, True at the tokenizer's special tokens."""
    import numpy as np

    from lm_workbench.engine.plugin_api import vocab_info

    info = vocab_info(tokenizer)
    return lambda ids: info.is_special(np.asarray(ids, dtype=np.int64))


def measure_rates(previews: list[Any], special: Callable[[Any], Any]) -> dict[str, float]:
    """Measured shares: selected of the eligible tokens; mask, random, keep, deleted of the selected."""
    from lm_workbench.engine.plugin_api import PositionKind as K

    originals: Counter = Counter()
    inputs: Counter = Counter()
    eligible = 0
    for p in previews:
        eligible += int((~special(p.original)).sum())
        originals.update(p.original_kinds)
        inputs.update(p.kinds)
    selected = sum(originals[k] for k in (K.MASKED, K.RANDOM, K.KEPT, K.DELETED, K.SENTINEL))
    share = lambda n, d: n / d if d else 0.0  # noqa: E731
    return {
        "selected": share(selected, eligible),
        "mask": share(originals[K.MASKED] + originals[K.SENTINEL], selected),
        "random": share(originals[K.RANDOM], selected),
        "keep": share(originals[K.KEPT], selected),
        "deleted": share(originals[K.DELETED], selected),
        "moved": share(originals[K.MOVED], eligible),
        "inserted": share(inputs[K.INSERTED], eligible),
    }


def sample_rates(registry: Any, name: str, ids: list[int], tokenizer: Any, config: Any, seed: int, n: int,
                 cancel: Any = None) -> dict[str, float]:
    """The rates over ``n`` draws from a generator seeded with ``seed`` (as ``corrupt --samples n``)."""
    rng = _rng(seed)
    first = first_preview(registry, name, ids, tokenizer, rng, config)
    previews = draw_previews(registry, name, ids, tokenizer, rng, config, n, [first], cancel)
    return measure_rates(previews, special_mask(tokenizer))


def configured_rates(config: Any) -> dict[str, float]:
    """The rates the settings ask for, where a field names one (mask_rate, noise_density, 80/10/10 shares)."""
    values = dataclasses.asdict(config) if dataclasses.is_dataclass(config) else {}
    out: dict[str, float] = {}
    for field in ("mask_rate", "noise_density"):
        if isinstance(values.get(field), (int, float)):
            out["selected"] = float(values[field])
    mask, rand = values.get("mask_token_prob"), values.get("random_token_prob")
    if isinstance(mask, (int, float)):
        out["mask"] = float(mask)
    if isinstance(rand, (int, float)):
        out["random"] = float(rand)
    if isinstance(mask, (int, float)) and isinstance(rand, (int, float)):
        out["keep"] = max(0.0, 1.0 - float(mask) - float(rand))
    return out


def tokens_of(tokenizer: Any, ids: list[int]) -> list[str]:
    return [str(t) for t in tokenizer.convert_ids_to_tokens([int(i) for i in ids])]


def preview_json(preview: Any, tokenizer: Any) -> dict[str, Any]:
    """A preview with token strings, JSON-ready (``label_tokens`` is None where a label is -100)."""
    labels = list(preview.labels)
    return {
        "tokens": tokens_of(tokenizer, preview.original),
        "input_tokens": tokens_of(tokenizer, preview.input_ids),
        "input_ids": list(preview.input_ids),
        "labels": labels,
        "label_tokens": [None if i < 0 else t for i, t in zip(labels, tokens_of(tokenizer, [max(i, 0) for i in labels]))],
        "kinds": [k.value for k in preview.kinds],
        "original_ids": list(preview.original),
        "original_kinds": [k.value for k in preview.original_kinds],
        "spans": [list(s) for s in preview.spans],
        "labels_aligned": preview.labels_aligned,
    }
