"""Probing and STS as runs: params, computing them, and recording them in the run store.

A run's ``params`` say everything needed to repeat it: the model, the task
(or STS) file or ``demo``, the kind (token / sentence), the pooling and the
seed. ``probe_steps`` / ``sts_steps`` compute from a loaded model (the CLI,
the Probing view and the long-run job all go through them);
``record_probe`` / ``record_sts`` write a finished result as a run: one
metrics row per layer (step = layer). ``probe_job`` / ``sts_job`` are the
long-run lane's targets, so the runs browser can run one again.
"""

from __future__ import annotations

import shlex
import time
from typing import Any, Generator

from engine.embeddings.names import SENTENCE_POOLINGS
from engine.errors import WorkbenchError
from engine.probing.names import KINDS
from engine.progress import NEVER_CANCELLED, CancelToken

PROBE_KIND, STS_KIND = "probe", "sts"
TASK_KINDS = KINDS
POOLINGS = SENTENCE_POOLINGS


def probe_params(model: str, task: str, kind: str, pooling: str = "mean", seed: int = 0) -> dict[str, Any]:
    """Checked params of a probing run."""
    if kind not in TASK_KINDS:
        raise WorkbenchError(f"--kind must be token or sentence, not {kind!r}")
    if pooling not in POOLINGS:
        raise WorkbenchError(f"--pooling must be one of {', '.join(POOLINGS)}, not {pooling!r}")
    return {"model": model, "task": str(task), "kind": kind, "pooling": pooling, "seed": int(seed)}


def sts_params(model: str, data: str, pooling: str = "mean") -> dict[str, Any]:
    """Checked params of an STS run."""
    if pooling not in POOLINGS:
        raise WorkbenchError(f"--pooling must be one of {', '.join(POOLINGS)}, not {pooling!r}")
    return {"model": model, "data": str(data), "pooling": pooling}


def probe_command(params: dict[str, Any]) -> str:
    """The ``lm-workbench probe`` line that repeats a probing run."""
    parts = ["lm-workbench", "probe", params["model"], "--task", params["task"], "--kind", params["kind"]]
    if params["kind"] == "sentence":
        parts += ["--pooling", params.get("pooling", "mean")]
    parts += ["--seed", str(params.get("seed", 0)), "--json"]
    return shlex.join(parts)


def sts_command(params: dict[str, Any]) -> str:
    """The ``lm-workbench sts`` line that repeats an STS run."""
    return shlex.join(["lm-workbench", "sts", params["model"], "--data", params["data"],
                       "--pooling", params.get("pooling", "mean"), "--json"])


def read_probe_task(params: dict[str, Any]) -> Any:
    """The task file of ``params`` (``demo``: the built-in POS set), read and checked."""
    from engine.probing.demo import POS_DEMO, resolve
    from engine.probing.readers import read_sentence_task, read_token_task

    if params["kind"] == "token":
        return read_token_task(resolve(params["task"], POS_DEMO))
    if params["task"] == "demo":
        raise WorkbenchError("the built-in demo task is a token task (POS tags); use --kind token")
    return read_sentence_task(params["task"])


def read_sts_pairs(params: dict[str, Any]) -> Any:
    """The STS file of ``params`` (``demo``: the built-in pairs), read and checked."""
    from engine.probing.demo import STS_DEMO, resolve
    from engine.probing.readers import read_sts

    return read_sts(resolve(params["data"], STS_DEMO))


def activation_cache() -> Any:
    """The workbench's activation cache (token tasks' vectors are extracted once per model and corpus)."""
    from engine.embeddings.activation_cache import ActivationCache
    from workbench.paths import cache_dir

    return ActivationCache(cache_dir() / "activations")


def probe_steps(loaded: Any, params: dict[str, Any], task: Any, *, cache: Any = None, n_jobs: int = -1,
                cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, Any]:
    """The probing sweep of ``params`` on ``task`` (a job generator returning a ``ProbeResult``)."""
    from engine.probing.sweep import probe_sentence_task, probe_token_task

    if params["kind"] == "token":
        return (yield from probe_token_task(loaded, task, cache=cache, seed=params["seed"], n_jobs=n_jobs,
                                            cancel=cancel))
    return (yield from probe_sentence_task(loaded, task, pooling=params["pooling"], seed=params["seed"],
                                           n_jobs=n_jobs, cancel=cancel))


def sts_steps(loaded: Any, params: dict[str, Any], pairs: Any, *, cancel: CancelToken = NEVER_CANCELLED
              ) -> Generator[Any, None, Any]:
    """The STS sweep of ``params`` on ``pairs`` (a job generator returning an ``StsResult``)."""
    from engine.probing.sweep import sts_by_layer

    return (yield from sts_by_layer(loaded, pairs, pooling=params["pooling"], cancel=cancel))


def probe_metrics(result: Any) -> dict[int, dict[str, float]]:
    """{layer: metrics} of a ``ProbeResult`` (majority repeated per layer: the baseline line)."""
    return {layer: {"accuracy": a, "control_accuracy": c, "selectivity": s, "majority": result.majority}
            for layer, a, c, s in zip(result.layers, result.accuracy, result.control_accuracy, result.selectivity)}


def sts_metrics(result: Any) -> dict[int, dict[str, float]]:
    return {layer: {"spearman": rho} for layer, rho in zip(result.layers, result.spearman)}


def _record(store: Any, kind: str, params: dict[str, Any], metrics: dict[int, dict[str, float]],
            loaded: Any, command: str) -> int:
    from workbench.runs.provenance import collect_provenance

    run_id = store.create_run(kind, name=f"{kind} {params.get('task', params.get('data'))}", model=params["model"],
                              method=params.get("kind", params.get("pooling")), params=params,
                              cli_command=command, status="running")
    store.start_run(run_id)
    for layer, values in metrics.items():
        store.log_metrics(run_id, layer, {k: v for k, v in values.items() if v == v}, time=time.time())  # no nan
    info = loaded.info
    store.set_provenance(run_id, collect_provenance(device=info.device, dtype=info.dtype,
                                                    seed=params.get("seed"), model_folder=info.folder,
                                                    cli_command=command))
    store.finish_run(run_id, "finished")
    return run_id


def record_probe(store: Any, params: dict[str, Any], result: Any, loaded: Any) -> int:
    """Write a finished probing sweep as a ``probe`` run; returns its id."""
    return _record(store, PROBE_KIND, params, probe_metrics(result), loaded, probe_command(params))


def record_sts(store: Any, params: dict[str, Any], result: Any, loaded: Any) -> int:
    """Write a finished STS sweep as an ``sts`` run; returns its id."""
    return _record(store, STS_KIND, params, sts_metrics(result), loaded, sts_command(params))


def _load(model: str) -> Any:
    from engine.progress import run_to_completion
    from workbench.models.jobs import load_model_job
    from workbench.settings import load_settings

    return run_to_completion(load_model_job(model, load_settings(), NEVER_CANCELLED))


def _run_logged(ctx: Any, steps: Generator[Any, None, Any], metrics_of: Any) -> Any:
    from engine.progress import run_to_completion

    result = run_to_completion(steps)
    for layer, values in metrics_of(result).items():
        ctx.log_dict(layer, {k: v for k, v in values.items() if v == v})
    return result


def probe_job(ctx: Any, **params: Any) -> dict[str, Any]:
    """The long-run lane's probing job (``workbench.probing.runs:probe_job``): metrics per layer."""
    params = probe_params(**params)
    task = read_probe_task(params)
    loaded = _load(params["model"])
    cache = activation_cache() if params["kind"] == "token" else None
    return _run_logged(ctx, probe_steps(loaded, params, task, cache=cache, cancel=ctx),
                       probe_metrics).to_json()


def sts_job(ctx: Any, **params: Any) -> dict[str, Any]:
    """The long-run lane's STS job (``workbench.probing.runs:sts_job``): Spearman per layer."""
    params = sts_params(**params)
    pairs = read_sts_pairs(params)
    loaded = _load(params["model"])
    return _run_logged(ctx, sts_steps(loaded, params, pairs, cancel=ctx), sts_metrics).to_json()
