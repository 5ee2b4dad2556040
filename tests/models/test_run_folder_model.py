"""A training run's folder opens as the model it made (``lm_workbench.engine.models.sources``: ``DIR/model``)."""

from __future__ import annotations

import json

import pytest

from lm_workbench.engine.analysis import encode
from lm_workbench.engine.errors import ModelFormatError
from lm_workbench.engine.models.loading import load_source as load_model
from tests.support.pretrain_job_helpers import tiny_spec_dict, write_corpus
from tests.support.reference import max_abs, plain_forward
from lm_workbench.cli.main import main

TEXT = "The small dog walks to the old house."


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A real (tiny) pre-training run's output folder: two steps of a 2-layer GPT-2."""
    from lm_workbench.pretrain.train import run_pretrain
    from lm_workbench.pretrain.spec import PretrainSpec

    root = tmp_path_factory.mktemp("run-folder")
    corpus = write_corpus(root / "grammar.txt", n_documents=60, seed=4)
    spec = PretrainSpec.from_dict(tiny_spec_dict("gpt2", corpus, root / "run", steps=2, warmup_steps=1,
                                                 eval_batches=1, log_every=1))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LM_WORKBENCH_HOME", str(root / "home"))
        run_pretrain(spec)
    return root / "run"


@pytest.mark.timeout(120)
def test_info_json_on_a_pretraining_runs_folder(run_dir, capsys, fresh_home):
    assert not (run_dir / "config.json").exists()  # the folder itself is not a model folder
    code = main(["info", str(run_dir), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    info = json.loads(out)
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert info["family"] == "decoder" and info["layers"] == 2 and info["hidden_size"] == 64
    assert info["has_lm_head"] is True and info["parameters"] == summary["parameters"]
    assert info["folder"] == str((run_dir / "model").resolve()) and info["spec"] == str(run_dir)


def test_the_loader_opens_the_run_folder_as_its_model(run_dir):
    loaded = load_model(str(run_dir), device="cpu", precision="float32")
    assert loaded.info.folder == str((run_dir / "model").resolve())
    ours = encode(loaded, TEXT)
    reference = plain_forward(run_dir / "model", TEXT)  # transformers on the saved model folder itself
    assert ours.tokenized.ids == reference["ids"]
    assert max_abs(ours.hidden_states, reference["hidden_states"]) <= 1e-5


@pytest.mark.parametrize("marker", ["summary.json", "checkpoints"])
def test_a_run_folder_without_its_model_says_the_run_did_not_finish(tmp_path, capsys, marker):
    run = tmp_path / "unfinished"
    (run / "tokenizer").mkdir(parents=True)
    if marker == "checkpoints":
        (run / "checkpoints" / "step-00000004").mkdir(parents=True)
    else:
        (run / "summary.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ModelFormatError, match="run's folder with no model in it yet"):
        load_model(str(run))
    code = main(["info", str(run)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "model/config.json is missing" in err


def test_a_folder_that_is_neither_names_both_layouts(tmp_path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "model").mkdir()  # an empty model/ does not make a run folder
    with pytest.raises(ModelFormatError, match="has no config.json: it is not a transformers model folder, "
                                                "nor a run folder with model/config.json"):
        load_model(str(tmp_path / "plain"))
