"""One computing view's task lifecycle, written once (Orange's ``ConcurrentWidgetMixin`` is the model).

A view that runs a long task with progress and partial results (the Heads sweep, Patching, Probing, the
tuned lens's training) mixes in ``ComputingView`` and calls ``start_task(fn, step=..., label=...)``. The task
runs through the view's ``ViewJobs`` (``ctx.jobs``: the newest request wins, a stale job's reports are dropped)
and its reports arrive on the Qt thread at five hooks a view may override:

``on_task_progress(progress)``
    default: the view's ``progress`` bar follows (``sweep_feedback.show_progress``).
``on_partial_result(value)``
    default: ``state.add_partial(value)`` (the view's Qt-free state grows row by row).
``on_done(result)``
    default: ``state.finish(result)``, the origin line names the finished request, the bar full.
``on_exception(exc, tb)``
    default: ``state.stop()``; the origin stays only if the state kept a result; a user's error in one line,
    a fault with its traceback (``sweep_feedback.show_failure``).
``on_cancelled()``
    default: ``state.stop()``; "Cancelled after n rows; those rows are shown."

The defaults read four things the view names as class attributes: ``task_what`` (the failure's subject,
"Patching"), ``task_unit`` ("row", "layer") and two state methods, ``task_done_count`` (rows kept) and
``task_kept`` (a result to keep showing); ``task_origin_line`` (the ``ResultOriginLine`` attribute's name) and
``task_bar`` (the progress bar's). The view sets ``self._task_origin`` (a ``ResultOrigin``) before it starts.
"""

from __future__ import annotations

from typing import Any, Callable

from lm_workbench.engine.progress import CancelToken, Progress
from lm_workbench.ui.view_kit.sweep_feedback import show_cancelled, show_failure, show_finished, show_progress


class ComputingView:
    """Mixin for a ``ModelView`` with ``ctx``, ``notice`` and ``state``; see the module docstring."""

    task_what: str = "This view"
    task_unit: str = "row"
    task_bar: str = "progress"
    task_origin_line: str = "origin_line"
    task_done_count: str = "rows_done"
    task_kept: str = "has_result"

    _task_origin: Any = None

    # ----------------------------------------------------------------- API
    def start_task(self, fn: Callable[[CancelToken], Any], *, step: str, label: str) -> None:
        """Run ``fn`` (a function of a cancel token; a generator yields ``Progress`` and partial results)."""
        bar = getattr(self, self.task_bar, None)
        if bar is not None:
            bar.setRange(0, 1)
            bar.setValue(0)
        self.ctx.jobs.run(fn, self.on_done, step=step, label=label, on_progress=self.on_task_progress,
                          on_partial=self.on_partial_result, on_error=self.on_exception,
                          on_cancelled=self.on_cancelled)

    def cancel(self) -> None:
        """Stop this view's task (another view's job is left alone)."""
        if self.ctx is not None:
            self.ctx.jobs.cancel()

    # --------------------------------------------------------------- hooks
    def on_task_progress(self, progress: Progress) -> None:
        bar = getattr(self, self.task_bar, None)
        if bar is not None:
            show_progress(bar, progress)

    def on_partial_result(self, value: Any) -> None:
        self.state.add_partial(value)

    def on_done(self, result: Any) -> None:
        self.state.finish(result)
        self._task_show_origin(True)
        bar = getattr(self, self.task_bar, None)
        if bar is not None:
            show_finished(bar)

    def on_exception(self, exc: BaseException, tb: str) -> None:
        self.state.stop()
        self._task_show_origin(self._task_state_kept())
        show_failure(self.notice, self.ctx, exc, tb, self.task_what)

    def on_cancelled(self) -> None:
        self.state.stop()
        self._task_show_origin(self._task_state_kept())
        show_cancelled(self.notice, getattr(self.state, self.task_done_count)(), self.task_unit)

    # ------------------------------------------------------------ internal
    def _task_state_kept(self) -> bool:
        return bool(getattr(self.state, self.task_kept)())

    def _task_show_origin(self, kept: bool) -> None:
        line = getattr(self, self.task_origin_line, None)
        if line is not None:
            line.set_origin(self._task_origin if kept else None)
