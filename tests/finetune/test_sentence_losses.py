"""The sentence task's losses and poolings against their formulas, computed independently here (python loops over
the rows in float64, or the analysis poolers in numpy)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lm_workbench.engine.embeddings.sentence_embeddings import cls_pool, max_pool, mean_pool
from lm_workbench.engine.sentence.losses import cosent_loss, cosine_loss, mnrl_loss, sentence_loss, triplet_loss
from lm_workbench.engine.sentence.pooling import pool

RNG = np.random.default_rng(32)
A, P, N = (RNG.normal(size=(5, 4)) for _ in range(3))
SCORES = np.array([4.8, 0.4, 2.5, 2.5, 3.9])


def _cos(u, v) -> float:
    return float(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)))


def t(x) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64)


@pytest.mark.parametrize("margin", [0.5, 1.0, 5.0])
def test_triplet_is_the_mean_hinge_of_euclidean_distances(margin):
    expected = np.mean([max(math.dist(a, p) - math.dist(a, n) + margin, 0.0) for a, p, n in zip(A, P, N)])
    assert float(triplet_loss(t(A), t(P), t(N), margin)) == pytest.approx(expected, rel=1e-9)
    # a margin large enough makes every hinge active, a negative far enough away none
    assert float(triplet_loss(t(A), t(P), t(A + 100.0), margin)) == 0.0


def test_cosine_loss_regresses_the_cosine_to_score_over_max():
    expected = np.mean([(_cos(a, p) - s / 5.0) ** 2 for a, p, s in zip(A, P, SCORES)])
    got = sentence_loss("cosine", [t(A), t(P)], t(SCORES), score_max=5.0)
    assert float(got) == pytest.approx(expected, rel=1e-9)
    assert float(cosine_loss(t(A), t(P), t(SCORES) / 5.0)) == pytest.approx(expected, rel=1e-9)


def test_cosent_sums_over_the_pairs_ranked_wrong_way_round():
    cos = [_cos(a, p) for a, p in zip(A, P)]
    terms = [math.exp(20.0 * (cos[j] - cos[i])) for i in range(5) for j in range(5) if SCORES[i] > SCORES[j]]
    expected = math.log(1.0 + sum(terms))
    assert float(cosent_loss(t(A), t(P), t(SCORES))) == pytest.approx(expected, rel=1e-9)
    # the tie (2.5, 2.5) adds no term: 10 ordered pairs of 5 scores, minus the tied one
    assert len(terms) == 9


@pytest.mark.parametrize("negatives", [False, True])
def test_mnrl_is_cross_entropy_over_in_batch_candidates(negatives):
    candidates = list(P) + (list(N) if negatives else [])
    expected = 0.0
    for i, a in enumerate(A):
        logits = [20.0 * _cos(a, c) for c in candidates]
        expected += -(logits[i] - math.log(sum(math.exp(x) for x in logits)))
    got = mnrl_loss(t(A), t(P), t(N) if negatives else None)
    assert float(got) == pytest.approx(expected / len(A), rel=1e-9)


def test_pooling_matches_the_analysis_poolers_on_the_real_tokens():
    states = RNG.normal(size=(3, 6, 4)).astype(np.float32)
    lengths = [6, 4, 2]
    mask = np.array([[1] * n + [0] * (6 - n) for n in lengths])
    for mode, numpy_pool in (("mean", mean_pool), ("max", max_pool), ("cls", cls_pool)):
        got = pool(torch.from_numpy(states), torch.from_numpy(mask), mode).numpy()
        for row, n in enumerate(lengths):  # the numpy poolers see only the row's real tokens
            np.testing.assert_allclose(got[row], numpy_pool(states[row, :n]), rtol=1e-5, atol=1e-6)
