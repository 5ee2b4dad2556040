"""The label rule in probing (issue 42, kind 2): a sentence task's held-out rows are stratified and never take a
label's last example; a token task names the tags found only in held-out sentences."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from lm_workbench.engine.probing.probes import TEST_FRACTION, held_out_rows
from lm_workbench.engine.probing.sweep import probe_vectors
from lm_workbench.engine.progress import run_to_completion


@pytest.mark.parametrize("counts,held", [
    ({"a": 10, "b": 10}, {"a": 2, "b": 2}),          # 20 % of 20, half each
    ({"a": 15, "b": 4, "c": 1}, {"a": 3, "b": 1}),   # 4 of 20 as 15 : 4 : 1 allows; c's only example trains
])
def test_a_sentence_task_holds_out_each_label_in_proportion(counts, held):
    labels = [label for label, n in counts.items() for _ in range(n)]
    for seed in range(5):
        split, notes = held_out_rows("sentence", labels, np.arange(len(labels)), seed)
        assert dict(Counter(labels[i] for i in split.test)) == held
        assert {labels[i] for i in split.train} == set(counts)
        assert len(split.test) == round(len(labels) * TEST_FRACTION)
        assert any("'c' has one example: kept in training" in n for n in notes) == ("c" in counts)


def test_the_sentence_probe_reports_the_split_and_its_notes():
    rng = np.random.default_rng(0)
    labels = ["pos"] * 12 + ["neg"] * 7 + ["rare"]
    vectors = {0: rng.normal(size=(20, 3)).astype(np.float32)}
    result = run_to_completion(probe_vectors("sentence", vectors, labels, np.arange(20), None, n_jobs=1))
    assert (result.train_size, result.test_size) == (16, 4)
    assert "'rare' has one example" in result.to_json()["notes"][0]


def test_a_token_task_names_tags_found_only_in_held_out_sentences():
    tags = ["DET", "NOUN", "DET", "NOUN", "X", "DET", "NOUN"]
    sentence = np.array([0, 0, 1, 1, 2, 3, 3])  # the X is alone in sentence 2
    for seed in range(10):
        split, notes = held_out_rows("token", tags, sentence, seed)
        in_test_only = {tags[i] for i in split.test} - {tags[i] for i in split.train}
        assert bool(notes) == bool(in_test_only)
        if in_test_only:
            assert notes[0].startswith("tag(s) 'X' occur only in held-out sentences (1 row(s))")
