"""``lm-workbench probe`` and ``sts`` on tiny models: the JSON contract, the run they record, bad input.

The word vectors the probe uses are checked against a plain transformers
forward pass (mean of each word's subwords, positions found with the fast
tokenizer's own word ids, not by the engine).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from lm_workbench.engine.probing.demo import POS_DEMO
from lm_workbench.engine.probing.readers import read_token_task
from lm_workbench.cli.main import main

SENTENCE_ROWS = [("a lovely warm day", "pos"), ("a dull grey day", "neg"), ("what a lovely film", "pos"),
                 ("a dull and slow film", "neg"), ("warm and lovely", "pos"), ("grey and dull", "neg")] * 4


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def small_pos(tmp_path_factory):
    """The first 60 sentences of the demo POS set, as CoNLL-U."""
    text = POS_DEMO.read_text(encoding="utf-8")
    path = tmp_path_factory.mktemp("probe") / "pos.conllu"
    path.write_text("\n\n".join(text.split("\n\n")[:60]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_probe_token_json_and_the_run_it_records(capsys, fresh_home, tiny_models, small_pos, family):
    model = str(tiny_models[family])
    code, out, err = run_cli(capsys, "probe", model, "--task", str(small_pos), "--kind", "token", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["layers"] == [0, 1, 2]  # the embedding output and two layers
    for key in ("accuracy", "control_accuracy", "selectivity"):
        assert len(report[key]) == 3 and all(0 <= v <= 1 or key == "selectivity" for v in report[key])
    assert np.allclose(report["selectivity"], np.subtract(report["accuracy"], report["control_accuracy"]))
    assert 0 < report["majority"] < 1 and report["test_size"] > 0

    from lm_workbench.paths import runs_db_path
    from lm_workbench.store import RunStore

    with RunStore(runs_db_path()) as store:
        run = store.get_run(report["run_id"])
        assert run["kind"] == "probe" and run["status"] == "finished"
        assert run["params"] == {"model": model, "task": str(small_pos), "kind": "token", "pooling": "mean",
                                 "seed": 0, "tag_column": None, "text_column": None, "label_column": None,
                                 "tsv_quoting": "auto"}
        rows = store.metrics(report["run_id"], "accuracy")
        assert [r["step"] for r in rows] == [0, 1, 2]
        assert [r["value"] for r in rows] == pytest.approx(report["accuracy"])
    # the second run reads every layer from the activation cache and gives the same numbers
    code, out2, err = run_cli(capsys, "probe", model, "--task", str(small_pos), "--kind", "token", "--json")
    again = json.loads(out2)
    assert again["from_cache"] is True and not report["from_cache"]
    assert again["accuracy"] == pytest.approx(report["accuracy"], abs=0.02)


def test_probe_sentence_and_sts_json(capsys, fresh_home, tiny_models, tmp_path):
    model = str(tiny_models["bert"])
    task = tmp_path / "s.tsv"
    task.write_text("text\tlabel\n" + "".join(f"{t}\t{lab}\n" for t, lab in SENTENCE_ROWS), encoding="utf-8")
    code, out, err = run_cli(capsys, "probe", model, "--task", str(task), "--kind", "sentence", "--pooling", "cls",
                             "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["layers"] == [0, 1, 2] and report["pooling"] == "cls" and len(report["control_accuracy"]) == 3

    code, out, err = run_cli(capsys, "sts", model, "--data", "demo", "--json")
    assert code == 0, err
    sts = json.loads(out)
    assert sts["layers"] == [0, 1, 2] and sts["pooling"] == "mean" and sts["pairs"] >= 60
    assert len(sts["spearman"]) == 3 and all(-1 <= r <= 1 for r in sts["spearman"])
    code, out, err = run_cli(capsys, "runs", "list", "--kind", "sts", "--json")
    assert [r["id"] for r in json.loads(out)["runs"]] == [sts["run_id"]]


@pytest.mark.parametrize("argv, message", [
    (["probe", "MODEL", "--task", "missing.conllu", "--kind", "token"], "no such file"),
    (["probe", "MODEL", "--task", "demo", "--kind", "sentence"], "the built-in demo task is a token task"),
    (["probe", "MODEL", "--task", "demo", "--kind", "word"], "invalid choice"),
    (["sts", "MODEL", "--data", "BAD"], "line 2: the score 'x' is not a number"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, fresh_home, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "BAD").write_text("sentence1,sentence2,score\na,b,x\n", encoding="utf-8")
    code, out, err = run_cli(capsys, *argv)  # MODEL is never loaded: the input is checked first
    assert code == 2 and err.count("\n") == 1 and message in err, err


def test_word_vectors_are_the_mean_of_each_words_subwords(tiny_models):
    """Against a plain transformers forward: every layer, every word, including words split into subwords."""
    import torch
    import transformers as tf

    from lm_workbench.engine.models.loading import load_source as load_model
    from lm_workbench.engine.probing.representations import word_vectors
    from lm_workbench.engine.progress import run_to_completion

    folder = tiny_models["bert"]
    task = read_token_task(POS_DEMO)
    task.sentences, task.tags = task.sentences[:12], task.tags[:12]
    reps = run_to_completion(word_vectors(load_model(str(folder)), task))
    tokenizer = tf.AutoTokenizer.from_pretrained(folder)
    model = tf.AutoModel.from_pretrained(folder).eval()
    row = 0
    split_words = 0
    for words in task.sentences:
        enc = tokenizer(words, is_split_into_words=True, return_tensors="pt")
        with torch.no_grad():
            hidden = model(**enc, output_hidden_states=True).hidden_states  # L+1 x [1, T, H]
        ids = enc.word_ids(0)
        for w in range(len(words)):
            positions = [t for t, i in enumerate(ids) if i == w]
            split_words += len(positions) > 1
            for layer in reps.layers:
                expected = hidden[layer][0, positions].mean(0).numpy()
                assert np.allclose(reps.vectors[layer][row], expected, atol=1e-4), (words[w], layer)
            row += 1
    assert row == len(reps.words) and split_words > 0  # the check covered words of several subwords
