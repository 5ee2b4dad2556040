"""The label rule (``engine/data/labels.py``): spellings, the stratified and covering hold-outs, labels across
splits. Random label splits with hypothesis (a fixed, replayable profile); each property's right value is worked
out here from the counts, not read off the code under test."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from lm_workbench.engine.data import labels as rule
from lm_workbench.engine.errors import WorkbenchError

REPLAY = settings(derandomize=True, deadline=None, max_examples=20)


@pytest.mark.parametrize("cell,key", [
    ("1", "1"), (" 1", "1"), ("1 ", "1"), ("1.0", "1"), ("1.00", "1"), ("+1", "1"), ("1e0", "1"), ("10", "10"),
    ("1e1", "10"), ("0.50", "0.5"), ("-0", "0"), ("-2.0", "-2"), (".5", "0.5"),
    ("Pos", "Pos"), ("pos", "pos"), (" pos ", "pos"),  # case is a real difference; spaces are not
    ("nan", "nan"), ("inf", "inf"), ("1_0", "1_0"), ("1.0.0", "1.0.0"), ("one", "one"), ("", ""),
    ("1e999999", "1E+999999"), ("0.00", "0"),  # a huge exponent stays short (no million-digit integer)
])
def test_label_key_compares_numbers_by_value_and_keeps_case(cell, key):
    assert rule.label_key(cell) == key


@REPLAY
@given(a=st.integers(-10**6, 10**6), b=st.integers(-10**6, 10**6))
def test_numbers_are_one_class_exactly_when_their_values_are_equal(a, b):
    spellings = [str(a), f"{a}.0", f" {a} ", f"{a}e0", f"{a}.000"] + ([f"+{a}"] if a >= 0 else [])
    assert len({rule.label_key(x) for x in spellings}) == 1
    assert (rule.label_key(str(a)) == rule.label_key(f"{b}.0")) == (a == b)


def test_spellings_name_a_class_by_its_first_spelling_and_say_what_was_merged():
    names = rule.Spellings()
    written = [("1", "train.tsv"), ("0", "train.tsv"), ("1.0", "dev.tsv"), (" 0", "dev.tsv"), ("Pos", "dev.tsv"),
               ("pos", "train.tsv")]
    assert [names.name(cell, where) for cell, where in written] == ["1", "0", "1", "0", "Pos", "pos"]
    notes = names.notes()
    assert len(notes) == 2  # 1/1.0 and 0/' 0'; Pos and pos stay two classes, unsaid
    assert "'1' (train.tsv) and '1.0' (dev.tsv) are one class, '1': the same number" in notes[0]
    assert "' 0'" in notes[1]


# ---------------------------------------------------------------- the stratified hold-out

def expected_target(n: int, fraction: float) -> int:
    return min(n - 1, max(1, round(n * fraction)))


@pytest.mark.parametrize("labels,fraction,held", [
    # the example: two positives, one negative, 10 %: one positive held out, the negative trains
    (["positive", "negative", "positive"], 0.1, {"positive": 1}),
    (["a"] * 10 + ["b"] * 10, 0.1, {"a": 1, "b": 1}),
    (["a"] * 30 + ["b"] * 10, 0.1, {"a": 3, "b": 1}),          # 4 in all, 3 : 1 as the classes are
    (["a"] * 8 + ["b"] * 1 + ["c"] * 1, 0.2, {"a": 2}),         # b and c cannot spare one
    (["a", "a", "b", "b"], 0.9, {"a": 1, "b": 1}),              # target 3, but only 2 to spare
    (["x"] * 5 + ["y"] * 5 + ["z"] * 5, 0.1, {"x": 1, "y": 1}),  # 2 of 15: ties go to the label sorted first
])
def test_stratified_holdout_table(labels, fraction, held):
    split = rule.stratified_holdout(labels, fraction, seed=0)
    assert dict(Counter(labels[i] for i in split.held)) == held
    assert set(labels[i] for i in split.train) == set(labels)


def test_a_class_of_one_is_said_and_a_file_of_singletons_is_refused():
    split = rule.stratified_holdout(["positive", "negative", "positive"], 0.1)
    assert split.alone == ["negative"] and "'negative' has one example: kept in training" in split.notes[0]
    with pytest.raises(WorkbenchError, match="every label has a single example") as error:
        rule.stratified_holdout(["a", "b", "c"], 0.5)
    assert "\n" not in str(error.value)


label_lists = st.lists(st.sampled_from("abcdefg"), min_size=2, max_size=60)


@REPLAY
@given(labels=label_lists, fraction=st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.5, 0.9]), seed=st.integers(0, 50))
def test_stratified_holdout_properties(labels, fraction, seed):
    counts = Counter(labels)
    spare = sum(c - 1 for c in counts.values())
    if spare == 0:
        with pytest.raises(WorkbenchError):
            rule.stratified_holdout(labels, fraction, seed)
        return
    split = rule.stratified_holdout(labels, fraction, seed)
    assert sorted(split.train + split.held) == list(range(len(labels)))  # a partition, each part in file order
    assert split.train == sorted(split.train) and split.held == sorted(split.held)
    assert {labels[i] for i in split.train} == set(counts)  # every class keeps an example in training
    held = Counter(labels[i] for i in split.held)
    target = expected_target(len(labels), fraction)
    assert len(split.held) == min(target, spare)
    assert all(held[c] <= counts[c] - 1 for c in counts)
    # proportional: no held-out unit could move from one class to a class with room and leave it fairer
    share = {c: Fraction(target * counts[c], len(labels)) - held[c] for c in counts}  # share − held
    for giver in (c for c in counts if held[c] > 0):
        for taker in (c for c in counts if held[c] < counts[c] - 1):
            assert share[taker] <= share[giver] + 1, (giver, taker, held)
    assert split.alone == sorted(c for c, n in counts.items() if n == 1)
    assert rule.stratified_holdout(labels, fraction, seed) == split  # seeded: the same split again


tag_sets = st.lists(st.sets(st.sampled_from(["O", "B-PER", "I-PER", "B-LOC", "B-ORG", "I-ORG"]), min_size=1),
                    min_size=2, max_size=40)


@REPLAY
@given(sets=tag_sets, fraction=st.sampled_from([0.1, 0.2, 0.5]), seed=st.integers(0, 50))
def test_covering_holdout_keeps_every_tag_in_training(sets, fraction, seed):
    found = Counter(t for s in sets for t in set(s) - {"O"})
    try:
        split = rule.covering_holdout(sets, fraction, seed, ignore={"O"})
    except WorkbenchError:  # nothing could be held out: every sentence has a tag no other sentence has (or none)
        assert all(any(found[t] == 1 for t in set(s) - {"O"}) for s in sets)
        return
    assert sorted(split.train + split.held) == list(range(len(sets)))
    assert 1 <= len(split.held) <= expected_target(len(sets), fraction)
    trained = {t for i in split.train for t in sets[i]} - {"O"}
    assert trained == set(found)
    assert split.alone == sorted(t for t, n in found.items() if n == 1)


# ---------------------------------------------------------------- across splits

@pytest.mark.parametrize("train,split_labels,keep,kept,refused,said", [
    (["a", "b"], ["a", "b", "a"], False, [0, 1, 2], None, []),
    (["a", "b"], ["a", "c", "c"], False, None, "'c' \\(2\\)", None),
    (["a", "b"], ["a", "c", "c"], True, [0], None, ["2 validation example(s) left out", "'b' has no example"]),
    (["pos", "neg"], ["Pos"], False, None, "'Pos' \\(1\\)", None),  # case is a difference
    (["a", "b"], ["a"], False, [0], None, ["'b' has no example in validation"]),
    (["O", "B-PER"], [["O", "B-PER"], ["O", "B-LOC"]], True, [0], None, ["1 validation example(s) left out"]),
])
def test_unseen_labels_table(train, split_labels, keep, kept, refused, said):
    if refused:
        with pytest.raises(WorkbenchError, match=refused) as error:
            rule.unseen_labels(train, split_labels, split="validation", keep=keep, ignore={"O"})
        assert "\n" not in str(error.value) and rule.KEEP_FLAG in str(error.value)
        return
    check = rule.unseen_labels(train, split_labels, split="validation", keep=keep, ignore={"O"})
    assert check.kept == kept
    assert len(check.notes) == len(said) and all(s in n for s, n in zip(said, check.notes))


@REPLAY
@given(train=st.lists(st.sampled_from("abcd"), min_size=1, max_size=20),
       held=st.lists(st.sampled_from("abcde"), min_size=1, max_size=20), keep=st.booleans())
def test_unseen_labels_refuses_or_leaves_out_exactly_the_labels_training_lacks(train, held, keep):
    unseen = set(held) - set(train)
    if unseen and not keep:
        with pytest.raises(WorkbenchError):
            rule.unseen_labels(train, held, split="validation", keep=keep)
        return
    check = rule.unseen_labels(train, held, split="validation", keep=keep)
    assert check.kept == [i for i, label in enumerate(held) if label not in unseen]


def test_one_class_is_refused_on_what_is_trained():
    rule.require_classes(["a", "b"])
    with pytest.raises(WorkbenchError, match=r"the training set has one label \('a'\); classification needs"):
        rule.require_classes(["a", "a"])
