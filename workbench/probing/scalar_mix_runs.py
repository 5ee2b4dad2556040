"""The scalar mix as a run (kind ``scalar-mix``): the ``ComputedRun`` of a ``ScalarMixSpec``.

The task is read as the probes read it (``--task demo`` is the built-in POS set); one metrics row per layer
holds that layer's learned weight (step = layer), and the last layer's row also has gamma, the expected
layer and the accuracy, so the runs browser can overlay two tasks' weights.
"""

from __future__ import annotations

from typing import Any, Generator

from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken
from lm_workbench.embeddings.view_tasks import activation_cache
from lm_workbench.probing.runs import read_probe_task
from lm_workbench.probing.spec import ScalarMixSpec
from lm_workbench.runs.execute import ComputedRun, execute_in_lane
from lm_workbench.runs.kinds import RunKind, spec_command

KIND = "scalar-mix"
SCALAR_MIX = RunKind(kind=KIND, target="lm_workbench.probing.scalar_mix_runs:scalar_mix_lane_job",
                     title="Scalar mix of the layers", command=spec_command(ScalarMixSpec))


class ScalarMixRun(ComputedRun):
    """Learn the mix (an ``lm_workbench.engine.scalar_mix.tasks.TaskMix``); token tasks' vectors are cached."""

    kind = KIND

    def read(self) -> Any:
        return read_probe_task(self.spec)

    def compute(self, loaded: Any, inputs: Any, cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, Any]:
        from lm_workbench.engine.scalar_mix.tasks import mix_sentence_task, mix_token_task
        from lm_workbench.engine.scalar_mix.training import ScalarMixConfig

        spec = self.spec
        config = ScalarMixConfig(steps=spec.steps, seed=spec.seed)
        if spec.kind == "token":
            return (yield from mix_token_task(loaded, inputs, config, cache=activation_cache(), cancel=cancel))
        return (yield from mix_sentence_task(loaded, inputs, config, pooling=spec.pooling, cancel=cancel))

    def metrics(self, result: Any) -> dict[int, dict[str, float]]:
        rows: dict[int, dict[str, float]] = {layer: {"weight": weight}
                                             for layer, weight in zip(result.layers, result.result.weights)}
        r = result.result
        rows[result.layers[-1]] |= {"gamma": r.gamma, "expected_layer": r.expected_layer, "accuracy": r.accuracy}
        return rows

    def columns(self) -> dict[str, str]:
        return {"name": f"scalar mix {self.spec.task}", "model": self.spec.model, "method": self.spec.kind}

    recallable = True  # a guide page or lecture step visited again recalls the recorded mix

    def to_record(self, result: Any) -> dict[str, Any]:
        """The ``TaskMix`` as JSON (NaN as null: the store's JSON has no NaN; the curve's pairs as lists)."""
        r = result.result
        return {"kind": result.kind, "layers": [int(k) for k in result.layers], "labels": list(result.labels),
                "notes": list(result.notes),
                "result": {"weights": [_number(w) for w in r.weights], "gamma": _number(r.gamma),
                           "expected_layer": _number(r.expected_layer), "accuracy": _number(r.accuracy),
                           "validation_loss": _number(r.validation_loss), "steps": int(r.steps),
                           "curve": [[int(step), _number(acc)] for step, acc in r.curve]}}

    def from_record(self, record: dict[str, Any]) -> Any:
        from lm_workbench.engine.scalar_mix.tasks import TaskMix
        from lm_workbench.engine.scalar_mix.training import ScalarMixResult

        r = dict(record["result"])
        r["curve"] = [(int(step), _float(acc)) for step, acc in r.get("curve", [])]
        for name in ("gamma", "expected_layer", "accuracy", "validation_loss"):
            r[name] = _float(r[name])
        r["weights"] = [_float(w) for w in r["weights"]]
        return TaskMix(kind=record["kind"], layers=[int(k) for k in record["layers"]], labels=list(record["labels"]),
                       result=ScalarMixResult(**r), notes=list(record.get("notes", [])))


def _number(value: Any) -> float | None:
    """A float for JSON (None for NaN)."""
    value = float(value)
    return None if value != value else value


def _float(value: Any) -> float:
    """A recorded number back (null: NaN)."""
    return float("nan") if value is None else float(value)


def scalar_mix_lane_job(ctx: Any, **params: Any) -> dict[str, Any]:
    """The long-run lane's scalar-mix job (the runs browser's "run again"): the mix's weights per layer."""
    return execute_in_lane(ctx, ScalarMixRun(ScalarMixSpec.from_dict(params).checked())).to_json()
