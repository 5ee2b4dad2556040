"""The window's load and tokenize bookkeeping (``lm_workbench.models.session``), without Qt: only the newest
request's result is kept, a spec already loading is not loaded twice, and a failed load ends the loading."""

from __future__ import annotations

from lm_workbench.models.session import ModelSession


def test_only_the_newest_load_is_kept():
    session = ModelSession()
    first = session.begin_load("minilm")
    assert session.loading and session.loading_spec == "minilm"
    assert session.begin_load("  minilm ") is None  # the same spec while it loads: one load
    assert session.begin_load("") is None
    second = session.begin_load("course-models/gpt2")
    assert second != first and session.loading_spec == "course-models/gpt2"
    assert not session.finish_load(first, "old model")  # replaced: dropped
    assert session.loaded is None and session.loading
    assert session.finish_load(second, "new model")
    assert session.loaded == "new model" and not session.loading
    assert session.load_seconds() >= 0


def test_a_failed_load_ends_loading_unless_a_newer_one_runs():
    session = ModelSession()
    gen = session.begin_load("a")
    newer = session.begin_load("b")
    assert not session.end_load(gen) and session.loading_spec == "b"
    assert session.end_load(newer) and not session.loading
    assert session.begin_load("b") is not None  # after it ended, the same spec loads again


def test_only_the_newest_tokenization_is_kept():
    session = ModelSession()
    first, second = session.begin_tokenize(), session.begin_tokenize()
    assert not session.is_current_tokenize(first) and session.is_current_tokenize(second)
    assert session.is_current_tokenize(session.begin_tokenize()) and not session.is_current_tokenize(second)
