"""``finetune --task sentence-embedding`` end to end on the tiny BERT, checked from outside the workbench.

Three recorded CLI runs on the shipped demo pairs (STS-B's layout) with a scored validation file: full fine-tuning
and LoRA fold into the weights and save a sentence-transformers folder (``OUT/model``), which
``sentence_transformers.SentenceTransformer`` opens: its embeddings equal the workbench's, and Spearman's rho of its
cosines (scipy) is the run's last validation value. Houlsby adapters cannot fold: the output folder opens as a
model in the workbench (STS with pooling ``model`` gives the run's Spearman) and says sentence-transformers cannot.
Then ``predict --text --text2``, a triplet run without validation (loss curve only, said), bad input, and which
methods declare the task.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr

from lm_workbench.engine.finetune.demo import demo_path
from lm_workbench.cli.main import main

TRAIN, VALIDATION = 48, 24


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    previous = torch.get_num_threads()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    torch.set_num_threads(previous)
    return code, out.getvalue(), err.getvalue()


def _pairs(lines: list[str]) -> list[tuple[str, str, float]]:
    rows = [line.split("\t") for line in lines]
    return [(r[7], r[8], float(r[9])) for r in rows]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, tiny_models):
    """{method: (printed JSON, output folder)} and the validation pairs."""
    root = tmp_path_factory.mktemp("sentence")
    lines = demo_path("sentence-embedding").read_text(encoding="utf-8").splitlines()
    train, validation = root / "train.tsv", root / "validation.tsv"
    train.write_text("\n".join([lines[0]] + lines[1:1 + TRAIN]) + "\n", encoding="utf-8")
    validation.write_text("\n".join([lines[0]] + lines[300:300 + VALIDATION]) + "\n", encoding="utf-8")
    found = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LM_WORKBENCH_HOME", str(root / "home"))
        for method, loss in (("full", "cosine"), ("lora", "cosent"), ("houlsby", "cosine")):
            out = root / method
            code, printed, err = _cli(
                ["finetune", str(tiny_models["bert"]), "--task", "sentence-embedding", "--train", str(train),
                 "--validation", str(validation), "--method", method, "--loss", loss, "--epochs", "2" if method == "full" else "1",
                 "--batch-size", "16", "--max-length", "32", "--train-setting", "threads=1", "--out", str(out),
                 "--json"])
            assert code == 0, err
            found[method] = (json.loads(printed), out)
    return found, _pairs(lines[300:300 + VALIDATION]), root


def test_spearman_per_epoch_is_the_curve(runs):
    found, _, _ = runs
    printed, _ = found["full"]
    steps = [step for step, _ in printed["history"]]
    assert steps == [0, 3, 6]  # 48 pairs / 16 = 3 steps an epoch: before training and after each epoch
    assert all("spearman" in values for _, values in printed["history"])
    assert printed["validation"]["spearman"] == printed["history"][-1][1]["spearman"]
    assert printed["sentence"]["loss"] == "cosine" and printed["sentence"]["pooling"] == "mean"
    assert any("score / 4.6" in note or "score / 5" in note for note in printed["sentence"]["notes"])


@pytest.mark.parametrize("method", ["full", "lora"])
def test_sentence_transformers_opens_the_folder_with_the_same_embeddings(runs, method):
    from sentence_transformers import SentenceTransformer

    from lm_workbench.engine.sentence.training import embed
    from lm_workbench.finetune.train import open_output

    found, pairs, _ = runs
    printed, out = found[method]
    assert printed["sentence"]["sentence_transformers"] == str(out / "model")
    st = SentenceTransformer(str(out / "model"), device="cpu")
    first = st.encode([a for a, _, _ in pairs], convert_to_numpy=True)
    second = st.encode([b for _, b, _ in pairs], convert_to_numpy=True)
    cosines = (first * second).sum(1) / np.linalg.norm(first, axis=1) / np.linalg.norm(second, axis=1)
    rho = spearmanr(cosines, [s for _, _, s in pairs]).statistic
    assert rho == pytest.approx(printed["validation"]["spearman"], abs=1e-6)
    tuned = open_output(out)  # the workbench's own reload of the run
    ours = embed(tuned.model, tuned.tokenizer, [a for a, _, _ in pairs], "mean", 32).numpy()
    np.testing.assert_allclose(ours, first, atol=1e-5)


def test_an_adapter_run_opens_in_sts_with_the_pooling_it_trained(runs):
    from lm_workbench.engine.probing.readers import StsPairs
    from lm_workbench.engine.probing.sweep import sts_by_layer
    from lm_workbench.engine.progress import drive
    from lm_workbench.models.loader import load_model

    found, pairs, _ = runs
    printed, out = found["houlsby"]
    assert printed["sentence"]["sentence_transformers"] is None
    assert "not in sentence-transformers" in printed["sentence"]["sentence_transformers_note"]
    assert not (out / "model").exists()
    loaded = load_model(str(out))
    sts = drive(sts_by_layer(loaded, StsPairs([a for a, _, _ in pairs], [b for _, b, _ in pairs],
                                              [s for _, _, s in pairs], "validation"), pooling="model"))
    assert sts.spearman[-1] == pytest.approx(printed["validation"]["spearman"], abs=1e-6)


def test_predict_prints_the_cosine_of_two_texts(runs):
    from sentence_transformers import SentenceTransformer

    found, _, _ = runs
    _, out = found["full"]
    a, b = "Anna bought a lamp in Paris.", "Anna did not buy a lamp in Paris."
    code, printed, _ = _cli(["predict", str(out), "--text", a, "--text2", b, "--json"])
    assert code == 0
    u, v = SentenceTransformer(str(out / "model"), device="cpu").encode([a, b], convert_to_numpy=True)
    assert json.loads(printed)["cosine"] == pytest.approx(float(u @ v / np.linalg.norm(u) / np.linalg.norm(v)),
                                                          abs=1e-5)
    code, _, err = _cli(["predict", str(out), "--text", a])
    assert code == 2 and "--text2" in err


def test_triplets_without_validation_give_the_loss_curve_only(runs, tiny_models, tmp_path):
    _, _, root = runs
    triplets = tmp_path / "triplets.tsv"
    rows = [f"Person {i} bought a lamp.\tA lamp was bought by person {i}.\tPerson {i} did not buy a lamp."
            for i in range(20)]
    triplets.write_text("anchor\tpositive\tnegative\n" + "\n".join(rows) + "\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LM_WORKBENCH_HOME", str(root / "home"))
        code, printed, err = _cli(["finetune", str(tiny_models["bert"]), "--task", "sentence-embedding", "--train",
                                   str(triplets), "--method", "bitfit", "--loss", "triplet", "--margin", "0.5",
                                   "--epochs", "1", "--max-length", "24", "--train-setting", "threads=1",
                                   "--out", str(tmp_path / "out"), "--json"])
        assert code == 0, err
        summary = json.loads(printed)
        assert summary["validation"] == {}
        assert all(set(values) == {"validation_loss"} for _, values in summary["history"])
        assert any("no Spearman" in note for note in summary["sentence"]["notes"])
        assert summary["sentence"]["margin"] == 0.5
        code, _, err = _cli(["finetune", str(tiny_models["bert"]), "--task", "sentence-embedding", "--train",
                             str(triplets), "--method", "bitfit", "--loss", "cosine", "--out", str(tmp_path / "x")])
        assert code == 2 and "the cosine loss needs scored pairs" in err and err.count("\n") == 1
        code, _, err = _cli(["finetune", str(tiny_models["gpt2"]), "--task", "sentence-embedding", "--train",
                             str(triplets), "--method", "full", "--pooling", "cls", "--out", str(tmp_path / "y")])
        assert code == 2 and "use mean (or max) pooling for a decoder" in err


def test_methods_declare_the_task_explicitly():
    from lm_workbench.engine.finetune.names import SENTENCE_TASK
    from lm_workbench.engine.plugin_api import TASKS, FineTuneMethod, WorkbenchError
    from lm_workbench.finetune.methods import finetune_methods

    declared = {name for name, method in finetune_methods().items() if SENTENCE_TASK in method.tasks}
    assert declared == {"full", "lora", "bitfit", "houlsby", "pfeiffer", "prefix", "prompt", "features"}
    assert SENTENCE_TASK not in TASKS  # a third party's "all tasks" does not gain it silently

    class AllTasks(FineTuneMethod):
        name = "all"
        tasks = frozenset(TASKS)

    with pytest.raises(WorkbenchError, match="does not support the sentence-embedding task"):
        AllTasks().check_task(SENTENCE_TASK)
