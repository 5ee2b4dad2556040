"""The bench's cost columns: checkpoint bytes, the CPU training-state estimate, forgetting, and a run's summary.

Each against an independent computation: byte counts of files written here, the parameter/gradient/AdamW
formula on a module built here, and for forgetting the base's own MLM model (with the fine-tuned encoder's
weights copied in) scored here at the masked positions the documented rule picks.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch
from torch import nn

from lm_workbench.engine.finetune.footprint import CPU_ESTIMATE, checkpoint_bytes, training_state_bytes
from lm_workbench.engine.finetune.forgetting import held_out_text, measure_forgetting

LABELS = ["negative", "positive"]


def test_checkpoint_bytes_sum_the_files(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.bin").write_bytes(b"x" * 1000)
    (tmp_path / "sub" / "b.json").write_bytes(b"y" * 37)
    assert checkpoint_bytes(tmp_path) == 1037 and checkpoint_bytes(tmp_path / "gone") == 0


def test_training_state_is_parameters_gradients_and_two_adam_moments():
    model = nn.Sequential(nn.Linear(10, 20), nn.Linear(20, 3))
    model[0].weight.requires_grad_(False)  # 200 frozen; 20 + 60 + 3 trainable
    got = training_state_bytes(model)
    assert got["parameters"] == (200 + 20 + 60 + 3) * 4
    assert got["gradients"] == 83 * 4 and got["optimizer"] == 2 * 83 * 4
    assert got["total"] == 283 * 4 + 3 * 83 * 4


def _tokenizer_and_model(base, task_labels=LABELS):
    from lm_workbench.engine.finetune.task_model import build_task_model, load_task_tokenizer

    return load_task_tokenizer(base), build_task_model(base, "seq-cls", task_labels).eval()


@pytest.mark.parametrize("kind, objective", [("bert", "masked-LM"), ("gpt2", "next-token")])
def test_an_untouched_base_forgets_nothing(tiny_models, kind, objective):
    torch.set_num_threads(1)
    tokenizer, model = _tokenizer_and_model(tiny_models[kind])
    found = measure_forgetting(tiny_models[kind], model, tokenizer, max_length=32, chunks=2)
    assert found.objective == objective and found.tokens > 0
    assert abs(found.delta) < 1e-6


def test_a_changed_encoder_is_scored_by_the_base_mlm_head(tiny_models):
    """After = the base's own MLM model with the changed encoder weights, scored here at the masked positions."""
    from transformers import AutoModelForMaskedLM

    torch.set_num_threads(1)
    base = tiny_models["bert"]
    tokenizer, model = _tokenizer_and_model(base)
    torch.manual_seed(0)
    with torch.no_grad():  # a "full fine-tune": the first layer's FFN moved
        layer = model.bert.encoder.layer[0].intermediate.dense
        layer.weight.add_(0.5 * torch.randn_like(layer.weight))
    found = measure_forgetting(base, model, tokenizer, max_length=32, chunks=2)
    reference = AutoModelForMaskedLM.from_pretrained(base).eval()
    reference.bert.load_state_dict(model.bert.state_dict(), strict=False)  # (the task model's pooler is extra)
    ids = tokenizer(held_out_text(), add_special_tokens=False)["input_ids"]
    cls, sep, mask = tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.mask_token_id
    total, count = 0.0, 0
    for chunk in range(2):
        window = [cls] + ids[chunk * 30:(chunk + 1) * 30] + [sep]
        masked = [mask if 0 < i < len(window) - 1 and (7919 * i + 13 * chunk) % 100 < 15 else t
                  for i, t in enumerate(window)]
        with torch.no_grad():
            logits = reference(input_ids=torch.tensor([masked])).logits[0]
        for i in range(len(window)):
            if masked[i] == mask:
                total += float(-torch.log_softmax(logits[i], -1)[window[i]])
                count += 1
    assert found.tokens == count and found.after == pytest.approx(total / count, abs=1e-5)
    assert found.delta > 0.01 or found.delta < -0.01  # the change shows (its sign is the model's business)


def test_a_base_without_an_lm_head_says_so(tiny_models):
    from lm_workbench.engine.models.default import default_model_folder

    tokenizer, model = _tokenizer_and_model(tiny_models["bert"])
    found = measure_forgetting(default_model_folder(), model, tokenizer)
    assert found.objective is None and found.delta is None and "no LM head" in found.note


def test_a_run_summary_and_its_bench_row_carry_the_columns(tiny_models, tmp_path, qtbot):
    from tests.support.finetune_runs import lora_spec, sentiment_files
    from lm_workbench.ui.finetune.bench_table import bench_cells, memory_header
    from lm_workbench.finetune.train import run_finetune
    from lm_workbench.finetune.state import read_result

    spec = dataclasses.replace(lora_spec(tiny_models["bert"], sentiment_files(tmp_path / "data"), tmp_path / "run",
                                         epochs=0.34), lr=1e-2)
    summary = run_finetune(spec)
    adapter = tmp_path / "run" / "adapter"
    manifest = (tmp_path / "run" / "finetune.json").stat().st_size  # what predict opens: the adapter and the manifest
    assert summary["checkpoint_bytes"] == sum(p.stat().st_size for p in adapter.rglob("*") if p.is_file()) + manifest
    assert summary["memory_kind"] == CPU_ESTIMATE and summary["tokens_seen"] > 0 and summary["tokens_per_s"] > 0
    total, trainable = summary["total_parameters"], summary["trainable_parameters"]
    # float32: every parameter (peft also keeps the original head beside its trained copy) + 3 x trainable
    heads = 32 * 2 + 2
    assert summary["training_memory_mb"] * 2**20 == pytest.approx((total + heads + 3 * trainable) * 4, abs=2**20 * 1e-3)
    forgetting = summary["forgetting"]
    assert forgetting["objective"] == "masked-LM" and forgetting["base_untouched_without_adapter"] is True
    assert forgetting["delta"] == pytest.approx(forgetting["after"] - forgetting["before"])
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["forgetting"] == forgetting
    row = read_result(1, "lora", tmp_path / "run").bench_row("seq-cls")
    cells = bench_cells(row)
    assert cells[0] == "lora" and cells[6] == round(summary["checkpoint_bytes"] / 1e6, 3)
    assert cells[7] == pytest.approx(forgetting["delta"], rel=1e-2) and "removed" in row["forgetting_note"]
    assert memory_header([row]) == "Train state MB (est.)"
    no_head = dict(row, forgetting=None, forgetting_note="model has no LM head (BertModel)")
    assert bench_cells(no_head)[7] == "no LM head"
    # The tab's bench panel: the table's headers and the columns exported as a figure (PNG) and CSV.
    from lm_workbench.ui.finetune.bench_panel import BenchPanel
    from lm_workbench.finetune.methods import finetune_methods
    from lm_workbench.finetune.state import FineTuneState

    state = FineTuneState()
    state.add_result(read_result(1, "lora", tmp_path / "run"))
    panel = BenchPanel(state, finetune_methods())
    qtbot.addWidget(panel)
    panel._show_results()
    headers = [panel.table.horizontalHeaderItem(c).text().replace("\n", " ") for c in range(panel.table.columnCount())]
    assert headers[4:] == ["Tokens/s", "Train state MB (est.)", "Checkpoint MB", "Forgetting"]
    assert panel.export_columns(tmp_path / "columns.png").read_bytes()[:4] == b"\x89PNG"
    exported = panel.export_table(tmp_path / "bench.csv").read_text(encoding="utf-8").splitlines()
    assert exported[0].split(",")[-7:] == ["tokens_per_s", "training_memory_mb", "memory_kind", "checkpoint_bytes",
                                           "forgetting", "forgetting_objective", "forgetting_note"]
