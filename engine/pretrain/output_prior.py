"""Start a from-scratch model's fixed logits bias at the training data's unigram log-probabilities.

BART adds ``final_logits_bias`` ([1, vocab], a buffer, not trained) to its logits, and transformers initialises it
to zeros. With zeros, the only way a freshly initialised BART can learn the first thing any language model
learns, the tokens' frequencies, is to put one constant direction into its hidden states. A tiny post-layer-norm
BART trained with AdamW finds that constant in its encoder: the first encoder layer's feed-forward learns a large
vector that is the same at every position (cross-attention passes it to the decoder as a bias), the post-layer
norm then scales the token-specific part away, and within some 25 steps at lr 2e-3 every input gives the same
encoder output. From then on the decoder is a language model of its own and never reads its input (issue 48: the
course BART's reconstruction loss was the same with its own input as with another sentence's).

Starting the bias at the log unigram distribution of the training tokens (add-one smoothed) removes that need:
the frequencies are in the logits from step 0, the encoder keeps its tokens apart, and the decoder learns to copy
from it (the usual "initialise the output bias at the prior"). Only the buffer's value changes: the model class,
its config and every other weight are as before, and views that read the logits (logit lens, anatomy, direct
logit attribution) already add ``final_logits_bias``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

LOGITS_BIAS = "final_logits_bias"


def unigram_log_prior(tokens: np.ndarray, vocab_size: int) -> np.ndarray:
    """Add-one smoothed log-probabilities [vocab_size] float32 of the ids in ``tokens`` (any integer array).

    Ids at or above ``vocab_size`` are ignored. Units: nats (natural log); ``exp`` of the result sums to 1.
    """
    flat = np.asarray(tokens).reshape(-1).astype(np.int64, copy=False)
    counts = np.bincount(flat[(flat >= 0) & (flat < vocab_size)], minlength=vocab_size)[:vocab_size]
    smoothed = counts.astype(np.float64) + 1.0
    return np.log(smoothed / smoothed.sum()).astype(np.float32)


def init_output_prior(model: Any, train_set: Any) -> bool:
    """Set ``model.final_logits_bias`` to ``unigram_log_prior`` of ``train_set``'s tokens; False when the model has
    no such bias (BERT, GPT-2, T5, ELMo: left as they are).

    ``train_set``: an ``ExampleSet`` (its flat ``tokens`` array is read; the labels of a denoising objective are
    these examples). Call it on a freshly built model, before training; a resumed run loads the checkpoint's value.
    """
    import torch

    bias = getattr(model, LOGITS_BIAS, None)
    if not isinstance(bias, torch.Tensor) or bias.ndim != 2 or bias.shape[0] != 1:
        return False
    prior = unigram_log_prior(np.asarray(train_set.tokens), int(bias.shape[1]))
    with torch.no_grad():
        bias.copy_(torch.from_numpy(prior).to(bias.dtype)[None])
    return True


__all__ = ["LOGITS_BIAS", "init_output_prior", "unigram_log_prior"]
