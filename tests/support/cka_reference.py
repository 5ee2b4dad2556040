"""An independent CKA for the compare tests: numpy HSIC on word means taken from a model's own hidden states."""

from __future__ import annotations

import numpy as np
import torch


def hsic_cka(x: np.ndarray, y: np.ndarray) -> float:
    """CKA from the Gram matrices: HSIC(K, L) / sqrt(HSIC(K, K) HSIC(L, L)), HSIC = tr(KHLH) / (n-1)²."""
    n = x.shape[0]
    h = np.eye(n) - np.ones((n, n)) / n
    k, l_ = x @ x.T, y @ y.T

    def hsic(a, b):
        return np.trace(a @ h @ b @ h) / (n - 1) ** 2

    return hsic(k, l_) / np.sqrt(hsic(k, k) * hsic(l_, l_))


@torch.no_grad()
def word_means(loaded, texts) -> list[np.ndarray]:
    """Per layer, [words, H]: each whitespace word's mean over the tokens whose last character falls in it,
    one text at a time, from the model's own hidden states."""
    per_layer = None
    for text in texts:
        spans, at = [], 0
        for word in text.split():
            start = text.index(word, at)
            spans.append((start, start + len(word)))
            at = start + len(word)
        enc = loaded.tokenizer(text, return_offsets_mapping=True, return_tensors="pt")
        offsets = enc.pop("offset_mapping")[0].tolist()
        states = loaded.model(**enc, output_hidden_states=True).hidden_states
        per_layer = per_layer or [[] for _ in states]
        for s, e in spans:
            rows = [i for i, (a, b) in enumerate(offsets) if b > a and s <= b - 1 < e]
            for layer, state in enumerate(states):
                per_layer[layer].append(state[0, rows].double().mean(0).numpy())
    return [np.stack(rows) for rows in per_layer]
