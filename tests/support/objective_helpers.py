"""Shared by the objective tests: tiny tokenizers, synthetic documents and a chi-square helper."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
from scipy import stats

TOKENIZER_OF = {"clm": "gpt2", "mlm": "bert", "spanbert": "bert", "bart": "bart", "t5-span": "t5"}


@functools.lru_cache(maxsize=None)
def _tokenizer(folder: str):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder)


def tokenizer_for(tiny_models, kind: str):
    """The tiny model's real (trained) tokenizer, loaded once."""
    return _tokenizer(str(Path(tiny_models[kind])))


def objective(name: str):
    """A new instance of a built-in objective class, found through its entry point (what the workbench uses)."""
    return _objective_class(name)()


@functools.lru_cache(maxsize=None)
def _objective_class(name: str):
    # (reading the entry points scans every installed distribution: ~30 ms, 2,000 times in one test)
    from importlib.metadata import entry_points

    (ep,) = [ep for ep in entry_points(group="lm_workbench.objectives") if ep.name == name]
    return ep.load()


def ordinary_ids(tokenizer) -> np.ndarray:
    """Every id that is not a special token (computed here, not by the engine)."""
    special = set(tokenizer.all_special_ids) | {
        int(i) for i, t in tokenizer.added_tokens_decoder.items() if t.special}
    return np.array([i for i in range(len(tokenizer)) if i not in special], dtype=np.int64)


@functools.lru_cache(maxsize=None)
def _frame(tokenizer) -> tuple[list[int], list[int]]:
    bare = tokenizer("word", add_special_tokens=False)["input_ids"]
    full = tokenizer("word")["input_ids"]
    at = next(i for i in range(len(full)) if full[i: i + len(bare)] == bare)
    return full[:at], full[at + len(bare):]


def wrap(tokenizer, content: list[int]) -> list[int]:
    """Content ids framed the way the tokenizer frames a text (e.g. [CLS] ... [SEP], <s> ... </s>)."""
    prefix, suffix = _frame(tokenizer)
    return prefix + list(content) + suffix


def synthetic_docs(tokenizer, rng: np.random.Generator, n_docs: int, low: int, high: int) -> list[list[int]]:
    pool = ordinary_ids(tokenizer)
    return [wrap(tokenizer, rng.choice(pool, size=int(rng.integers(low, high + 1))).tolist()) for _ in range(n_docs)]


def chisquare_pvalue(observed_lengths: list[int], pmf: dict[int, float]) -> float:
    """Pearson's chi-square p-value of lengths against ``pmf`` (bins with expected < 5 pooled with the tail)."""
    values = sorted(pmf)
    n = len(observed_lengths)
    counts = np.array([sum(1 for x in observed_lengths if x == v) for v in values], dtype=float)
    expected = np.array([pmf[v] * n for v in values])
    outside = n - counts.sum()
    assert outside == 0, f"{outside} lengths outside the support"
    while len(expected) > 2 and expected[-1] < 5:  # pool the thin tail
        expected[-2] += expected[-1]
        counts[-2] += counts[-1]
        expected, counts = expected[:-1], counts[:-1]
    while len(expected) > 2 and expected[0] < 5:
        expected[1] += expected[0]
        counts[1] += counts[0]
        expected, counts = expected[1:], counts[1:]
    expected *= counts.sum() / expected.sum()
    return float(stats.chisquare(counts, expected).pvalue)
