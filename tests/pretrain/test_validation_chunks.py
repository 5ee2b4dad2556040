"""Validation batches of a pre-training run (``lm_workbench.pretrain.task_builder.validation_chunks``): a last batch
of one example joins the one before, since next-sentence prediction cannot pair a batch of one (the is-nsp-needed
study's NSP arm failed on a validation set of 2 × 8 + 1 examples)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lm_workbench.pretrain.task_builder import validation_chunks


@pytest.mark.parametrize("n, batch_size, sizes", [
    (17, 8, [8, 9]),  # the reported case: 8, 8, 1 before
    (16, 8, [8, 8]),
    (9, 8, [9]),
    (1, 8, [1]),  # one example in all: nothing to join (an NSP run says so in one line)
    (0, 8, []),
    (5, 8, [5]),
])
def test_a_last_batch_of_one_joins_the_one_before(n, batch_size, sizes):
    assert [len(c) for c in validation_chunks(n, batch_size)] == sizes


@settings(derandomize=True, deadline=None, max_examples=50)
@given(st.integers(0, 200), st.integers(2, 64))
def test_every_example_once_in_order_and_no_batch_of_one(n, batch_size):
    chunks = validation_chunks(n, batch_size)
    assert [i for c in chunks for i in c] == list(range(n))
    assert all(len(c) >= 2 for c in chunks) or n == 1
    assert all(len(c) <= batch_size + 1 for c in chunks)
