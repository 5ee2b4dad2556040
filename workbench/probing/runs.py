"""Probing and STS as runs: reading their files, computing them, and what they record.

``ProbeRun`` / ``StsRun`` are the ``ComputedRun`` of a ``ProbeSpec`` / ``StsSpec``: the CLI, the Probing
view and the long-run job all run them through ``lm_workbench.runs.execute`` (read -> compute -> record: one
metrics row per layer, step = layer). ``probe_lane_job`` / ``sts_lane_job`` are the long-run lane's targets, so the
runs browser can run one again. Token tasks' vectors are extracted once per model and corpus (into the
activation cache the Embeddings tab shares).
"""

from __future__ import annotations

from typing import Any, Generator

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken
from lm_workbench.embeddings.view_tasks import activation_cache
from lm_workbench.probing.spec import ProbeSpec, StsSpec
from lm_workbench.runs.execute import ComputedRun, execute_in_lane
from lm_workbench.runs.kinds import RunKind, spec_command

PROBE = RunKind(kind="probe", target="lm_workbench.probing.runs:probe_lane_job", title="Layer-wise probing",
                command=spec_command(ProbeSpec))
STS = RunKind(kind="sts", target="lm_workbench.probing.runs:sts_lane_job", title="Sentence similarity per layer",
              command=spec_command(StsSpec))


def read_probe_task(spec: ProbeSpec) -> Any:
    """The task file of ``spec`` (``demo``: the built-in POS set), read and checked."""
    from lm_workbench.engine.probing.demo import POS_DEMO, resolve
    from lm_workbench.engine.probing.readers import read_sentence_task, read_token_task

    if spec.kind == "token":
        return read_token_task(resolve(spec.task, POS_DEMO), spec.tag_column)
    if spec.task == "demo":
        raise WorkbenchError("the built-in demo task is a token task (POS tags); use --kind token")
    return read_sentence_task(spec.task, spec.text_column, spec.label_column, tsv_quoting=spec.tsv_quoting)


def with_read_report(result: Any, inputs: Any, scored: int) -> Any:
    """``result`` with what reading its file kept and skipped (``ReadReport``) and how many rows it scored."""
    report = getattr(inputs, "report", None)
    result.read = report.as_json() if report is not None else None
    result.rows_scored = scored
    return result


class ProbeRun(ComputedRun):
    """Every layer's task and control probes (a ``ProbeResult``); token tasks' vectors are cached."""

    kind = PROBE.kind

    def read(self) -> Any:
        return read_probe_task(self.spec)

    def compute(self, loaded: Any, inputs: Any, cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, Any]:
        from lm_workbench.engine.probing.sweep import probe_sentence_task, probe_token_task

        spec = self.spec
        if spec.kind == "token":
            result = yield from probe_token_task(loaded, inputs, cache=activation_cache(), seed=spec.seed,
                                                 cancel=cancel)
        else:
            result = yield from probe_sentence_task(loaded, inputs, pooling=spec.pooling, seed=spec.seed,
                                                    cancel=cancel)
        return with_read_report(result, inputs, result.test_size)

    def metrics(self, result: Any) -> dict[int, dict[str, float]]:
        """{layer: metrics} (majority repeated per layer: the baseline line)."""
        return {layer: {"accuracy": a, "control_accuracy": c, "selectivity": s, "majority": result.majority}
                for layer, a, c, s in zip(result.layers, result.accuracy, result.control_accuracy,
                                          result.selectivity)}

    def columns(self) -> dict[str, str]:
        return {"name": f"{self.kind} {self.spec.task}", "model": self.spec.model, "method": self.spec.kind}

    recallable = True  # a guide page or lecture step visited again recalls the recorded sweep

    def to_record(self, result: Any) -> dict[str, Any]:
        return _record(result)

    def from_record(self, record: dict[str, Any]) -> Any:
        from lm_workbench.engine.probing.sweep import ProbeResult

        return ProbeResult(**record)


class StsRun(ComputedRun):
    """Spearman's rho per layer (an ``StsResult``)."""

    kind = STS.kind

    def read(self) -> Any:
        """The STS file (``demo``: the built-in pairs), read and checked."""
        from lm_workbench.engine.probing.demo import STS_DEMO, resolve
        from lm_workbench.engine.probing.readers import read_sts

        return read_sts(resolve(self.spec.data, STS_DEMO), self.spec.column_names(), tsv_quoting=self.spec.tsv_quoting)

    def compute(self, loaded: Any, inputs: Any, cancel: CancelToken = NEVER_CANCELLED) -> Generator[Any, None, Any]:
        from lm_workbench.engine.probing.sweep import sts_by_layer

        result = yield from sts_by_layer(loaded, inputs, pooling=self.spec.pooling, cancel=cancel)
        return with_read_report(result, inputs, result.pairs)

    def metrics(self, result: Any) -> dict[int, dict[str, float]]:
        return {layer: {"spearman": rho} for layer, rho in zip(result.layers, result.spearman)}

    def columns(self) -> dict[str, str]:
        return {"name": f"{self.kind} {self.spec.data}", "model": self.spec.model, "method": self.spec.pooling}

    recallable = True

    def to_record(self, result: Any) -> dict[str, Any]:
        return _record(result)

    def from_record(self, record: dict[str, Any]) -> Any:
        from lm_workbench.engine.probing.sweep import StsResult

        return StsResult(**record)


def nan_as_null(value: Any) -> Any:
    """``value`` with every NaN (in it or in its lists) as None: strict JSON has no NaN (e.g. Spearman's rho of a
    layer whose vectors are all alike); the store's record and the CLI's ``--json`` both write through it."""
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, list):
        return [nan_as_null(v) for v in value]
    return value


def _record(result: Any) -> dict[str, Any]:
    """A result dataclass's fields as JSON (NaN as null)."""
    from dataclasses import fields

    return {f.name: nan_as_null(getattr(result, f.name)) for f in fields(result)}


def probe_lane_job(ctx: Any, **params: Any) -> dict[str, Any]:
    """The long-run lane's probing job (``lm_workbench.probing.runs:probe_lane_job``): metrics per layer."""
    return execute_in_lane(ctx, ProbeRun(ProbeSpec.from_dict(params).checked())).to_json()


def sts_lane_job(ctx: Any, **params: Any) -> dict[str, Any]:
    """The long-run lane's STS job (``lm_workbench.probing.runs:sts_lane_job``): Spearman per layer."""
    return execute_in_lane(ctx, StsRun(StsSpec.from_dict(params).checked())).to_json()
