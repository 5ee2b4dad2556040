"""The Runs tab's state without Qt: summaries read once for a finished run and again while one runs, the
deletion hidden until Undo, and the store's notice said once."""

from __future__ import annotations

from lm_workbench.runs.state import RunsState


def test_a_finished_runs_summary_is_read_once_a_running_one_each_time():
    state, asked = RunsState(), []

    def read(ids):
        asked.append(list(ids))
        return {i: {"loss": float(i)} for i in ids}

    runs = [{"id": 1, "status": "finished"}, {"id": 2, "status": "running"}]
    out = state.update(runs, read)
    assert [(r["id"], s) for r, s in out] == [(1, {"loss": 1.0}), (2, {"loss": 2.0})]
    state.update(runs, read)
    assert asked == [[1, 2], [2]]  # the finished run's summary is kept
    assert state.first_active([1, 2]) == 2 and state.first_active([1]) is None
    state.forget(1)
    state.update(runs, read)
    assert asked[-1] == [1, 2]


def test_deletion_hides_runs_until_undo_or_commit():
    state = RunsState()
    runs = [{"id": i, "status": "finished"} for i in (1, 2, 3)]
    state.hide([2, 3])
    assert [r["id"] for r in state.visible(runs)] == [1]
    assert state.undo() == [2, 3] and len(state.visible(runs)) == 3
    state.hide([1])
    assert state.take_deletes() == [1] and state.take_deletes() == [] and len(state.visible(runs)) == 3


def test_the_store_notice_is_said_once():
    state = RunsState()
    assert not state.take_notice(None) and state.take_notice("read-only") and not state.take_notice("read-only")
