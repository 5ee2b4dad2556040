"""Layer-wise probing on synthetic layers, the Hewitt & Liang control task, and STS Spearman.

No model: the layers are built so the right answer is known. One encodes the
tag but not the word (a probe reads the tag; the control task, whose labels
follow word identity, is no better than the majority class); the other
encodes the word but not the tag beyond what the word implies (the control
task is learnable from it).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy.stats import spearmanr

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.probing.probes import control_labels, shuffled_labels, split_by_sentence
from lm_workbench.engine.probing.sts import average_ranks, pair_cosines, spearman
from lm_workbench.engine.probing.sweep import probe_vectors
from lm_workbench.engine.progress import CancelToken, Partial, iter_with_progress, run_to_completion

TAGS = ["NOUN", "VERB", "DET", "ADJ"]
TAG_WEIGHTS = [0.4, 0.3, 0.2, 0.1]


def synthetic_corpus(seed: int = 0, sentences: int = 300, length: int = 8, types: int = 120):
    """Sentences of word types; each type's tag is fixed (so tags are a function of the word)."""
    rng = np.random.default_rng(seed)
    type_tag = rng.choice(len(TAGS), size=types, p=TAG_WEIGHTS)  # [types]
    words, tags, sentence = [], [], []
    for s in range(sentences):
        for t in rng.integers(0, types, size=length):
            words.append(f"w{t}")
            tags.append(TAGS[type_tag[t]])
            sentence.append(s)
    return words, tags, np.asarray(sentence)


def tag_layer(tags, rng) -> np.ndarray:
    """Encodes the tag (a one-hot, plus noise) and nothing about which word it is."""
    onehot = np.eye(len(TAGS))[[TAGS.index(t) for t in tags]]
    return (onehot * 3.0 + rng.normal(0, 0.5, size=(len(tags), len(TAGS)))).astype(np.float32)


def identity_layer(words, rng, dim: int = 48) -> np.ndarray:
    """Encodes only the word's identity: a fixed random vector per type, plus a little noise."""
    table: dict[str, np.ndarray] = {}
    rows = [table.setdefault(w, rng.normal(0, 1, size=dim)) for w in words]
    return (np.asarray(rows) + rng.normal(0, 0.05, size=(len(words), dim))).astype(np.float32)


@pytest.fixture(scope="module")
def synthetic_result():
    words, tags, sentence = synthetic_corpus()
    rng = np.random.default_rng(1)
    vectors = {0: tag_layer(tags, rng), 1: identity_layer(words, rng)}
    return run_to_completion(probe_vectors("token", vectors, tags, sentence, words, seed=3, n_jobs=2))


def test_a_layer_that_encodes_the_tag_but_not_the_word_is_selective(synthetic_result):
    r = synthetic_result
    assert r.layers == [0, 1]
    assert r.accuracy[0] >= 0.95
    # the control labels follow word identity, which this layer does not encode: majority-class guessing
    assert abs(r.control_accuracy[0] - r.majority) <= 0.05, (r.control_accuracy[0], r.majority)
    assert r.selectivity[0] == pytest.approx(r.accuracy[0] - r.control_accuracy[0])
    assert r.selectivity[0] > 0.4


def test_a_layer_that_encodes_only_word_identity_learns_the_control_task(synthetic_result):
    r = synthetic_result
    assert r.control_accuracy[1] >= 0.90
    assert r.selectivity[1] < r.selectivity[0]


def test_majority_is_the_test_rate_of_the_most_frequent_training_tag(synthetic_result):
    words, tags, sentence = synthetic_corpus()
    split = split_by_sentence(sentence, seed=3)
    top = Counter(tags[i] for i in split.train).most_common(1)[0][0]
    expected = np.mean([tags[i] == top for i in split.test])
    assert synthetic_result.majority == pytest.approx(expected)
    assert synthetic_result.train_size == len(split.train) and synthetic_result.test_size == len(split.test)


def test_the_split_keeps_each_sentence_on_one_side_and_is_seeded():
    sentence = np.repeat(np.arange(50), 4)
    a, b = split_by_sentence(sentence, seed=7), split_by_sentence(sentence, seed=7)
    assert np.array_equal(a.test, b.test)
    assert not set(sentence[a.train]) & set(sentence[a.test])
    assert len(set(sentence[a.test])) == 10  # 20% of 50 sentences
    assert not np.array_equal(a.test, split_by_sentence(sentence, seed=8).test)


def test_control_labels_one_label_per_type_seeded_and_drawn_from_the_training_distribution():
    rng = np.random.default_rng(0)
    types = 4000
    words = [f"t{i}" for i in rng.integers(0, types, size=20000)] + ["Bank", "bank", "BANK"]
    labels = list(rng.choice(["A", "B", "C"], size=len(words), p=[0.6, 0.3, 0.1]))
    train = np.arange(0, len(words) - 3000)  # some types occur only in the held-out rows
    control = control_labels(words, labels, train, seed=5)
    assert control == control_labels(words, labels, train, seed=5)
    assert control != control_labels(words, labels, train, seed=6)
    per_type: dict[str, set] = {}
    for w, c in zip(words, control):
        per_type.setdefault(w.casefold(), set()).add(c)
    assert all(len(v) == 1 for v in per_type.values())  # every occurrence of a type carries its one label
    assert len(per_type["bank"]) == 1  # case-folded: one type
    # over the types, the labels follow the training labels' empirical distribution
    counts = Counter(labels[i] for i in train)
    expected = {k: v / sum(counts.values()) for k, v in counts.items()}
    drawn = Counter(next(iter(v)) for v in per_type.values())
    n = sum(drawn.values())
    for label, p in expected.items():
        assert abs(drawn[label] / n - p) < 0.03, (label, drawn[label] / n, p)
    unseen = {w.casefold() for w in words} - {words[i].casefold() for i in train}
    assert unseen and all(per_type[t] <= set(expected) for t in unseen)


def test_control_labels_only_use_labels_seen_in_training():
    words = ["a", "b", "c", "d"]
    control = control_labels(words, ["X", "X", "Y", "Z"], np.array([0, 1]), seed=0)
    assert set(control) == {"X"}


def test_sentence_control_shuffles_the_labels_across_sentences():
    labels = [str(i % 3) for i in range(60)]
    shuffled = shuffled_labels(labels, seed=2)
    assert sorted(shuffled) == sorted(labels) and shuffled != labels
    assert shuffled == shuffled_labels(labels, seed=2)


def test_sentence_probe_reports_partials_per_layer_and_stops_on_cancel():
    rng = np.random.default_rng(0)
    labels = [["pos", "neg"][i % 2] for i in range(80)]
    signal = np.asarray([[1.0] if lab == "pos" else [-1.0] for lab in labels])
    vectors = {layer: (signal * layer + rng.normal(0, 1, size=(80, 1))).astype(np.float32) for layer in range(4)}
    reports = list(iter_with_progress(probe_vectors("sentence", vectors, labels, np.arange(80), None, n_jobs=1)))
    partials = [r.value for r in reports if isinstance(r, Partial)]
    assert [p.layer for p in partials] == [0, 1, 2, 3]
    result = reports[-1]
    assert result.accuracy[3] == 1.0 and result.accuracy[0] < 0.8  # layer 0 carries no signal

    cancel = CancelToken()
    gen = probe_vectors("sentence", vectors, labels, np.arange(80), None, n_jobs=1, cancel=cancel)
    seen = []
    with pytest.raises(Exception) as info:
        for report in gen:
            if isinstance(report, Partial):
                seen.append(report.value.layer)
                cancel.cancel()
    assert type(info.value).__name__ == "Cancelled" and seen == [0]


def test_a_single_label_task_is_refused():
    with pytest.raises(WorkbenchError, match="two different labels"):
        run_to_completion(probe_vectors("sentence", {0: np.zeros((4, 2))}, ["a"] * 4, np.arange(4), None))


def test_spearman_matches_scipy_on_fixed_vectors_with_ties():
    rng = np.random.default_rng(4)
    first, second = rng.normal(size=(40, 16)), rng.normal(size=(40, 16))
    gold = np.round(rng.uniform(0, 5, size=40))  # many ties
    cos = pair_cosines(first, second)
    expected_cos = np.array([a @ b / np.linalg.norm(a) / np.linalg.norm(b) for a, b in zip(first, second)])
    assert np.allclose(cos, expected_cos)
    assert spearman(cos, gold) == pytest.approx(spearmanr(expected_cos, gold).statistic, abs=1e-12)
    tied = np.round(cos, 1)  # ties on both sides
    assert spearman(tied, gold) == pytest.approx(spearmanr(tied, gold).statistic, abs=1e-12)
    assert np.array_equal(average_ranks(np.array([3.0, 1.0, 3.0, 2.0])), [3.5, 1.0, 3.5, 2.0])
    assert spearman([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) is None  # not defined, never nan
