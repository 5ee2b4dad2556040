"""Training rows and ``predict`` inputs longer than the maximum length are cut and counted (issue 42, kind 1).

Random rows on both sides of the cut: ``encode_task_counted`` counts exactly the rows whose plain tokenization
is longer than ``max_length`` (seq-cls texts and pairs, token-cls words, seq2seq sources and targets); a
recorded seq-cls run says so in its summary, and ``predict`` on a long text says it read the first tokens.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from lm_workbench.cli.main import main
from lm_workbench.engine.data.tasks import ClassificationExample, Seq2SeqExample, TaggedSentence
from lm_workbench.engine.finetune.encoding import encode_task_counted

MAX_LENGTH = 12
WORDS = st.lists(st.sampled_from(["the", "statement", "is", "true", "zebra", "naïve", "東京", "réseau", "!"]),
                 min_size=1, max_size=20)


@pytest.fixture(scope="module")
def tokenizers(tiny_models):
    import transformers as tf

    return {kind: tf.AutoTokenizer.from_pretrained(tiny_models[kind]) for kind in ("bert", "bart")}


@settings(derandomize=True, deadline=None, max_examples=15, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(WORDS, st.one_of(st.none(), WORDS), WORDS), min_size=1, max_size=6))
def test_the_rows_cut_are_exactly_those_longer_than_the_max_length(tokenizers, rows):
    bert, bart = tokenizers["bert"], tokenizers["bart"]
    longer = lambda encoding: len(encoding["input_ids"]) > MAX_LENGTH or len(encoding.get("labels", ())) > MAX_LENGTH  # noqa: E731
    classification = [ClassificationExample(" ".join(a), "x", " ".join(b) if b else None) for a, b, _ in rows]
    features, cut = encode_task_counted("seq-cls", bert, classification, ["x"], MAX_LENGTH)
    assert cut == sum(longer(bert(e.text, e.text_pair)) for e in classification)
    assert all(len(f["input_ids"]) <= MAX_LENGTH for f in features)
    tagged = [TaggedSentence(tuple(a), ("O",) * len(a)) for a, _, _ in rows]
    _, cut = encode_task_counted("token-cls", bert, tagged, ["O"], MAX_LENGTH)
    assert cut == sum(longer(bert(list(e.words), is_split_into_words=True)) for e in tagged)
    pairs = [Seq2SeqExample(" ".join(a), " ".join(c)) for a, _, c in rows]
    _, cut = encode_task_counted("seq2seq", bart, pairs, [], MAX_LENGTH)
    assert cut == sum(longer(bart(e.source, text_target=e.target)) for e in pairs)


def test_a_run_counts_its_cut_rows_and_predict_says_it_cut(tiny_models, tmp_path, fresh_home, capsys):
    import transformers as tf

    short, long = "the statement is true", " ".join(["the statement is true"] * 8)
    rows = [(short, "yes"), (long, "no"), (short + " zebra", "yes"), (long + " zebra", "no")]
    train = tmp_path / "train.tsv"
    train.write_text("sentence\tlabel\n" + "".join(f"{t}\t{l}\n" for t, l in rows * 2), encoding="utf-8")
    out = tmp_path / "run"
    code = main(["finetune", str(tiny_models["bert"]), "--task", "seq-cls", "--train", str(train), "--validation",
                 str(train), "--method", "bitfit", "--epochs", "1", "--batch-size", "4", "--max-length",
                 str(MAX_LENGTH), "--train-setting", "threads=1", "--out", str(out), "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert code == 0
    bert = tf.AutoTokenizer.from_pretrained(tiny_models["bert"])
    expected = sum(len(bert(t)["input_ids"]) > MAX_LENGTH for t, _ in rows * 2)
    assert expected == 4
    assert printed["rows_cut"] == {"training": expected, "validation": expected}
    assert f"{expected} of 8 training rows were longer than {MAX_LENGTH} tokens" in " ".join(printed["notes"])
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["rows_cut"] == printed["rows_cut"]

    assert main(["predict", str(out), "--text", long, "--json"]) == 0
    said, err = capsys.readouterr()
    total = len(bert(long)["input_ids"])
    assert json.loads(said)["notes"] == [f"the input is {total} tokens long (special tokens included) and the model "
                                         f"reads {MAX_LENGTH} (the run's maximum length): it read the first "
                                         f"{MAX_LENGTH}, the rest was cut off"]
    assert "cut off" in err
    assert main(["predict", str(out), "--text", short, "--json"]) == 0
    assert "notes" not in json.loads(capsys.readouterr().out)
