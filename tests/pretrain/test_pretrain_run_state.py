"""The Pre-train tab's state without Qt: which run it follows, what a report of another run does, when Cancel
is offered and when a course model's run takes over the tab."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lm_workbench.pretrain.state import PretrainRunState


def report(status: str, step: int = 0, error: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(status=status, step=step, error=error)


def test_a_followed_run_is_active_until_it_ends_and_other_runs_reports_are_ignored():
    state = PretrainRunState()
    assert state.status is None and not state.active and not state.can_cancel
    state.follow(3, {"family": "gpt2", "objective": "clm", "preset": "tiny"})
    assert state.active and state.can_cancel and state.run_params["family"] == "gpt2"  # submitted, no report yet
    assert not state.report(4, report("finished"))  # another run's: ignored
    assert state.report(3, report("running", step=5))
    assert state.status == "running" and state.shows_training()
    state.cancelling = True
    assert not state.can_cancel and not state.shows_training()
    assert state.report(3, report("cancelled", step=7, error="stopped at step 7"))
    assert not state.active and state.last_error() == "stopped at step 7"
    state.follow(5, {"name": "mine"})
    assert not state.cancelling and state.last_progress is None and state.active


@pytest.mark.parametrize("params, want", [({"name": "mine"}, "Run #2: mine"),
                                          ({"family": "bert", "objective": "mlm", "preset": "tiny"},
                                           "Run #2: bert mlm (tiny)")])
def test_the_title_names_the_run(params, want):
    assert PretrainRunState.title(2, params) == want


def test_a_course_build_takes_the_tab_unless_the_users_own_run_is_active():
    state = PretrainRunState()
    assert state.follows_course_build()  # nothing followed
    state.follow(1, {"name": "mine"})
    assert not state.follows_course_build()  # the user's run is active
    state.report(1, report("finished"))
    assert state.follows_course_build()
    state.course_run = 2
    state.follow(2, {"name": "course"})
    assert state.follows_course_build()  # the course's own run: the next course model follows it
