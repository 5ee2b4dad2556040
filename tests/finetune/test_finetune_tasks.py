"""LoRA on each task type besides sentence classification, through ``run_finetune`` on the demo sets:
the metric keys the run store and the view expect, a loss that training lowered, the output folder as
``lm_workbench.finetune`` documents it, and ``predict`` on the saved folder saying what the trained model said."""

from __future__ import annotations

import json

import pytest
import torch

from lm_workbench.engine.finetune.demo import demo_path
from lm_workbench.engine.finetune.saved import predict
from lm_workbench.finetune.train import open_output, run_finetune
from lm_workbench.finetune.spec import FineTuneSpec


@pytest.fixture
def one_thread():
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


def _conll_subset(tmp_path, first: int, count: int):
    blocks = demo_path("token-cls").read_text(encoding="utf-8").strip().split("\n\n")
    path = tmp_path / f"entities-{first}.conll"
    path.write_text("\n\n".join(blocks[first:first + count]) + "\n", encoding="utf-8")
    return path


def _squad_subset(tmp_path, first: int, count: int):
    document = json.loads(demo_path("qa").read_text(encoding="utf-8"))
    paragraphs = [p for article in document["data"] for p in article["paragraphs"]]
    path = tmp_path / f"qa-{first}.json"
    path.write_text(json.dumps({"data": [{"title": "demo", "paragraphs": paragraphs[first:first + count]}]}),
                    encoding="utf-8")
    return path


def _tsv_subset(tmp_path, task: str, first: int, count: int):
    lines = demo_path(task).read_text(encoding="utf-8").splitlines()
    path = tmp_path / f"{task}-{first}.tsv"
    path.write_text("\n".join([lines[0]] + lines[1 + first:1 + first + count]) + "\n", encoding="utf-8")
    return path


def _check_common(summary, out, metric_keys):
    assert set(summary["validation"]) == metric_keys
    losses = [values["validation_loss"] for _, values in summary["history"]]
    assert losses[-1] < losses[0], losses  # training lowered the validation loss
    assert summary["final_loss"] < summary["first_loss"]
    assert 0 < summary["trainable_parameters"] < summary["total_parameters"]
    for name in ("finetune.json", "summary.json", "validation_predictions.jsonl", "adapter"):
        assert (out / name).exists(), name
    rows = [json.loads(line) for line in (out / "validation_predictions.jsonl").read_text().splitlines()]
    assert rows and all({"index", "text", "gold", "predicted", "correct", "confidence"} <= set(r) for r in rows)
    assert all(0.0 <= r["confidence"] <= 1.0 for r in rows)
    return rows


def test_lora_token_classification_on_minilm(tmp_path, one_thread):
    out = tmp_path / "out"
    spec = FineTuneSpec(model="", task="token-cls", train=str(_conll_subset(tmp_path, 0, 64)),
                        validation=str(_conll_subset(tmp_path, 200, 16)), method="lora", out_dir=str(out),
                        epochs=2, batch_size=16, max_length=32)
    summary = run_finetune(spec)
    rows = _check_common(summary, out, {"f1", "precision", "recall"})
    confusion = json.loads((out / "confusion.json").read_text())
    assert confusion["labels"][0] == "O"
    assert sum(map(sum, confusion["matrix"])) == sum(len(r["gold"]) for r in rows)  # one count per word
    row = rows[0]
    said = predict(open_output(out), row["text"])
    assert [t["tag"] for t in said["tokens"]] == row["predicted"]


def test_lora_question_answering_on_minilm(tmp_path, one_thread):
    out = tmp_path / "out"
    spec = FineTuneSpec(model="", task="qa", train=str(_squad_subset(tmp_path, 0, 16)),
                        validation=str(_squad_subset(tmp_path, 32, 4)), method="lora", out_dir=str(out),
                        epochs=2, batch_size=16, max_length=64)
    summary = run_finetune(spec)
    rows = _check_common(summary, out, {"exact_match", "f1"})
    assert not (out / "confusion.json").exists()
    row = rows[0]
    said = predict(open_output(out), row["text"], context=row["context"])
    assert said["answer"] == row["predicted"] and said["confidence"] == pytest.approx(row["confidence"], abs=1e-6)
    assert row["context"][said["start"]:said["end"]] == said["answer"]


def test_lora_sequence_to_sequence_on_a_tiny_bart(tmp_path, tiny_models, one_thread):
    out = tmp_path / "out"
    spec = FineTuneSpec(model=str(tiny_models["bart"]), task="seq2seq", train=str(_tsv_subset(tmp_path, "seq2seq", 0, 64)),
                        validation=str(_tsv_subset(tmp_path, "seq2seq", 200, 12)), method="lora", out_dir=str(out),
                        epochs=3, batch_size=16, max_length=24, lr=5e-3)
    summary = run_finetune(spec)
    rows = _check_common(summary, out, {"rouge1", "rouge2", "rougeL"})
    said = predict(open_output(out), rows[0]["text"])
    assert said["text"] == rows[0]["predicted"]
