"""Labels across splits in fine-tuning (issue 42, kind 2): what ``read_task_data`` trains and validates on, table by
table, and the reported case end to end (``lm-workbench finetune`` on a tiny BERT). Each row's right answer is
worked out by hand from the file it writes."""

from __future__ import annotations

import json

import pytest

from lm_workbench.cli.main import main
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.finetune.spec import FineTuneSpec
from lm_workbench.finetune.task_data import read_task_data

TR3 = "sentence\tlabel\nThe room was clean.\tpositive\nThe room was dirty.\tnegative\nWe loved the view.\tpositive\n"


def table(folder, name, rows):
    path = folder / name
    path.write_text("sentence\tlabel\n" + "".join(f"{text}\t{label}\n" for text, label in rows), encoding="utf-8")
    return path


def spec_for(train, validation=None, *, task="seq-cls", keep=False, out="out"):
    return FineTuneSpec(model="", task=task, train=str(train), validation=str(validation) if validation else None,
                        method="lora", out_dir=out, keep_unseen_labels=keep)


TRAIN = [("good", "pos"), ("fine", "pos"), ("bad", "neg"), ("awful", "neg")]


@pytest.mark.parametrize("validation,keep,labels,kept,refused,said", [
    # a label training lacks: named with its count and the flag, in one line
    ([("meh", "neutral"), ("nice", "pos")], False, None, None, r"'neutral' \(1\).*--keep-unseen-labels", None),
    # ... or left out and counted
    ([("meh", "neutral"), ("nice", "pos")], True, ["neg", "pos"], ["nice"], None,
     ["1 the validation file (dev.tsv) example(s) left out", "'neg' has no example"]),
    # case is a real difference: 'Pos' is not 'pos'
    ([("nice", "Pos"), ("poor", "neg")], False, None, None, r"'Pos' \(1\)", None),
    # one class in validation is fine: the one-class refusal is made on what trains
    ([("nice", "pos")], False, ["neg", "pos"], ["nice"], None, ["'neg' has no example"]),
])
def test_a_validation_file_is_checked_against_the_training_labels(tmp_path, validation, keep, labels, kept, refused,
                                                                   said):
    spec = spec_for(table(tmp_path, "train.tsv", TRAIN), table(tmp_path, "dev.tsv", validation), keep=keep)
    if refused:
        with pytest.raises(WorkbenchError, match=refused) as error:
            read_task_data(spec)
        assert "\n" not in str(error.value)
        return
    data = read_task_data(spec)
    assert list(data.labels) == labels and [e.text for e in data.validation] == kept
    assert len(data.notes) == len(said) and all(s in n for s, n in zip(said, data.notes))


def test_numbers_spelled_differently_are_one_class_across_files(tmp_path):
    train = table(tmp_path, "train.tsv", [("good", "1"), ("fine", "1.0"), ("bad", "0"), ("awful", "0")])
    dev = table(tmp_path, "dev.tsv", [("nice", " 1"), ("poor", "0.0"), ("ok", "+1")])
    data = read_task_data(spec_for(train, dev))
    assert list(data.labels) == ["0", "1"]  # not four classes: 0, 1, 1.0 and the validation spellings
    assert [e.label for e in data.validation] == ["1", "0", "1"]
    assert any("'1' (train.tsv), '1.0' (train.tsv), ' 1' (dev.tsv) and '+1' (dev.tsv) are one class, '1'" in n
               for n in data.notes), data.notes


def test_the_reported_hold_out_keeps_the_only_negative_in_training(tmp_path):
    (tmp_path / "tr3.tsv").write_text(TR3, encoding="utf-8")
    data = read_task_data(spec_for(tmp_path / "tr3.tsv"))
    assert sorted(e.label for e in data.train) == ["negative", "positive"]  # before: the negative was held out
    assert [e.label for e in data.validation] == ["positive"]
    assert list(data.labels) == ["negative", "positive"]
    assert "'negative' has one example: kept in training" in data.notes[0]


def test_token_tags_follow_the_rule(tmp_path):
    train = tmp_path / "train.conll"
    train.write_text("Anna B-PER\nlives O\n\nBob B-PER\nruns O\n\nOslo B-LOC\nis O\n\nRome B-LOC\nwaits O\n",
                     encoding="utf-8")
    dev = tmp_path / "dev.conll"
    dev.write_text("Ann B-PER\n\nIBM B-ORG\nsells O\n", encoding="utf-8")
    with pytest.raises(WorkbenchError, match=r"'B-ORG' \(1\)"):
        read_task_data(spec_for(train, dev, task="token-cls"))
    data = read_task_data(spec_for(train, dev, task="token-cls", keep=True))
    assert list(data.labels) == ["O", "B-LOC", "B-PER"] and [s.words for s in data.validation] == [("Ann",)]
    held = read_task_data(spec_for(train, task="token-cls"))  # 10 % of 4 sentences: one, whose tag stays trained
    assert {t for s in held.train for t in s.tags} == {"O", "B-PER", "B-LOC"} and len(held.validation) == 1
    no_entities = tmp_path / "o.conll"
    no_entities.write_text("a O\n\nb O\n", encoding="utf-8")
    with pytest.raises(WorkbenchError, match="carry no entity tag"):
        read_task_data(spec_for(no_entities, dev, task="token-cls"))


def test_the_cli_refuses_in_one_line_and_the_reported_case_trains_both_classes(tmp_path, tiny_models, capsys,
                                                                               monkeypatch):
    monkeypatch.setenv("LM_WORKBENCH_HOME", str(tmp_path / "home"))
    train = table(tmp_path, "train.tsv", TRAIN)
    dev = table(tmp_path, "dev.tsv", [("meh", "neutral"), ("nice", "pos")])
    base = str(tiny_models["bert"])
    common = ["--method", "bitfit", "--epochs", "1", "--max-length", "16", "--train-setting", "threads=1"]
    assert main(["finetune", base, "--task", "seq-cls", "--train", str(train), "--validation", str(dev), *common,
                 "--out", str(tmp_path / "refused")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'neutral' (1)" in err[0] and "--keep-unseen-labels" in err[0]
    assert not (tmp_path / "refused").exists()  # refused before anything was written

    (tmp_path / "tr3.tsv").write_text(TR3, encoding="utf-8")
    assert main(["finetune", base, "--task", "seq-cls", "--train", str(tmp_path / "tr3.tsv"), *common,
                 "--out", str(tmp_path / "ft3"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["train_examples"] == 2 and printed["validation_examples"] == 1
    assert json.loads((tmp_path / "ft3" / "finetune.json").read_text())["labels"] == ["negative", "positive"]
    rows = [json.loads(line) for line in (tmp_path / "ft3" / "validation_predictions.jsonl").read_text().splitlines()]
    assert [r["gold"] for r in rows] == ["positive"]
    # one gold class in validation: MCC is not a number there (it was 0.0000 before), and the notes say why
    assert printed["validation"]["mcc"] is None
    assert "mcc not defined: every gold label is 'positive'" in " ".join(printed["notes"])
    assert printed["validation"]["accuracy"] == (1.0 if rows[0]["predicted"] == "positive" else 0.0)
