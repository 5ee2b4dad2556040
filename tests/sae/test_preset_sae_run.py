"""A lecture step's SAE, trained in the window on first use, is a recorded ``sae`` run (issue 47): one finished run
whose artifact is the kept folder, nothing recorded when the kept SAE is read again, and a cancelled training
recorded as cancelled with no half-made folder kept."""

from __future__ import annotations

import pytest

from lm_workbench.engine.errors import Cancelled
from lm_workbench.engine.models.loading import load_source
from lm_workbench.engine.progress import CancelToken, drive
from lm_workbench.paths import runs_db_path
from lm_workbench.sae.preset_sae import is_made, sae_folder
from lm_workbench.sae.view_tasks import lecture_strip_job
from lm_workbench.store.run_store import RunStore
from tests.support.tiny_models import corpus_lines

pytestmark = pytest.mark.timeout(120)


def _recipe(tmp_path, steps: int) -> dict:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(corpus_lines(40)), encoding="utf-8")
    return {"site": "blocks.1.hook_resid_post", "kind": "topk", "sparsity": 4, "expansion": 2, "steps": steps,
            "batch": 32, "buffer_tokens": 128, "seed": 0, "corpus": str(corpus)}


def _sae_runs() -> list[dict]:
    store = RunStore(runs_db_path())
    try:
        return [dict(r, artifacts=store.artifacts(r["id"])) for r in store.list_runs(kind="sae")]
    finally:
        store.close()


def test_the_steps_sae_is_one_recorded_run_then_read_again(tiny_models, fresh_home, tmp_path):
    loaded = load_source(str(tiny_models["gpt2"]))
    recipe = _recipe(tmp_path, steps=4)
    *_, folder = drive(lecture_strip_job(loaded, recipe, "The list is a mutable sequence", CancelToken()))
    assert folder == str(sae_folder(loaded, recipe)) and is_made(sae_folder(loaded, recipe))
    [run] = _sae_runs()
    assert run["status"] == "finished"
    assert any(a["path"] == folder for a in run["artifacts"])
    drive(lecture_strip_job(loaded, recipe, "Another text", CancelToken()))  # kept: trained and recorded once
    assert len(_sae_runs()) == 1


def test_a_cancelled_training_is_recorded_cancelled_and_keeps_no_folder(tiny_models, fresh_home, tmp_path):
    loaded = load_source(str(tiny_models["gpt2"]))
    recipe = _recipe(tmp_path, steps=400)
    token = CancelToken()
    job = lecture_strip_job(loaded, recipe, "The list is a mutable sequence", token)
    with pytest.raises(Cancelled):
        for i, _ in enumerate(job):
            if i == 2:
                token.cancel()
    [run] = _sae_runs()
    assert run["status"] == "cancelled"
    assert not sae_folder(loaded, recipe).exists()
