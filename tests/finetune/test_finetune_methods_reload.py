"""Every built-in method: save only what it trained, reload onto a fresh base (new random head): identical logits."""

from __future__ import annotations

import json

import pytest
import torch
from safetensors import safe_open

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.plugin_api import count_parameters
from tests.support.finetune_method_models import (
    HIDDEN, LABELS, LAYERS, outputs_of, task_batch, task_model, train_a_little,
)
from lm_workbench.extensions.registry import FineTuneMethodRegistry

torch.set_num_threads(1)

METHODS = FineTuneMethodRegistry.discover().methods()
CASES = [(name, "bert", task) for name in sorted(METHODS) for task in ("seq-cls", "token-cls", "qa")
         if task in METHODS[name].tasks]
CASES += [("lora", "gpt2", "seq-cls"), ("houlsby", "gpt2", "seq-cls"), ("lora", "t5", "seq2seq")]
CASES += [(name, "bart", "seq2seq") for name in ("full", "lora", "prefix", "prompt", "bitfit")]
CASES += [(name, kind, task) for name in ("parallel-adapter", "mam")  # He et al.'s methods on the newer families
          for kind, task in (("bart", "seq2seq"), ("t5", "seq2seq"), ("llama", "seq-cls"))]


def _tuned(name: str, kind: str, task: str, tmp_path, **config):
    method = METHODS[name]
    settings = method.default_config()
    for key, value in config.items():
        setattr(settings, key, value)
    model = train_a_little(method.apply(task_model(kind, task, head_seed=1), settings, task), task)
    method.save(model, tmp_path / "saved")
    return method, model


@pytest.mark.parametrize("name, kind, task", CASES)
def test_reload_onto_a_fresh_base_gives_identical_logits(tmp_path, name, kind, task):
    method, tuned = _tuned(name, kind, task, tmp_path)
    inputs, _ = task_batch(task, seed=7)
    expected = outputs_of(tuned, task, inputs)

    reloaded = method.load(task_model(kind, task, head_seed=2), tmp_path / "saved")
    assert not reloaded.training
    for got, want in zip(outputs_of(reloaded, task, inputs), expected):
        assert torch.equal(got, want)
    # What was trained matters: the fresh task model alone predicts something else.
    assert not torch.equal(outputs_of(task_model(kind, task, head_seed=2), task, inputs)[0], expected[0])


def _saved_tensors(folder) -> dict[str, list[int]]:
    with safe_open(str(folder / "adapter_model.safetensors"), "pt") as f:
        return {key: f.get_slice(key).get_shape() for key in f.keys()}


@pytest.mark.parametrize("name", sorted(set(METHODS) - {"full"}))
def test_the_saved_folder_holds_only_trained_weights(tmp_path, name):
    method, model = _tuned(name, "bert", "seq-cls", tmp_path)
    shapes = _saved_tensors(tmp_path / "saved")
    saved = sum(torch.Size(s).numel() for s in shapes.values())
    assert not any(key.endswith(("word_embeddings.weight", "query.weight", "dense.weight")) for key in shapes)
    trainable = count_parameters(model).trainable
    if name == "prefix":  # the reparameterisation MLP is folded: its output (n x 2·L·d) is what is saved
        config = method.default_config()
        assert saved == config.num_virtual_tokens * 2 * LAYERS * HIDDEN + HIDDEN * LABELS + LABELS
    elif name == "mam":  # the prefix folded as for prefix tuning; the FFN parallel adapters (m = d/2) in a file of
        config = method.default_config()  # their own
        assert saved == config.prefix_length * 2 * LAYERS * HIDDEN + HIDDEN * LABELS + LABELS
        with safe_open(str(tmp_path / "saved" / "mam_parallel_adapters.safetensors"), "pt") as f:
            adapters = sum(torch.Size(f.get_slice(key).get_shape()).numel() for key in f.keys())
        m = HIDDEN // 2
        assert adapters == LAYERS * (2 * m * HIDDEN + m + HIDDEN)
    elif name == "vera":  # + the frozen random A (r x d_in) and B (d_out x r), saved once for every layer
        r = method.default_config().rank
        assert saved == trainable + r * HIDDEN + HIDDEN * r
    else:
        assert saved == trainable
    base_bytes = 4 * count_parameters(task_model("bert", "seq-cls")).total
    projections = 4 * 2 * method.default_config().rank * HIDDEN if name == "vera" else 0  # r = 256 > this d
    assert (tmp_path / "saved" / "adapter_model.safetensors").stat().st_size < base_bytes / 2 + projections


def test_full_fine_tuning_saves_the_whole_model(tmp_path):
    method, model = _tuned("full", "bert", "seq-cls", tmp_path)
    config = json.loads((tmp_path / "saved" / "config.json").read_text())
    assert config["architectures"] == ["BertForSequenceClassification"]
    with safe_open(str(tmp_path / "saved" / "model.safetensors"), "pt") as f:
        assert "bert.embeddings.word_embeddings.weight" in set(f.keys())


@pytest.mark.parametrize("kind, task", [("bert", "seq-cls"), ("gpt2", "seq-cls"), ("bart", "seq2seq")])
def test_merged_lora_predicts_within_1e_5_of_the_unmerged_model(tmp_path, kind, task):
    method, tuned = _tuned("lora", kind, task, tmp_path)
    inputs, _ = task_batch(task, seed=7)
    unmerged = outputs_of(tuned, task, inputs)[0]
    merged = method.merge(tuned)
    assert not any("lora" in name for name, _ in merged.named_parameters())
    assert type(merged).__name__ == type(task_model(kind, task)).__name__
    got = outputs_of(merged, task, inputs)[0]
    assert (got - unmerged).abs().max() < 1e-5
    assert not torch.equal(got, outputs_of(task_model(kind, task, head_seed=1), task, inputs)[0])


def test_methods_that_cannot_merge_say_so(tmp_path):
    method, tuned = _tuned("houlsby", "bert", "seq-cls", tmp_path)
    assert not method.can_merge and METHODS["lora"].can_merge
    with pytest.raises(WorkbenchError, match="houlsby cannot be merged"):
        method.merge(tuned)


def test_a_folder_saved_by_another_method_or_base_is_refused(tmp_path):
    _tuned("bitfit", "bert", "seq-cls", tmp_path)
    with pytest.raises(WorkbenchError, match="saved by the 'bitfit' method, not 'houlsby'"):
        METHODS["houlsby"].load(task_model("bert", "seq-cls"), tmp_path / "saved")
    other_base = task_model("bert", "seq-cls")
    with torch.no_grad():
        other_base.bert.encoder.layer[0].attention.self.query.weight.add_(0.1)
    with pytest.raises(WorkbenchError, match="weights differ"):
        METHODS["bitfit"].load(other_base, tmp_path / "saved")
