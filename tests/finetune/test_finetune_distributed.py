"""Fine-tuning under torchrun: two gloo processes on batches of 4 train as one process on batches of 8.

The base is a tiny dropout-free BERT and LoRA's dropout is 0 (ranks would otherwise draw other dropout
masks than one process);
LoRA on sentence classification, where the loss is a mean over examples, so the mean of the two ranks'
gradients is the gradient of the combined batch. One run is recorded (rank 0's), its adapter matches
the single process's within float tolerance, and the epochs count both processes' examples.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from tests.support.finetune_runs import lora_spec, sentiment_files, without_dropout
from tests.support.tiny_models import build_tiny_model
from lm_workbench.finetune.train import run_finetune

ROOT = Path(__file__).resolve().parents[2]
TORCHRUN = Path(sys.executable).with_name("torchrun")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.skipif(not TORCHRUN.exists() or not torch.distributed.is_available(), reason="needs torchrun")
def test_two_processes_fine_tune_like_one_on_the_whole_batch_and_record_one_run(tmp_path, monkeypatch):
    base = without_dropout(build_tiny_model("bert", tmp_path / "tiny"), tmp_path / "base")
    data = sentiment_files(tmp_path / "data")
    home = tmp_path / "home"
    spec = lora_spec(base, data, tmp_path / "ddp", batch_size=4, lora_dropout=0.0)
    argv = [str(TORCHRUN), "--nproc_per_node", "2", "--master_addr", "127.0.0.1", "--master_port", str(free_port()),
            "-m", "lm_workbench", *spec.cli_args()[1:], "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LM_WORKBENCH_HOME": str(home), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=220)
    assert done.returncode == 0, done.stderr[-3000:]
    printed = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(printed) == 1  # rank 0 reports
    ddp = json.loads(printed[0])

    previous = torch.get_num_threads()
    single = run_finetune(lora_spec(base, data, tmp_path / "single", batch_size=8, lora_dropout=0.0))
    torch.set_num_threads(previous)

    assert ddp["steps"] == single["steps"] == 12  # 48 examples / (4 x 2 processes) = 6 steps an epoch
    assert ddp["final_loss"] == pytest.approx(single["final_loss"], rel=1e-4)
    for (step, values), (step1, values1) in zip(ddp["history"], single["history"], strict=True):
        assert step == step1 and values["validation_loss"] == pytest.approx(values1["validation_loss"], rel=1e-4)
    mine = load_file(str(tmp_path / "ddp" / "adapter" / "adapter_model.safetensors"))
    theirs = load_file(str(tmp_path / "single" / "adapter" / "adapter_model.safetensors"))
    assert mine.keys() == theirs.keys()
    for key in mine:
        torch.testing.assert_close(mine[key], theirs[key], rtol=1e-4, atol=1e-5)
    assert not (tmp_path / "ddp" / "checkpoints").exists()

    monkeypatch.setenv("LM_WORKBENCH_HOME", str(home))
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    with RunStore(runs_db_path()) as store:
        runs = store.list_runs()
        assert [(r["id"], r["kind"], r["status"]) for r in runs] == [(ddp["run_id"], "finetune", "finished")]
        assert {m["step"] for m in store.metrics(ddp["run_id"], "loss")} == {6, 12}
