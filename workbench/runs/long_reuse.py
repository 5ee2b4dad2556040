"""A training run (a ``LongRun``, with an output folder) reused instead of trained again, when a guide page or a
lecture step that trains on open is visited again.

``reusing_window_job(run, store_path)`` is the window job of ``run`` (``LongRun.window_job``) that first looks for
a finished run of the same kind whose provenance carries the same reuse key (``lm_workbench.runs.reuse``: the
kind, the canonical settings, the model's fingerprint, the data files' hashes, the package versions) and whose
output is still there (the kind's ``recalled(store, found)`` gives its summary, or None when its folder was
deleted or overwritten since). Such a run's summary comes back (with ``reused_run``: its id) and nothing is
trained or recorded. Otherwise the run trains as always (progress, Cancel) and, once finished, its key goes into
its provenance (``KEY_FIELD``), so the next visit finds it.
"""

from __future__ import annotations

from typing import Any, Callable, Generator

from lm_workbench.engine.progress import CancelToken, Progress


def recalled_run(store: Any, run: Any, key: str) -> dict[str, Any] | None:
    """The summary of the newest finished run of ``run.kind`` with ``key`` whose output ``run.recalled`` still
    finds (``reused_run`` and ``run_id``: its id), or None."""
    from lm_workbench.runs.reuse import KEY_FIELD

    for found in store.list_runs(kind=run.kind, status="finished", recover=False):
        prov = found.get("provenance")
        if not (isinstance(prov, dict) and prov.get(KEY_FIELD) == key):
            continue
        summary = run.recalled(store, found)
        if summary is not None:
            return {**summary, "run_id": int(found["id"]), "reused_run": int(found["id"])}
    return None


def reusing_window_job(run: Any, store_path: Any, *, reuse: bool = True
                       ) -> Callable[[CancelToken], Generator[Any, None, Any]]:
    """A window job, ``fn(cancel)``: (``reuse``) a recorded run with ``run``'s key and its output there (its
    summary), else ``run`` trained and recorded with its key (its summary; None when cancelled). Without ``reuse``
    (a Train button) it always trains, and still records the key."""
    from lm_workbench.runs.reuse import mark_key, reuse_key

    key = reuse_key(run.kind, run.spec.to_dict())

    def job(cancel: CancelToken) -> Generator[Any, None, Any]:
        from lm_workbench.store import RunStore

        found = None
        if reuse:
            with RunStore(store_path) as store:
                found = recalled_run(store, run, key)
        if found is not None:
            yield Progress(1, 1, f"Reusing run #{found['run_id']} (the same model, settings and data)")
            return found
        summary = yield from run.window_job(store_path)(cancel)
        if isinstance(summary, dict) and not summary.get("cancelled") and summary.get("run_id") is not None:
            with RunStore(store_path) as store:
                mark_key(store, int(summary["run_id"]), key)
        return summary

    return job
