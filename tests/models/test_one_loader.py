"""Every kind of model spec resolves through the one loader, ``lm_workbench.models.loader.load_model`` (issue 43.4):
a default name, a folder, a run folder, a cached hub id, ``course:<family>``, an adapted sentence encoder (a
fine-tuning run whose method could not fold into the weights), and a hub id that is not cached (refused offline
in one line). Each row checks the kind's name, the folder the model came from, and (where the model is a plain
transformers folder) its hidden states against plain ``transformers`` on the folder the test expects."""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import torch

from lm_workbench.engine.errors import ModelNotFoundError
from lm_workbench.models.loader import load_model, spec_kind
from lm_workbench.settings import Settings
from tests.support.hub_cache import fake_hub_cache
from tests.support.lecture_play import install_course_models

pytestmark = pytest.mark.timeout(120)
TEXT = "One loader opens every kind of spec."


def _settings() -> Settings:
    return Settings(device="cpu", cpu_threads=torch.get_num_threads())  # leave the suite's thread count as it is


def _plain_hidden(folder: Path) -> torch.Tensor:
    """The last hidden state of ``folder``'s model by plain transformers (the independent computation)."""
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()
    with torch.no_grad():
        out = model(**tokenizer(TEXT, return_tensors="pt"), output_hidden_states=True)
    return out.hidden_states[-1][0]


def _our_hidden(loaded) -> torch.Tensor:
    with torch.no_grad():
        out = loaded.base_model(**loaded.tokenizer(TEXT, return_tensors="pt"), output_hidden_states=True)
    return out.hidden_states[-1][0]


def _sentence_run(tiny_models, root: Path) -> Path:
    """A one-epoch Houlsby-adapter sentence-embedding run on the tiny BERT: its folder has only the adapter."""
    from lm_workbench.cli.main import main

    rows = [f"Person {i} bought a lamp.\tA lamp was bought by person {i}.\t{i % 5}.0" for i in range(8)]
    train = root / "pairs.tsv"
    train.write_text("sentence1\tsentence2\tscore\n" + "\n".join(rows) + "\n", encoding="utf-8")
    out, previous = root / "houlsby", torch.get_num_threads()
    printed, err = io.StringIO(), io.StringIO()
    with redirect_stdout(printed), redirect_stderr(err):
        code = main(["finetune", str(tiny_models["bert"]), "--task", "sentence-embedding", "--train", str(train),
                     "--method", "houlsby", "--loss", "cosine", "--epochs", "1", "--max-length", "16",
                     "--train-setting", "threads=1", "--out", str(out), "--json"])
    torch.set_num_threads(previous)
    assert code == 0, err.getvalue()
    assert not (out / "model").exists() and json.loads((out / "finetune.json").read_text())["method"] == "houlsby"
    return out


def _pretrain_run(tiny_models, root: Path) -> Path:
    """A pre-training run's folder as ``pretrain --out DIR`` leaves it: DIR/model and DIR/summary.json."""
    run = root / "pretrain-run"
    shutil.copytree(tiny_models["gpt2"], run / "model")
    (run / "summary.json").write_text("{}", encoding="utf-8")
    return run


# (kind, how the test builds the spec -> (spec, the folder the model must come from or None))
ROWS = {
    "default": lambda tm, root, mp: ("minilm", None),
    "folder": lambda tm, root, mp: (str(tm["bert"]), Path(tm["bert"]).resolve()),
    "run": lambda tm, root, mp: (str(_pretrain_run(tm, root)), (root / "pretrain-run" / "model").resolve()),
    "cache": lambda tm, root, mp: _cached(tm, root, mp),
    "course": lambda tm, root, mp: ("course:gpt2", install_course_models(tm, mp, root, families=("gpt2",))
                                    / "data" / "course-models" / "gpt2" / "model"),
    "sentence-output": lambda tm, root, mp: (str(_sentence_run(tm, root)), None),
}


def _cached(tiny_models, root: Path, monkeypatch) -> tuple[str, Path]:
    from huggingface_hub import constants

    snapshot = fake_hub_cache(root / "hf-cache", "tiny-org/tiny-bert", tiny_models["bert"])
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(root / "hf-cache"))
    return "tiny-org/tiny-bert", snapshot


@pytest.mark.parametrize("kind", list(ROWS))
def test_every_kind_of_spec_loads_through_the_one_loader(kind, tiny_models, tmp_path, monkeypatch):
    spec, folder = ROWS[kind](tiny_models, tmp_path, monkeypatch)
    assert spec_kind(spec) == kind
    loaded = load_model(spec, settings=_settings())
    assert loaded.info.device == "cpu"
    if kind == "default":
        from lm_workbench.engine.models.default import default_model_folder

        folder = default_model_folder()
    if kind == "sentence-output":  # the base (the tiny BERT) with the adapters the run trained, pooling its own
        assert loaded.info.family == "encoder" and loaded.info.layers == 2
        assert loaded.info.folder == str(Path(spec))
        return
    assert Path(loaded.info.folder) == folder
    torch.testing.assert_close(_our_hidden(loaded), _plain_hidden(folder), atol=1e-5, rtol=1e-5)


def test_an_uncached_hub_id_is_a_hub_spec_refused_offline_in_one_line(tmp_path, monkeypatch):
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty"))
    assert spec_kind("some-org/never-cached") == "hub"
    with pytest.raises(ModelNotFoundError) as caught:
        load_model("some-org/never-cached", offline=True, settings=_settings())
    assert "not in the cache" in str(caught.value) and "\n" not in str(caught.value)


def test_device_and_precision_override_the_settings_without_saving_them(tiny_models, fresh_home):
    from lm_workbench.settings import load_settings

    loaded = load_model(str(tiny_models["gpt2"]), device="cpu", precision="bfloat16",
                        settings=Settings(cpu_threads=torch.get_num_threads()))
    assert (loaded.info.device, loaded.info.dtype) == ("cpu", "bfloat16")
    assert next(loaded.model.parameters()).dtype == torch.bfloat16
    assert load_settings().precision == "auto"


def test_every_registered_kind_has_a_row():
    from lm_workbench.models.loader import BUILT_IN_KINDS
    from lm_workbench.models.spec_kinds import spec_kinds

    assert set(ROWS) | {"hub"} == set(BUILT_IN_KINDS) | {k.name for k in spec_kinds()}
