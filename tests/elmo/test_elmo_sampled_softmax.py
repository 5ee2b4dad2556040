"""Sampled softmax: exact against the full softmax when every word is a candidate; the proposal's law."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from lm_workbench.engine.elmo.bilm import ElmoModel
from lm_workbench.engine.elmo.characters import batch_to_char_ids
from lm_workbench.engine.elmo.config import preset
from lm_workbench.engine.elmo.sampled_softmax import log_uniform_probabilities, sample_candidates, sampled_softmax_loss
from tests.support.elmo_reference import one_torch_thread  # noqa: F401 (autouse fixture)


def test_every_word_as_a_candidate_once_is_the_full_softmax():
    torch.manual_seed(0)
    v, p, n = 9, 5, 6
    hidden, weight, bias = torch.randn(n, p), torch.randn(v, p), torch.randn(v)
    targets = torch.tensor([0, 3, 8, 3, 5, 1])
    full = F.cross_entropy(hidden @ weight.T + bias, targets)
    # each word once, expected count 1: no correction, and the target's own copy is an accidental hit
    got = sampled_softmax_loss(hidden, targets, weight, bias, torch.arange(v), torch.ones(v))
    torch.testing.assert_close(got, full)
    # without removing the accidental hit the target would count twice: a different number
    logits = hidden @ weight.T + bias
    target_logit = logits.gather(1, targets[:, None])
    twice_counted = (torch.logsumexp(torch.cat([logits, target_logit], 1), 1) - target_logit[:, 0]).mean()
    assert (twice_counted - got).abs() > 1e-3
    # the log expected-count correction: candidates counted twice as often lose log 2 each
    twice = sampled_softmax_loss(hidden, targets, weight, bias, torch.arange(v), torch.full((v,), 2.0))
    torch.testing.assert_close(twice, full)  # a uniform shift of every logit changes nothing
    skewed = torch.ones(v)
    skewed[8] = 100.0
    logits = hidden @ weight.T + bias - torch.log(skewed)
    torch.testing.assert_close(sampled_softmax_loss(hidden, targets, weight, bias, torch.arange(v), skewed),
                               F.cross_entropy(logits, targets))


def test_log_uniform_proposal_follows_zipf_law():
    probs = log_uniform_probabilities(1000)
    assert abs(float(probs.sum()) - 1.0) < 1e-5
    assert math.isclose(float(probs[0]), math.log(2) / math.log(1001), rel_tol=1e-5)
    assert math.isclose(float(probs[9]), math.log(11 / 10) / math.log(1001), rel_tol=1e-5)
    ids, counts = sample_candidates(probs, 200_000, torch.Generator().manual_seed(0))
    freq = torch.bincount(ids, minlength=1000).float()
    for k in (0, 1, 9, 99):
        expected = float(counts[k])
        assert abs(float(freq[k]) - expected) < 5 * math.sqrt(expected), k


def test_bilm_loss_with_samples_scores_each_direction_against_the_same_candidates():
    torch.manual_seed(0)
    model = ElmoModel(preset("course", vocab_size=20))
    ids = batch_to_char_ids([["a", "b", "c"], ["d"]])
    words = torch.tensor([[0, 5, 6, 7, 1], [0, 8, 1, -100, -100]])
    got = model.bilm_loss(ids, words, n_samples=8, generator=torch.Generator().manual_seed(1))
    assert got.n_targets == 12 and torch.isfinite(got.loss)
    got.loss.backward()
    assert model.softmax.weight.grad.abs().sum() > 0

    candidates, counts = sample_candidates(log_uniform_probabilities(20), 8, torch.Generator().manual_seed(1))
    out = model(ids, remove_boundaries=False)
    w, b = model.softmax.weight, model.softmax.bias
    fwd_h, fwd_y, bwd_h, bwd_y = [], [], [], []
    for s, n in enumerate([5, 3]):  # tokens with <S> and </S>
        for t in range(n - 1):
            fwd_h.append(out.forward_top[s, t])  # predicts word t+1
            fwd_y.append(words[s, t + 1])
        for t in range(1, n):
            bwd_h.append(out.backward_top[s, t])  # predicts word t-1
            bwd_y.append(words[s, t - 1])
    forward = sampled_softmax_loss(torch.stack(fwd_h), torch.stack(fwd_y), w, b, candidates, counts)
    backward = sampled_softmax_loss(torch.stack(bwd_h), torch.stack(bwd_y), w, b, candidates, counts)
    torch.testing.assert_close(got.forward_loss, forward)
    torch.testing.assert_close(got.backward_loss, backward)
