"""Issue 49.9: the attachment diagram lights only what is there. No task head for the sentence task; GPT-2's
fused c_attn lights Q, K and V for LoRA on "query,value" and says why; MAM states its bottleneck on the loaded
model; clicking a row of the side-by-side table chooses that method and lights its diagram."""

from __future__ import annotations

import pytest

from lm_workbench.finetune.diagram_sites import diagram_sites

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize("sites, task, model_type, lit, note", [
    (("query", "value", "head"), "sentence-embedding", "bert", ("query", "value"), "No task head"),
    (("query", "value", "head"), "seq-cls", "gpt2", ("query", "key", "value", "head"), "c_attn computes Q, K and V"),
    (("query", "value", "head"), "seq-cls", "bert", ("query", "value", "head"), None),
    (("prefix", "parallel_ffn", "head"), "seq-cls", "gpt2", ("prefix", "parallel_ffn", "head"), None),
    (("attention_output", "head"), "sentence-embedding", "gpt2", ("attention_output",), "No task head"),
])
def test_lit_sites_follow_the_task_and_the_model(sites, task, model_type, lit, note):
    shown = diagram_sites(sites, task, model_type)
    assert shown.sites == lit
    assert (note is None and not shown.notes) or any(note in n for n in shown.notes)


def _form(window):
    view = window.view("finetune")
    return view, view.form


def test_the_diagram_in_the_tab(open_window, qtbot, tiny_models):
    window = open_window(str(tiny_models["gpt2"]), "finetune", size=(1280, 800))
    view, form = _form(window)
    qtbot.waitUntil(lambda: bool(form.methods), timeout=60000)
    form.choose_method("lora")
    form.config_form.set_values({"target_modules": "query,value"})
    qtbot.waitUntil(lambda: {"query", "key", "value"} <= form.diagram.highlighted_sites(), timeout=10000)
    assert "c_attn computes Q, K and V" in form.diagram.caption()

    form.task_combo.setCurrentIndex(form.task_combo.findData("sentence-embedding"))
    qtbot.waitUntil(lambda: "head" not in form.diagram.highlighted_sites(), timeout=10000)
    assert "No task head" in form.diagram.caption()

    form.task_combo.setCurrentIndex(form.task_combo.findData("seq-cls"))
    form.choose_method("mam")
    hidden = window.loaded.info.hidden_size
    qtbot.waitUntil(lambda: "On this model" in form.diagram.caption(), timeout=10000)
    assert f"FFN bottleneck {hidden // 2}" in form.diagram.caption()

    dialog = form.show_unified_table()
    row = dialog.table.names.index("bitfit")
    dialog.table.cellClicked.emit(row, 0)
    qtbot.waitUntil(lambda: form.state.method == "bitfit", timeout=10000)
    assert form.diagram.method_title.startswith(form.methods["bitfit"].title or "bitfit")
    dialog.close()
