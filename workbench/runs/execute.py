"""The one execute path of a run computed from a loaded model: read -> compute -> record.

Probing, STS, the scalar mix and prompt evaluation are each a ``ComputedRun`` (a spec plus how to read its
files, compute it and name its metrics). The window, the CLI and the long-run lane all run one the same way:

- ``execute(run, loaded, store_path, cancel=...)``: a job generator (progress and per-layer partials on the
  way) that reads the spec's files, computes, and records the result as a finished run; it returns
  ``(result, run_id)``. The CLI's ``drive_job`` drives it; ``execute_each`` runs several as one window job.
- ``record(store, run, result, loaded)``: a finished result as a run: one metrics row per step (NaN left
  out), the run's own files, the provenance. A computation that fails or is cancelled records nothing.
- ``execute_in_lane(ctx, run)``: the long-run lane's job (so the runs browser can run one again): the model
  the spec names is loaded in the lane's child and the metrics go to the lane's run (``ctx``).

A run's model loads through the one loader (``lm_workbench.models.loader.load_model``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, ClassVar, Generator

from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress, drive


class ComputedRun:
    """A run computed from a loaded model; a subclass per kind says how (``read``, ``compute``, ``metrics``)."""

    kind: ClassVar[str]

    def __init__(self, spec: Any) -> None:
        self.spec = spec

    def read(self) -> Any:
        """The spec's input files, read and checked (before a model loads, so a bad file fails at once)."""
        raise NotImplementedError

    def compute(self, loaded: Any, inputs: Any, cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, Any]:
        """The computation on ``loaded``: a job generator returning the result."""
        raise NotImplementedError

    def metrics(self, result: Any) -> dict[int, dict[str, float]]:
        """{step: {metric: value}} of a result (for the per-layer kinds, step = layer)."""
        raise NotImplementedError

    def columns(self) -> dict[str, str]:
        """The run's ``name``, ``model`` and ``method`` columns in the runs browser."""
        raise NotImplementedError

    def data_files(self) -> list[str]:
        """The data files whose hash goes into the provenance (none by default)."""
        return []

    def record_files(self, store: Any, run_id: int, result: Any) -> None:
        """Write and register the run's own files (none by default)."""

    @staticmethod
    def record_json(store: Any, run_id: int, folder: str, data: Any) -> Path:
        """Write ``data`` as JSON to ``<data dir>/<folder>/run-<run_id>.json`` and register it as the run's
        ``result`` artifact; returns the path."""
        import json

        from lm_workbench.paths import data_dir

        out = data_dir() / folder / f"run-{run_id}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data), encoding="utf-8")
        store.add_artifact(run_id, "result", "json", out)
        return out

    recallable: ClassVar[bool] = False  # True: ``to_record`` / ``from_record`` rebuild a result (``runs.recall``)

    def to_record(self, result: Any) -> dict[str, Any]:
        """A JSON object from which ``from_record`` rebuilds ``result`` (kinds that are ``recallable``)."""
        raise NotImplementedError

    def from_record(self, record: dict[str, Any]) -> Any:
        """The result ``to_record`` wrote (TypeError, ValueError or KeyError: a record it cannot read)."""
        raise NotImplementedError


def _defined(values: dict[str, float]) -> dict[str, float]:
    """The values that are numbers (None or NaN, e.g. Spearman's rho of a layer whose vectors are all alike, left
    out: the result's notes say why)."""
    return {k: v for k, v in values.items() if v is not None and v == v}


def record(store: Any, run: ComputedRun, result: Any, loaded: Any) -> int:
    """Write a finished result as a run of ``run.kind``; returns its id."""
    from lm_workbench.runs.provenance import collect_provenance

    command = run.spec.cli_command()
    run_id = store.create_run(run.kind, **run.columns(), params=run.spec.to_dict(), cli_command=command,
                              status="running")
    store.start_run(run_id)
    for step, values in run.metrics(result).items():
        store.log_metrics(run_id, step, _defined(values), time=time.time())
    run.record_files(store, run_id, result)
    info = loaded.info
    store.set_provenance(run_id, collect_provenance(device=info.device, dtype=info.dtype,
                                                    seed=getattr(run.spec, "seed", None), model_folder=info.folder,
                                                    data_files=run.data_files(), cli_command=command))
    store.finish_run(run_id, "finished")
    return run_id


def execute(run: ComputedRun, loaded: Any, store_path: str | Path, *, inputs: Any = None,
            cancel: CancelToken = NEVER_CANCELLED, reuse: bool = False) -> Generator[Any, None, tuple[Any, int]]:
    """Read (unless ``inputs`` were read already), compute and record ``run``; returns (result, run id).

    ``reuse``: a run of a ``recallable`` kind whose identical computation (``lm_workbench.runs.recall``: same kind,
    settings, model and data) is recorded already is not computed again: its result comes back from the store
    (``result.reused_run`` is that run's id) and nothing new is recorded; one computed afresh is recorded with
    its key, so the next visit reuses it."""
    from lm_workbench.runs.recall import recall, recall_key, remember
    from lm_workbench.store import RunStore

    key = recall_key(run) if reuse else None
    if key is not None:
        with RunStore(store_path) as store:
            found = recall(store, run, key)
        if found is not None:
            yield Progress(1, 1, f"Reusing run #{found[1]} (the same model, settings and data)")
            return found
    if inputs is None:
        inputs = run.read()
    result = yield from run.compute(loaded, inputs, cancel)
    with RunStore(store_path) as store:
        run_id = record(store, run, result, loaded)
        if key is not None:
            remember(store, run, run_id, key, result)
        return result, run_id


def execute_each(runs: dict[str, ComputedRun], loaded: Any, store_path: str | Path, *, reuse: bool = False
                 ) -> Callable[[CancelToken], Generator[Any, None, dict[str, tuple[Any, int]]]]:
    """A window job, ``fn(cancel)``: ``execute`` each run in turn (``reuse``: recorded ones recalled); returns
    ``{name: (result, run id)}``."""

    def job(cancel: CancelToken) -> Generator[Any, None, dict[str, tuple[Any, int]]]:
        out: dict[str, tuple[Any, int]] = {}
        for name, run in runs.items():
            out[name] = yield from execute(run, loaded, store_path, cancel=cancel, reuse=reuse)
        return out

    return job


def execute_in_lane(ctx: Any, run: ComputedRun) -> Any:
    """The long-run lane's job for ``run``: load its model, compute with the lane's cancel, log the metrics to
    the lane's run; returns the result."""
    inputs = run.read()
    from lm_workbench.models.loader import load_model

    result = drive(run.compute(load_model(run.spec.model), inputs, ctx))
    for step, values in run.metrics(result).items():
        ctx.log_dict(step, _defined(values))
    return result
