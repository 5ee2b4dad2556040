"""Sampled softmax (Jean et al. 2015), as bilm-tf trains ELMo's big word softmax.

Instead of normalising over all V words, each step draws S candidate words from a
proposal Q shared by the batch, and scores each target against them::

    logit(w) = h . W_w + b_w - log(S * Q(w))      for the target and for every candidate
    a candidate equal to the row's target (an "accidental hit") is masked out
    loss = cross-entropy with the target in column 0

Q is log-uniform (Zipfian) over word ids, which assumes ids are sorted by
decreasing frequency: Q(k) = log((k + 2) / (k + 1)) / log(V + 1). Candidates are
drawn with replacement, so S * Q(k) is each word's expected count among them.
With every word as a candidate once (expected count 1) this is the full softmax.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def log_uniform_probabilities(vocab_size: int) -> torch.Tensor:
    """[V] Zipfian proposal over ids 0..V-1 (0 = most frequent); sums to 1."""
    k = torch.arange(vocab_size, dtype=torch.float64)
    return ((torch.log(k + 2) - torch.log(k + 1)) / math.log(vocab_size + 1)).float()


def sample_candidates(
    probabilities: torch.Tensor, n_samples: int, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """S ids drawn with replacement from ``probabilities`` [V] -> (ids [S], expected counts [V])."""
    ids = torch.multinomial(probabilities, n_samples, replacement=True, generator=generator)
    return ids, probabilities * n_samples


def sampled_softmax_loss(
    hidden: torch.Tensor,  # [N, P]
    targets: torch.Tensor,  # [N] word ids
    weight: torch.Tensor,  # [V, P]
    bias: torch.Tensor,  # [V]
    candidates: torch.Tensor,  # [S] word ids, shared by all rows
    expected_counts: torch.Tensor,  # [V]: each word's expected count among the candidates
) -> torch.Tensor:
    """Mean sampled-softmax cross-entropy over the N rows."""
    log_counts = torch.log(expected_counts)
    true_logits = (hidden * weight[targets]).sum(-1) + bias[targets] - log_counts[targets]  # [N]
    cand_logits = hidden @ weight[candidates].T + bias[candidates] - log_counts[candidates]  # [N, S]
    hits = candidates.unsqueeze(0) == targets.unsqueeze(1)  # [N, S]
    cand_logits = cand_logits.masked_fill(hits, torch.finfo(cand_logits.dtype).min)
    logits = torch.cat([true_logits.unsqueeze(1), cand_logits], dim=1)  # [N, 1 + S]
    return F.cross_entropy(logits, targets.new_zeros(targets.shape[0]))
