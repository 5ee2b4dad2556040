"""An output folder that cannot be written: the run ends with one line that names the folder and what to do
(exit 1), keeping what it had saved. Made read-only under the running job with chmod; as root, which ignores
permissions, the output folder is a path under a file instead."""

from __future__ import annotations

import os
import stat

import pytest

import lm_workbench.engine.training.loop as loop
from tests.support.fault_helpers import finetune_args
from tests.support.finetune_runs import sentiment_files
from lm_workbench.cli.main import main
from lm_workbench.paths import runs_db_path
from lm_workbench.store import RunStore


def _line(err: str) -> str:
    lines = err.strip().splitlines()
    assert lines[-1].startswith("lm-workbench: error: ") and "Traceback" not in err
    return lines[-1].removeprefix("lm-workbench: error: ")


def _permissions_ignored(folder) -> bool:
    """Whether this process writes into a read-only folder anyway (root, or CAP_DAC_OVERRIDE)."""
    if os.geteuid() != 0:
        return False
    probe = folder / "probe"
    probe.mkdir()
    os.chmod(probe, stat.S_IRUSR | stat.S_IXUSR)
    try:
        (probe / "x").touch()
        return True
    except PermissionError:
        return False
    finally:
        os.chmod(probe, stat.S_IRWXU)


def _failed_with(line: str) -> bool:
    with RunStore(runs_db_path()) as store:
        (run,) = store.list_runs()
    return run["status"] == "failed" and run["error"] == line.split(" (details in ")[0]


def test_a_folder_made_read_only_under_the_job_keeps_the_last_checkpoint(fresh_home, tiny_models, tmp_path,
                                                                          monkeypatch, capsys):
    if _permissions_ignored(tmp_path):
        pytest.skip("root ignores permissions (os.geteuid() == 0): the test below blocks the folder instead")
    out = tmp_path / "out"
    real = loop.save_checkpoint

    def save_then_lock(checkpoint_dir, *args, **kwargs):
        path = real(checkpoint_dir, *args, **kwargs)
        os.chmod(checkpoint_dir, stat.S_IRUSR | stat.S_IXUSR)  # r-x: the next checkpoint cannot be written
        return path

    monkeypatch.setattr(loop, "save_checkpoint", save_then_lock)
    try:
        code = main(finetune_args(tiny_models["bert"], sentiment_files(tmp_path / "data"), out))
        line = _line(capsys.readouterr().err)
        assert code == 1
        assert line.startswith(f"permission denied for {out / 'checkpoints' / 'step-00000004'}")
        assert "choose a folder you can write to" in line
        assert "the last good checkpoint (step-00000002) is kept" in line
        assert sorted(p.name for p in (out / "checkpoints").iterdir() if p.is_dir()) == ["step-00000002"]
        assert _failed_with(line)
    finally:
        os.chmod(out / "checkpoints", stat.S_IRWXU)


def test_an_output_folder_that_cannot_be_made_ends_the_run_in_one_line(fresh_home, tiny_models, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    out = blocker / "out"  # a path under a file: no one, not even root, can make this folder
    assert main(finetune_args(tiny_models["bert"], sentiment_files(tmp_path / "data"), out)) == 1
    line = _line(capsys.readouterr().err)
    assert line.startswith(f"{out / 'checkpoints'}: part of that path is a file, not a folder; choose another path")
    assert "nothing was saved to resume from" in line
    assert blocker.read_text(encoding="utf-8") == "not a folder"
    assert _failed_with(line)
