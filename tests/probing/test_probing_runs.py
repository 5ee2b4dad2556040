"""Probing and STS as run kinds: the command line a run repeats as, and the long-run job's metrics."""

from __future__ import annotations

import shlex
import threading

import pytest

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.cli.parser import build_parser
from lm_workbench.probing.spec import ProbeSpec, StsSpec
from lm_workbench.runs.kinds import run_kind


def test_a_probe_run_copies_as_a_command_that_parses_back_to_its_params():
    params = ProbeSpec("some/model", "my tags.conllu", "sentence", "cls", 4).checked().to_dict()
    line = run_kind("probe").cli_command(params)
    args = build_parser().parse_args(shlex.split(line)[1:])
    assert (args.command, args.model, args.task, args.kind, args.pooling, args.seed, args.json) == (
        "probe", "some/model", "my tags.conllu", "sentence", "cls", 4, True)
    sts = StsSpec("minilm", "demo", "model").checked().to_dict()
    args = build_parser().parse_args(shlex.split(run_kind("sts").cli_command(sts))[1:])
    assert (args.command, args.model, args.data, args.pooling) == ("sts", "minilm", "demo", "model")
    assert run_kind("probe").target == "lm_workbench.probing.runs:probe_lane_job"


def test_params_are_checked():
    with pytest.raises(WorkbenchError, match="token or sentence"):
        ProbeSpec("m", "demo", "word").check()
    with pytest.raises(WorkbenchError, match="--pooling"):
        StsSpec("m", "demo", "median").check()  # max is a pooling now (issue 32)


def test_the_sts_job_logs_spearman_per_layer_as_the_lane_would_run_it(tmp_path, fresh_home, tiny_models):
    from lm_workbench.runs.run_context import RunContext
    from lm_workbench.probing.runs import sts_lane_job
    from lm_workbench.store import RunStore

    with RunStore(tmp_path / "runs.db") as store:
        run_id = store.create_run("sts", params={})
        result = sts_lane_job(RunContext(run_id, store, threading.Event()), model=str(tiny_models["bert"]), data="demo",
                         pooling="mean")
        rows = store.metrics(run_id, "spearman")
    assert [r["step"] for r in rows] == result["layers"] == [0, 1, 2]
    assert [r["value"] for r in rows] == pytest.approx(result["spearman"])
