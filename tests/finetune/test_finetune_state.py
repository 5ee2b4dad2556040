"""The Fine-tune tab's Qt-free state: form to spec, the bench queue, results read from output folders."""

from __future__ import annotations

import json

import pytest

from lm_workbench.finetune.state import FineTuneState, errors_first, read_result


def write_run(folder, method, accuracy, *, confusion=True):
    folder.mkdir(parents=True)
    summary = {"run_id": 1, "task": "seq-cls", "method": method, "trainable_percent": 0.5,
               "validation": {"accuracy": accuracy - 0.1, "f1": 0.4}, "best_validation": {"accuracy": accuracy},
               "wall_s": 12.5, "peak_memory_mb": 300.0, "adapter_bytes": 4096}
    (folder / "summary.json").write_text(json.dumps(summary))
    rows = [{"index": 0, "text": "good", "gold": "pos", "predicted": "pos", "correct": True, "confidence": 0.9},
            {"index": 1, "text": "bad", "gold": "neg", "predicted": "pos", "correct": False, "confidence": 0.6},
            {"index": 2, "text": "meh", "gold": "neg", "predicted": "pos", "correct": False, "confidence": 0.8}]
    (folder / "validation_predictions.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    if confusion:
        (folder / "confusion.json").write_text(json.dumps({"labels": ["neg", "pos"], "matrix": [[0, 2], [0, 1]]}))
    return folder


def test_form_becomes_a_spec_and_other_methods_take_their_defaults():
    state = FineTuneState()
    seen = []
    state.events.form_changed.connect(lambda: seen.append(1))
    state.set_form(task="token-cls", train="a.conll", method="lora", method_config={"r": "4"}, lr=2e-3, epochs=1.0)
    assert len(seen) == 1
    spec = state.spec("minilm", "/tmp/out")
    assert (spec.task, spec.train, spec.method, spec.method_config, spec.lr, spec.epochs) == (
        "token-cls", "a.conll", "lora", {"r": "4"}, 2e-3, 1.0)
    other = state.spec("minilm", "/tmp/out2", method="bitfit")
    assert other.method == "bitfit" and other.method_config == {} and other.lr is None
    assert other.validation is None  # "" in the form: split from the training file
    with pytest.raises(ValueError):
        state.set_form(task="translation")
    with pytest.raises(ValueError):
        state.set_form(colour="red")


def test_bench_queue_and_results(tmp_path):
    state = FineTuneState()
    state.set_bench(["lora", "bitfit", "lora"])
    assert state.bench == ["lora", "bitfit"]
    assert state.start_bench() == ["lora", "bitfit"]
    first = state.next_in_queue()
    state.submitted(7, first)
    assert first == "lora" and state.queue == ["bitfit"] and state.running == {7: "lora"}
    changed = []
    state.events.results_changed.connect(changed.append)
    state.add_result(read_result(7, "lora", write_run(tmp_path / "a", "lora", 0.9)))
    state.add_result(read_result(8, "bitfit", write_run(tmp_path / "b", "bitfit", 0.7, confusion=False)))
    assert changed == [7, 8] and state.running == {}
    rows = state.bench_rows()
    assert [(r["method"], r["best_metric"], r["best_value"], r["adapter_bytes"]) for r in rows] == [
        ("lora", "accuracy", 0.9, 4096), ("bitfit", "accuracy", 0.7, 4096)]
    assert state.last_result().method == "bitfit" and state.last_result().confusion is None
    assert state.results[7].confusion["matrix"] == [[0, 2], [0, 1]]


def test_errors_first_most_confident_mistakes_on_top(tmp_path):
    result = read_result(1, "lora", write_run(tmp_path / "a", "lora", 0.9))
    assert [r["index"] for r in errors_first(result.predictions)] == [2, 1, 0]
