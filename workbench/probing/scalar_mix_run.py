"""The scalar mix as a run: params, computing it from a loaded model, and recording it (kind ``scalar-mix``).

The task is read as the probes read it (``--task demo`` is the built-in POS
set); one metrics row per layer holds that layer's learned weight (step =
layer), and the run's final row has gamma, the expected layer and the
accuracy, so the runs browser can overlay two tasks' weights.
"""

from __future__ import annotations

import shlex
import time
from typing import Any, Generator

from engine.progress import NEVER_CANCELLED, CancelToken
from workbench.probing.runs import probe_params

KIND = "scalar-mix"


def mix_params(model: str, task: str, kind: str, pooling: str = "mean", seed: int = 0, steps: int = 300
               ) -> dict[str, Any]:
    """Checked params (the probes' plus the number of training steps)."""
    from engine.errors import WorkbenchError

    if steps < 1:
        raise WorkbenchError(f"--steps must be at least 1, not {steps}")
    return {**probe_params(model, task, kind, pooling, seed), "steps": int(steps)}


def mix_command(params: dict[str, Any]) -> str:
    parts = ["lm-workbench", "scalar-mix", params["model"], "--task", params["task"], "--kind", params["kind"]]
    if params["kind"] == "sentence":
        parts += ["--pooling", params["pooling"]]
    parts += ["--seed", str(params["seed"]), "--steps", str(params["steps"]), "--json"]
    return shlex.join(parts)


def mix_steps(loaded: Any, params: dict[str, Any], task: Any, *, cache: Any = None,
              cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, Any]:
    """Learn the mix of ``params`` on ``task`` (a job generator returning an ``engine.scalar_mix.tasks.TaskMix``)."""
    from engine.scalar_mix.tasks import mix_sentence_task, mix_token_task
    from engine.scalar_mix.training import ScalarMixConfig

    config = ScalarMixConfig(steps=params["steps"], seed=params["seed"])
    if params["kind"] == "token":
        return (yield from mix_token_task(loaded, task, config, cache=cache, cancel=cancel))
    return (yield from mix_sentence_task(loaded, task, config, pooling=params["pooling"], cancel=cancel))


def record_mix(store: Any, params: dict[str, Any], mix: Any, loaded: Any) -> int:
    """Write a learned mix as a ``scalar-mix`` run; returns its id."""
    from workbench.runs.provenance import collect_provenance

    command = mix_command(params)
    run_id = store.create_run(KIND, name=f"scalar mix {params['task']}", model=params["model"],
                              method=params["kind"], params=params, cli_command=command, status="running")
    store.start_run(run_id)
    now = time.time()
    for layer, weight in zip(mix.layers, mix.result.weights):
        store.log_metrics(run_id, layer, {"weight": weight}, time=now)
    r = mix.result
    store.log_metrics(run_id, mix.layers[-1], {"gamma": r.gamma, "expected_layer": r.expected_layer,
                                               "accuracy": r.accuracy}, time=now)
    info = loaded.info
    store.set_provenance(run_id, collect_provenance(device=info.device, dtype=info.dtype, seed=params["seed"],
                                                    model_folder=info.folder, cli_command=command))
    store.finish_run(run_id, "finished")
    return run_id
