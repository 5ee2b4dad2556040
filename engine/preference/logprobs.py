"""A sequence's log-probability under a model, summed over its answer tokens only.

Labels are the input ids with -100 on every position that is not scored (the prompt, the padding). A decoder
predicts token t from positions < t, so its logits are shifted one place against the labels; an
encoder-decoder's logits are already aligned with its labels (the decoder reads them shifted right).
"""

from __future__ import annotations

import torch

IGNORE_INDEX = -100


def sequence_logprobs(logits: torch.Tensor, labels: torch.Tensor, *, shift: bool = True) -> torch.Tensor:
    """Σ_t log p(labels[t] | ...) over the positions whose label is not -100; ``[B, T, V]``, ``[B, T]`` -> ``[B]``.

    ``shift`` (decoders): the logits at position t-1 predict the label at t. Computed in float32 as
    ``logit - logsumexp`` at the label only, so no ``[B, T, V]`` log-softmax is kept.
    """
    if shift:
        logits, labels = logits[:, :-1, :], labels[:, 1:]
    mask = labels != IGNORE_INDEX
    safe = labels.masked_fill(~mask, 0).unsqueeze(-1)
    logits = logits.float()
    picked = logits.gather(-1, safe).squeeze(-1) - torch.logsumexp(logits, dim=-1)
    return (picked * mask).sum(-1)


def model_logprobs(model: torch.nn.Module, inputs: dict[str, torch.Tensor], labels: torch.Tensor,
                   encoder_decoder: bool) -> torch.Tensor:
    """``model``'s summed answer log-probability of each row (``inputs``: input ids and attention mask;
    an encoder-decoder gets ``labels`` as its decoder's targets, a decoder reads the whole row)."""
    if encoder_decoder:
        logits = model(**inputs, labels=labels).logits
        return sequence_logprobs(logits, labels, shift=False)
    logits = model(**inputs).logits
    return sequence_logprobs(logits, labels, shift=True)
