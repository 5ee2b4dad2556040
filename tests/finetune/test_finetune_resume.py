"""Fine-tuning resumes: a cancelled run and a SIGKILLed one continue to the same numbers as an uninterrupted run.

Every run here is LoRA on a tiny BERT (48 sentences, batch 8: 6 steps an epoch, 12 in all, a checkpoint
every 2 steps, one CPU thread). The uninterrupted run is the reference: the resumed runs must end with
bit-identical adapter weights, the same final loss and the same validation history; a finished run
leaves no checkpoints beside its outputs, and a new run refuses a folder that holds an unfinished one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from lm_workbench.engine.errors import Cancelled, WorkbenchError
from lm_workbench.engine.progress import CancelToken, Progress
from tests.support.finetune_runs import lora_spec, sentiment_files
from tests.support.tiny_models import build_tiny_model
from lm_workbench.cli.main import main
from lm_workbench.finetune.train import resume_spec, run_finetune

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def setting(tmp_path_factory):
    """(base model folder, (train, validation), the uninterrupted run's summary, its folder)."""
    root = tmp_path_factory.mktemp("finetune-resume")
    base = build_tiny_model("bert", root / "base")
    data = sentiment_files(root / "data")
    previous = torch.get_num_threads()
    summary = run_finetune(lora_spec(base, data, root / "whole"))
    torch.set_num_threads(previous)
    return base, data, summary, root / "whole"


def adapter_tensors(out: Path) -> dict[str, torch.Tensor]:
    tensors = {}
    for file in sorted((out / "adapter").glob("*.safetensors")):
        tensors.update({f"{file.name}:{k}": v for k, v in load_file(str(file)).items()})
    assert tensors, f"no adapter weights in {out}"
    return tensors


def assert_same_run(summary: dict, reference: dict, out: Path, reference_out: Path) -> None:
    assert summary["steps"] == reference["steps"] == 12
    assert summary["final_loss"] == reference["final_loss"]
    assert summary["history"] == reference["history"]  # evaluations at steps 0, 6, 12, incl. the resumed-over one
    assert [step for step, _ in summary["history"]] == [0, 6, 12]
    assert summary["validation"] == reference["validation"]
    mine, theirs = adapter_tensors(out), adapter_tensors(reference_out)
    assert mine.keys() == theirs.keys()
    assert all(torch.equal(mine[k], theirs[k]) for k in mine)
    assert not (out / "checkpoints").exists()  # finished: nothing left to resume beside the outputs


def test_a_cancelled_run_resumes_to_the_uninterrupted_result(setting, tmp_path):
    base, data, reference, reference_out = setting
    out = tmp_path / "cancelled"
    spec = lora_spec(base, data, out)
    token = CancelToken()

    def cancel_after_step_5(event) -> None:
        if isinstance(event, Progress) and event.total and event.done >= 5:
            token.cancel()

    previous = torch.get_num_threads()
    with pytest.raises(Cancelled):
        run_finetune(spec, cancel=token, report=cancel_after_step_5)
    assert (out / "checkpoints" / "step-00000005" / "state.json").is_file()  # saved on cancel
    assert not (out / "adapter").exists()

    with pytest.raises(WorkbenchError, match="unfinished fine-tuning run .*--resume"):
        run_finetune(spec)  # a new run would overwrite it: refused
    resumed = resume_spec(str(out))
    assert resumed.resume == str(out) and resumed.out_dir == str(out) and resumed.seed == spec.seed
    summary = run_finetune(resumed)
    torch.set_num_threads(previous)
    assert_same_run(summary, reference, out, reference_out)


@pytest.mark.slow
def test_a_killed_cli_run_resumes_by_run_id_from_its_last_checkpoint(setting, tmp_path, monkeypatch, capsys):
    base, data, reference, reference_out = setting
    out = tmp_path / "killed"
    home = tmp_path / "home"
    spec = lora_spec(base, data, out)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LM_WORKBENCH_HOME": str(home), "OMP_NUM_THREADS": "1"}
    child = subprocess.run([sys.executable, str(ROOT / "tests" / "support" / "finetune_kill_worker.py"),
                            json.dumps(spec.to_dict()), "4"], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=120)
    assert child.returncode == -9, child.stderr[-2000:]  # SIGKILL: no clean-up ran
    assert [p.name for p in (out / "checkpoints").iterdir() if p.name.startswith("step-")] == ["step-00000004"]

    monkeypatch.setenv("LM_WORKBENCH_HOME", str(home))
    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    with RunStore(runs_db_path()) as store:
        killed = [r for r in store.list_runs() if r["kind"] == "finetune"]
    assert len(killed) == 1 and killed[0]["status"] == "running"  # its process is gone; nothing marked it
    previous = torch.get_num_threads()
    code = main(["finetune", "--resume", str(killed[0]["id"]), "--json"])
    torch.set_num_threads(previous)
    printed = json.loads(capsys.readouterr().out)
    assert code == 0
    assert printed["spec"]["resume"] == str(out)
    assert_same_run(printed, reference, out, reference_out)
    with RunStore(runs_db_path()) as store:
        run = store.get_run(printed["run_id"])
        losses = [m["step"] for m in store.metrics(printed["run_id"], "loss")]
    assert run["cli_command"] == f"lm-workbench finetune --resume {out}"
    assert min(losses) > 4  # the resumed run logs only the steps it ran


@pytest.mark.parametrize("argv, words", [
    (["--resume", "{out}", "--epochs", "5"], "leave out --epochs"),
    (["--resume", "{out}", "--lora-rank", "2"], "leave out --lora-rank"),
    (["--resume", "{out}"], "no checkpoint to resume from"),
    (["--resume", "999"], "no run 999"),
    (["--task", "seq-cls"], "required: --train, --method, --out"),
])
def test_resume_mistakes_are_one_line(tmp_path, monkeypatch, capsys, argv, words):
    monkeypatch.setenv("LM_WORKBENCH_HOME", str(tmp_path / "home"))
    (tmp_path / "out").mkdir()
    code = main(["finetune"] + [a.format(out=tmp_path / "out") for a in argv])
    err = capsys.readouterr().err.strip()
    assert code == 2 and words in err and len(err.splitlines()) == 1, err


def test_a_resumed_spec_repeats_as_resume_alone(tmp_path):
    from lm_workbench.finetune.spec import FineTuneSpec

    spec = FineTuneSpec(model="m", task="seq-cls", train="t.tsv", method="lora", out_dir=str(tmp_path),
                        resume=str(tmp_path))
    assert spec.cli_command() == f"lm-workbench finetune --resume {tmp_path}"
    assert FineTuneSpec.from_dict(spec.to_dict()) == spec
