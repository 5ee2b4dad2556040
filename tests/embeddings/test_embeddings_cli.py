"""``lm-workbench neighbours`` and ``project``.

The neighbours are checked against a brute-force cosine computation in numpy
on vectors from a plain transformers forward, with word positions found by
the tokenizer's own pre-tokenizer, never by the engine.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from lm_workbench.cli.main import main

LINES = [
    "I deposited the cheque at the bank this morning.",
    "We had a picnic on the grassy bank of the river.",
    "The bank raised interest rates again.",
    "Fish gathered near the muddy bank where the water was calm.",
    "She left the bank and walked down to the river bank.",
    "Nothing to see on this line.",
]


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "bank.txt"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def reference_vectors():
    """(line, word_index) and the layer-6 vector of every "bank", from plain transformers."""
    import torch
    import transformers as tf

    from lm_workbench.engine.models.default import default_model_folder

    folder = default_model_folder()
    tokenizer = tf.AutoTokenizer.from_pretrained(folder)
    model = tf.AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    keys, vectors = [], []
    for line, text in enumerate(LINES, start=1):
        words = tokenizer.backend_tokenizer.pre_tokenizer.pre_tokenize_str(text)
        enc = tokenizer(text, return_offsets_mapping=True, return_tensors="pt")
        offsets = enc.pop("offset_mapping")[0].tolist()
        with torch.no_grad():
            hidden = model(**enc).last_hidden_state[0].numpy()  # [T, 384]
        for index, (word, (start, end)) in enumerate(words):
            if word.lower() != "bank":
                continue
            rows = [t for t, (s, e) in enumerate(offsets) if e > s and s < end and e > start]
            keys.append((line, index))
            vectors.append(hidden[rows].mean(axis=0))
    return keys, np.stack(vectors)


def brute_force(keys, vectors, k):
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    sims = unit @ unit.T
    result = {}
    for i, (line, _index) in enumerate(keys):
        others = [j for j, (line2, _) in enumerate(keys) if line2 != line]
        others.sort(key=lambda j: -sims[i, j])
        result[keys[i]] = [(keys[j], float(sims[i, j])) for j in others[:k]]
    return result


def test_neighbours_json_equals_brute_force(capsys, corpus_file, reference_vectors):
    code, out, err = run_cli(capsys, "neighbours", "minilm", "--corpus", str(corpus_file), "--word", "BANK",
                             "--layer", "6", "--k", "3", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["occurrences"]
    keys, vectors = reference_vectors
    assert len(keys) == 6  # line 5 holds two, line 6 none
    expected = brute_force(keys, vectors, 3)
    assert [(o["line"], o["word_index"]) for o in data["occurrences"]] == keys
    for occ in data["occurrences"]:
        assert set(occ) == {"line", "word_index", "neighbours"}
        got = occ["neighbours"]
        assert all(set(n) == {"line", "word_index", "score"} for n in got)
        assert all(n["line"] != occ["line"] for n in got)
        want = expected[(occ["line"], occ["word_index"])]
        assert [(n["line"], n["word_index"]) for n in got] == [w[0] for w in want]
        assert np.allclose([n["score"] for n in got], [w[1] for w in want], atol=1e-5)


def test_static_neighbours_are_ties(capsys, corpus_file):
    code, out, err = run_cli(capsys, "neighbours", "minilm", "--corpus", str(corpus_file), "--word", "bank",
                             "--layer", "static", "--k", "1", "--json")
    assert code == 0, err
    data = json.loads(out)["occurrences"]
    first = data[0]  # line 1: every other line's "bank" has the very same static vector
    assert len(first["neighbours"]) == 5
    assert all(abs(n["score"] - 1.0) < 1e-6 for n in first["neighbours"])


def test_neighbours_with_the_cache_agree(capsys, corpus_file, reference_vectors, fresh_home):
    args = ["neighbours", "minilm", "--corpus", str(corpus_file), "--word", "bank", "--layer", "6",
            "--k", "2", "--json", "--cache"]
    runs = [json.loads(run_cli(capsys, *args)[1]) for _ in range(2)]
    assert runs[0] == runs[1]  # the second run is served from the cache: the same float16 vectors
    assert any((fresh_home / "cache" / "activations").iterdir())
    keys, vectors = reference_vectors
    expected = brute_force(keys, vectors, 2)
    for occ in runs[1]["occurrences"]:
        want = expected[(occ["line"], occ["word_index"])]
        assert np.allclose([n["score"] for n in occ["neighbours"]], [w[1] for w in want], atol=2e-3)


def test_project_pca_is_deterministic(capsys, tmp_path):
    outs = []
    for name in ("a.csv", "b.csv"):
        path = tmp_path / name
        code, out, err = run_cli(capsys, "project", "minilm", "--corpus", "demo", "--word", "bank", "--word", "bat",
                                 "--layer", "mix:0,0,0,0,1,1,1:2", "--method", "pca", "--seed", "3",
                                 "--out", str(path), "--json")
        assert code == 0, err
        assert json.loads(out)["points"] == 42  # 22 "bank" + 20 "bat" sentences in the demo set
        outs.append(path.read_text("utf-8"))
    assert outs[0] == outs[1]
    rows = outs[0].splitlines()
    assert rows[0] == "line,word_index,word,label,x,y" and len(rows) == 43
    xy = np.array([[float(v) for v in r.split(",")[-2:]] for r in rows[1:]])
    assert np.all(np.isfinite(xy)) and xy.std(axis=0).min() > 0


@pytest.mark.parametrize("argv, message", [
    (["neighbours", "minilm", "--word", "zebra", "--layer", "6"], "'zebra' does not occur"),
    (["neighbours", "minilm", "--word", "bank", "--layer", "mix:1,2"], "needs 7 scalars"),
    (["neighbours", "minilm", "--word", "bank", "--layer", "6", "--k", "0"], "--k must be at least 1"),
    (["neighbours", "minilm", "--word", "two words", "--layer", "6"], "one word"),
    (["project", "minilm", "--layer", "6", "--out", "coords.txt"], ".csv"),
    (["project", "minilm", "--layer", "6", "--method", "umap", "--set", "oops", "--out", "c.csv"], "KEY=VALUE"),
])
def test_bad_input_exits_2_with_one_line(capsys, corpus_file, tmp_path, argv, message):
    argv = [a if a != "c.csv" else str(tmp_path / "c.csv") for a in argv]
    code, out, err = run_cli(capsys, *argv, "--corpus", str(corpus_file))
    assert code == 2
    assert message in err and err.count("\n") == 1 and err.startswith("lm-workbench: error:")


def test_empty_corpus_exits_2(capsys, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n \n", encoding="utf-8")
    code, _, err = run_cli(capsys, "neighbours", "minilm", "--corpus", str(empty), "--word", "bank",
                           "--layer", "6")
    assert code == 2 and "empty" in err and err.count("\n") == 1
