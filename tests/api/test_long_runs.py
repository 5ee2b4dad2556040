"""Long work through the API (issue 44.4): a fine-tune lands in the run store and returns a run object whose
``curves()``, ``predict()`` and ``model()`` work; Ctrl-C (a real SIGINT, as Jupyter's interrupt sends) during
the loop leaves the run marked cancelled with a checkpoint to resume from."""

from __future__ import annotations

import signal

import pytest

import lm_workbench as lw

ROWS = [("the statement is true", "yes"), ("the statement is false", "no"), ("it is true", "yes"),
        ("it is false", "no")] * 2


@pytest.fixture
def train(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text("sentence\tlabel\n" + "".join(f"{t}\t{lab}\n" for t, lab in ROWS), encoding="utf-8")
    return path


def _finetune(m, train, out, **extra):
    return m.finetune(task="seq-cls", train=str(train), validation=str(train), method="full", epochs=2,
                      batch_size=4, max_length=16, train_setting=["threads=1"], out=str(out), **extra)


def test_a_finetune_returns_a_run_in_the_store(tiny_models, train, tmp_path, fresh_home):
    import torch

    previous = torch.get_num_threads()
    m = lw.load(str(tiny_models["bert"]), offline=True)
    run = _finetune(m, train, tmp_path / "run")
    torch.set_num_threads(previous)
    assert run.exit_code == 0 and not run.cancelled
    listed = lw.runs(kind="finetune").to_dict()["runs"]
    assert [r["id"] for r in listed] == [run.run_id]
    curves = run.curves()
    assert "loss" in curves.columns and list(curves.index) == sorted(curves.index) and len(curves) >= 2
    prediction = run.predict("the statement is true")
    assert prediction.to_dict()["label"] in {"yes", "no"}
    again = run.model()
    assert again.info().to_dict()["family"] == "encoder"


def test_ctrl_c_during_a_finetune_leaves_a_resumable_cancelled_run(tiny_models, train, tmp_path, fresh_home,
                                                                     monkeypatch):
    import torch

    from lm_workbench.api.progress import TqdmObserver

    original = TqdmObserver.__call__

    def interrupt_at_the_first_step(self, event):
        original(self, event)
        if type(event).__name__ == "StepMetrics":
            signal.raise_signal(signal.SIGINT)  # what Ctrl-C or Jupyter's interrupt sends

    monkeypatch.setattr(TqdmObserver, "__call__", interrupt_at_the_first_step)
    previous = torch.get_num_threads()
    m = lw.load(str(tiny_models["bert"]), offline=True)
    run = _finetune(m, train, tmp_path / "run")
    torch.set_num_threads(previous)
    assert run.cancelled and run.exit_code == 130
    status = {r["id"]: r["status"] for r in lw.runs().to_dict()["runs"]}
    assert status[run.run_id] == "cancelled"
    assert (tmp_path / "run" / "checkpoints").is_dir()
