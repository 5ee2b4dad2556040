"""DDP under torchrun: 2 CPU processes on gloo train like one process on the combined batch."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from lm_workbench.engine.progress import run_to_completion
from lm_workbench.engine.training.checkpoint import list_checkpoints
from lm_workbench.engine.training.config import TrainingConfig
from lm_workbench.engine.training.loop import train
from tests.support.training_helpers import GlobalBatchSampler, make_task, tiny_gpt2

ROOT = Path(__file__).resolve().parents[2]
TORCHRUN = Path(sys.executable).with_name("torchrun")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@pytest.mark.skipif(not TORCHRUN.exists() or not torch.distributed.is_available(), reason="needs torchrun")
def test_two_gloo_processes_match_one_process_on_the_whole_batch(tmp_path):
    out, checkpoints = tmp_path / "out", tmp_path / "ckpt"
    out.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    command = [str(TORCHRUN), "--nproc_per_node", "2", "--master_addr", "127.0.0.1", "--master_port",
               str(free_port()), str(ROOT / "tests" / "support" / "training_ddp_worker.py"), str(out), str(checkpoints)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    ranks = [json.loads((out / f"rank{r}.json").read_text()) for r in range(2)]
    params = [load_file(str(out / f"rank{r}.safetensors")) for r in range(2)]

    # the ranks end identical, and only rank 0 reported metrics and wrote a checkpoint
    assert all(torch.equal(params[0][k], params[1][k]) for k in params[0])
    assert ranks[0]["events"].count("StepMetrics") == 3 and "CheckpointSaved" in ranks[0]["events"]
    assert ranks[1]["events"] == []
    assert ranks[0]["losses"] == ranks[1]["losses"]  # all-reduced
    assert [p.name for p in list_checkpoints(checkpoints)] == ["step-00000003"]
    assert sorted(p.name for p in checkpoints.iterdir()) == ["step-00000003"]
    state = json.loads((checkpoints / "step-00000003" / "state.json").read_text())
    assert len(state["loop"]["ranks"]) == 2 and state["loop"]["world_size"] == 2
    assert {"rank0.torch_cpu", "rank1.torch_cpu"} <= set(load_file(str(checkpoints / "step-00000003" /
                                                                       "rng.safetensors")))

    # one process with batch 8 = both ranks' batches of 4: same losses, same weights (gradients averaged)
    model = tiny_gpt2(seed=0, dropout=0.0)
    config = TrainingConfig(steps=3, batch_size=8, lr=1e-3, warmup_steps=0, eval_every=0, log_every=1, seed=0)
    result = run_to_completion(train(make_task(model, n_train=64), config, checkpoint_dir=tmp_path / "single",
                                     sampler_factory=GlobalBatchSampler))
    np.testing.assert_allclose(ranks[0]["losses"], result.losses, rtol=1e-5)
    single = {k: v for k, v in model.state_dict().items() if k in params[0]}
    for key, value in single.items():
        torch.testing.assert_close(params[0][key], value, rtol=1e-4, atol=1e-5)
