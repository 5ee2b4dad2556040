"""Explain in the Fine-tune tab's predictions table, with the real widgets, on a finished LoRA classifier run's
output folder (written here as a run writes it, without the minutes of a training process): the selected row's
predicted label attributed to its tokens equals gradient × input taken by plain autograd (a hook on the tuned
model's word embeddings: tests/support/grad_reference.py, as tests/attribution checks the engine)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch
from PySide6.QtCore import Qt

from tests.support.grad_reference import hooked_grad_input
from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views

pytestmark = pytest.mark.timeout(120)

WAIT = 30000
LABELS = ["neg", "pos"]
TEXTS = [("a warm and funny film", "pos"), ("the list is a new object", "neg"), ("dull and far too long", "neg")]


def base_with_pooler(tiny_bert, folder):
    """The tiny BERT saved with its pooler: the masked LM has none, so every reload of a LoRA classifier on it
    would draw a new random pooler (LoRA saves neither it nor the base), and two loads would disagree."""
    import transformers as tf

    torch.manual_seed(5)
    tf.AutoModel.from_pretrained(tiny_bert).save_pretrained(folder)
    tf.AutoTokenizer.from_pretrained(tiny_bert).save_pretrained(folder)
    return folder


def finished_run(base, folder):
    """A seq-cls LoRA run's output folder: adapter, manifest, summary and validation predictions (predicted by
    the tuned model itself, as the run's validation does)."""
    from lm_workbench.engine.finetune import inference
    from lm_workbench.engine.finetune.saved import ADAPTER_FOLDER, load_finetuned, write_manifest
    from lm_workbench.engine.finetune.task_model import build_task_model
    from lm_workbench.extensions.registry import FineTuneMethodRegistry

    method = FineTuneMethodRegistry.discover().methods()["lora"]
    torch.manual_seed(3)
    model = method.apply(build_task_model(base, "seq-cls", LABELS), method.default_config(), "seq-cls")
    method.save(model.eval(), folder / ADAPTER_FOLDER)
    write_manifest(folder, base_model=str(base), task="seq-cls", method="lora", method_config={}, labels=LABELS,
                   text_columns=None, max_length=64, run_id=7)
    tuned = load_finetuned(folder, method)
    found = inference.classify(tuned.model, tuned.tokenizer, [(t, None) for t, _ in TEXTS], LABELS, 64)
    rows = [{"index": i, "text": t, "gold": g, "predicted": f["label"], "correct": g == f["label"],
             "confidence": f["confidence"], "text_pair": None} for i, ((t, g), f) in enumerate(zip(TEXTS, found))]
    (folder / "validation_predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "summary.json").write_text(json.dumps({"task": "seq-cls", "method": "lora", "run_id": 7,
                                                     "best_validation": {"accuracy": 0.5}}))
    return tuned


def test_explain_a_rows_predicted_label_against_plain_autograd(open_window, qtbot, tiny_models, fresh_home,
                                                               tmp_path):
    from lm_workbench.finetune.state import read_result

    torch.set_num_threads(1)
    builtin = builtin_views()
    window = open_window(str(tiny_models["bert"]), "finetune", registry=ViewRegistry(
        [builtin.get("tokens"), builtin.get("finetune")]), size=(1280, 860), about=False)
    view = window.view("finetune")
    qtbot.waitUntil(lambda: view.form.count is not None, timeout=WAIT)
    folder = tmp_path / "run"
    tuned = finished_run(base_with_pooler(tiny_models["bert"], tmp_path / "base"), folder)
    result = read_result(7, "lora", folder)
    view.state.add_result(result)
    view.results.show_result(result)
    panel = view.results.explain
    assert panel.isVisible()
    panel.explain_button.click()  # no row selected: said so
    assert "Select a row" in panel.notice.text()

    text = TEXTS[1][0]
    table = view.results.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == text)
    predicted = table.item(row, 2).text()
    table.scrollToItem(table.item(row, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualItemRect(table.item(row, 1)).center())
    assert [i.row() for i in table.selectionModel().selectedRows()] == [row]
    panel.set_method("grad-input")
    panel.explain_button.click()
    qtbot.waitUntil(lambda: (panel.strip.isVisible() or bool(panel.notice.text())) and panel.explain_button.isEnabled(),
                    timeout=WAIT)
    assert panel.strip.isVisible(), panel.notice.text()

    enc = tuned.tokenizer(text)
    inputs = {k: torch.tensor([v]) for k, v in enc.items()}
    index = LABELS.index(predicted)
    with torch.no_grad():
        assert int(torch.argmax(tuned.model(**inputs).logits[0])) == index  # the row's label is the model's
    expected = hooked_grad_input(tuned.model, tuned.model.get_input_embeddings(),
                                  lambda m: m(**inputs).logits[0, index])
    strip = panel.strip
    assert strip.tokens() == tuned.tokenizer.convert_ids_to_tokens(enc["input_ids"])
    np.testing.assert_allclose(strip.scores(), expected, rtol=1e-4, atol=1e-7)
    assert f"<b>{predicted}</b>" in panel.summary.text() and "at token 0" in panel.summary.text()  # BERT's [CLS]
    attention = strip.attention()  # the [CLS] row of the last layer, mean over heads: a distribution
    assert attention is not None and len(attention) == len(expected) and attention.sum() == pytest.approx(1.0)
    if os.environ.get("LM_WORKBENCH_SHOTS"):
        window.grab().save(os.path.join(os.environ["LM_WORKBENCH_SHOTS"], "finetune-explain.png"))

    # another run shown without a task the panel explains: the panel hides
    view.results.show_result(type(result)(8, "lora", str(folder), {"task": "ner"}, [], None))
    assert not panel.isVisible()
