"""A full disk: a run that will not fit is refused before its first step, with the numbers; a write that fails
anyway removes its partial files, keeps the last good checkpoint and ends the run with one line (exit 1), and
once there is room the run continues from that checkpoint with nothing lost."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lm_workbench.plugins.finetune_methods.full import FullFineTuning
from tests.support.fault_helpers import finetune_args
from tests.support.finetune_runs import sentiment_files
from lm_workbench.cli.main import main
from lm_workbench.paths import runs_db_path
from lm_workbench.store import RunStore

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def data(tmp_path):
    return sentiment_files(tmp_path / "data")


def _error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert lines[-1].startswith("lm-workbench: error: ") and "Traceback" not in err
    return lines[-1].removeprefix("lm-workbench: error: ")


def _only_run() -> dict:
    with RunStore(runs_db_path()) as store:
        (run,) = store.list_runs()
        run["metrics"] = store.metrics(run["id"])
    return run


def test_a_run_that_will_not_fit_is_refused_before_its_first_step(fresh_home, tiny_models, data, tmp_path,
                                                                     monkeypatch, capsys):
    from lm_workbench.runs import disk_space

    real = shutil.disk_usage
    monkeypatch.setattr(disk_space.shutil, "disk_usage", lambda path: real(path)._replace(free=3_000_000))
    out = tmp_path / "out"
    assert main(finetune_args(tiny_models["bert"], data, out)) == 1
    line = _error_line(capsys.readouterr().err)
    needed = re.search(rf"needs about (\d+) MB in {re.escape(str(out))}, 3 MB free", line)
    assert needed and int(needed.group(1)) > 3, line
    assert "52,386 of 52,386 parameters" in line  # the tiny BERT, every weight trained
    assert not list((out / "checkpoints").glob("step-*"))  # no step ran, nothing was written
    run = _only_run()
    assert run["status"] == "failed" and run["error"] == line.split(" (details in ")[0] and run["metrics"] == []


def test_a_disk_that_fills_up_mid_run_keeps_the_last_good_checkpoint(fresh_home, tiny_models, data, tmp_path):
    """A real write past the end: after the first checkpoint the process may write no file past 150 kB
    (RLIMIT_FSIZE in a child; the tiny BERT's weights take 210 kB), as a disk that has just filled up."""
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "tests.support.fault_helpers", "150000",
                           *finetune_args(tiny_models["bert"], data, out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 1, proc.stderr
    line = _error_line(proc.stderr)
    assert line.startswith(f"{out / 'checkpoints' / 'step-00000004'} could not be written") and "File too large" in line
    assert f"the last good checkpoint (step-00000002) is kept in {out / 'checkpoints'}" in line
    assert f"lm-workbench finetune --resume {out}" in line
    log = fresh_home / "data" / "logs" / "lm-workbench.log"
    assert f"(details in {log})" in proc.stderr and "Traceback" in log.read_text(encoding="utf-8")
    left = sorted(p.name for p in (out / "checkpoints").iterdir() if p.is_dir())
    assert left == ["step-00000002"]  # the partial .tmp- folder of step 4 is gone
    assert (out / "checkpoints" / "step-00000002" / "state.json").is_file() and not (out / "adapter").exists()
    run = _only_run()
    assert run["status"] == "failed" and run["error"] == line.split(" (details in ")[0]


def test_outputs_cut_short_by_a_full_disk_are_removed_and_the_run_continues(fresh_home, tiny_models, data, tmp_path,
                                                                            monkeypatch, capsys):
    """The issue's case: the whole epoch trained, then the disk is full while the model is saved."""

    def save_on_a_full_disk(self, model, folder):
        (Path(folder) / "model.safetensors").write_bytes(b"\0" * 4096)  # as far as the disk had room for
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # (a failed write names no file)

    monkeypatch.setattr(FullFineTuning, "save", save_on_a_full_disk)
    out = tmp_path / "out"
    assert main(finetune_args(tiny_models["bert"], data, out)) == 1
    line = _error_line(capsys.readouterr().err)
    assert line.startswith(f"no space left on the disk for {out / 'adapter'}")
    assert f"the last good checkpoint (step-00000006) is kept in {out / 'checkpoints'}" in line
    assert not (out / "adapter").exists() and not (out / "finetune.json").exists()  # no half-written output
    assert (out / "checkpoints" / "step-00000006" / "model.safetensors").is_file()
    assert _only_run()["error"] == line.split(" (details in ")[0]

    monkeypatch.undo()  # room again: the run goes on from its checkpoint, the training is not done twice
    assert main(["finetune", "--resume", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["steps"] == 6 and (out / "adapter" / "model.safetensors").stat().st_size > 100_000
    assert not (out / "checkpoints").exists()
