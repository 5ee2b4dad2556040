"""The Fine-tune tab's Instruct page with real widgets on the tiny GPT-2: what is trained, the template, the table.

The coloured cells are checked against a mask built here from the plain template's literal text for the demo
file's first record, the batch count against the answers' tokens of the first batch summed here, and a painted
trained cell against the masking lab's theme colour for a scored position.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import torch

from lm_workbench.engine.finetune.demo import DATA, demo_path
from lm_workbench.ui import theme
from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def tab(open_window, qtbot, tiny_models, fresh_home):
    torch.set_num_threads(1)
    builtin = builtin_views()
    window = open_window(str(tiny_models["gpt2"]), "finetune", registry=ViewRegistry([builtin.get("finetune")]),
                         size=(1280, 860), about=False)
    view = window.view("finetune")
    view.ensure_methods()
    return window, view


def _answer_tokens(tokenizer, record) -> int:
    return len(tokenizer(record["output"] + "<|endoftext|>", add_special_tokens=False)["input_ids"])


def test_instruct_page_colours_what_the_loss_covers(tab, qtbot, tiny_models):
    window, view = tab
    form = view.form
    form.task_combo.setCurrentIndex(form.task_combo.findData("instruct"))
    assert view.state.train == str(demo_path("instruct"))
    assert view.state.validation == str(DATA / "instruct_heldout.jsonl")  # the held-out prompts come along
    view.tabs.setCurrentWidget(view.instruct)
    view.instruct.preview_button.click()
    qtbot.waitUntil(lambda: view.instruct.preview is not None, timeout=60000)

    tokenizer = window.loaded.tokenizer
    records = [json.loads(line) for line in demo_path("instruct").read_text(encoding="utf-8").splitlines()]
    prompt = tokenizer(f"### Instruction:\n{records[0]['instruction']}\n\n### Response:\n",
                       add_special_tokens=False)["input_ids"]
    answer = _answer_tokens(tokenizer, records[0])
    assert view.instruct.tokens.kinds() == ["ignored"] * len(prompt) + ["masked"] * answer
    assert f"{answer} of {len(prompt) + answer} tokens trained" in view.instruct.example_label.text()
    first_batch = sum(_answer_tokens(tokenizer, r) for r in records[:view.state.batch_size])
    assert f"file order): {first_batch}," in view.instruct.batch_label.text()
    assert "no chat template" in view.instruct.template_label.text()

    cells = view.instruct.tokens._cells  # a trained cell is painted in the masking lab's "masked" fill
    image = view.instruct.tokens.grab().toImage()
    rect = cells[len(prompt)]
    fill = theme.current().colours.mask_kinds.masked.fill
    assert image.pixelColor(rect.left() + 3, rect.bottom() - 3).name() == fill

    # an edited template is saved, becomes the run's --template, and the preview follows it
    view.instruct.template_edit.setPlainText(view.instruct.template_text().replace("### Response:", "### Answer:"))
    view.instruct.preview = None
    view.instruct.use_button.click()
    qtbot.waitUntil(lambda: view.instruct.preview is not None, timeout=60000)
    saved = Path(view.state.template)
    assert saved.is_file() and "### Answer:" in saved.read_text(encoding="utf-8")
    assert view.state.spec("m", "out").template == str(saved)
    assert "Answer" in "".join(view.instruct.tokens.tokens)


def test_lecture_steps_show_the_page_and_the_table(tab, qtbot):
    _, view = tab
    view.apply_preset_step({"task": "instruct", "method": "full", "lr": 0.003, "template": "plain", "show": "data"},
                           {})
    assert view.tabs.currentWidget() is view.instruct and view.state.method == "full"
    assert view.state.lr == pytest.approx(0.003) and view.state.template == "plain"
    qtbot.waitUntil(lambda: view.instruct.preview is not None, timeout=60000)
    assert view.instruct.preview.template_source == "plain" and view.instruct.tokens.kinds()
    rows = [{"prompt": "first word: list key", "category": "first", "reference": "list", "before_greedy": "x",
             "after_greedy": "list", "before_sampled": "y", "after_sampled": "lis"}]
    view.instruct.show_before_after({"before_after": {
        "rows": rows, "before": {"exact_match": 0.0, "rougeL": 0.0}, "after": {"exact_match": 1.0, "rougeL": 1.0},
        "categories": {"first": {"count": 1, "before": {"exact_match": 0.0, "rougeL": 0.0},
                                 "after": {"exact_match": 1.0, "rougeL": 1.0}}},
        "sampling": {"seed": 0, "temperature": 0.8, "top_p": 0.95}}})
    table = view.instruct.table
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    shown = {h: table.item(0, c).text() for c, h in enumerate(headers)}
    assert shown["before (greedy)"] == "x" and shown["after (greedy)"] == "list" and shown["reference"] == "list"
    assert "exact match 0.00 before → 1.00 after" in view.instruct.scores_label.text()
    assert view.instruct.categories.item(0, 0).text() == "first" and view.instruct.categories.item(0, 3).text() == "1.00"


def test_data_and_trained_steps_show_two_screens_with_f5(open_window, qtbot, tiny_models, fresh_home, restore_style):
    """instruction-tuning steps 1 and 2 showed the same screen and the six categories never appeared; with F5 the
    tokens-per-batch line lay below the fold (issue 49.11). At 1024 × 768 with F5: step 1 (``show: data``) shows
    the Demonstration data page with every category of the shipped file (read here) and a prompt and answer of
    each, wrapped, not cut; step 2 (``show: trained``) shows the other page, with the batch line in sight and no
    empty token chip."""
    torch.set_num_threads(1)
    builtin = builtin_views()
    window = open_window(str(tiny_models["gpt2"]), "finetune", registry=ViewRegistry([builtin.get("finetune")]),
                         size=(1024, 768), about=False)
    window.presentation.screen_height = lambda: 768
    window.presentation.set_on(True)
    view = window.view("finetune")
    view.ensure_methods()
    view.apply_preset_step({"task": "instruct", "method": "full", "template": "auto", "show": "data"}, {})
    qtbot.waitUntil(lambda: view.instruct.preview is not None and not window.jobs.busy, timeout=60000)
    page = view.instruct
    assert page.pages.currentWidget() is page.data_page
    records = [json.loads(line) for line in demo_path("instruct").read_text(encoding="utf-8").splitlines()]
    wanted = {}
    for r in records:
        wanted[r["category"]] = wanted.get(r["category"], 0) + 1
    assert len(wanted) == 6
    text = page.data_label.text()
    assert f"{len(records):,} demonstrations in 6 categories" in text
    assert all(f"{name} ({n})" in text for name, n in wanted.items())
    shown = {page.samples.item(r, 0).text() for r in range(page.samples.rowCount())}
    assert shown == set(wanted)
    first = next(r for r in records)
    prompts = [page.samples.item(r, 1).text() for r in range(page.samples.rowCount())]
    assert first["instruction"] in prompts[0] and page.samples.item(0, 2).text() == first["output"]
    for r in range(page.samples.rowCount()):  # every prompt whole: its row as tall as its wrapped text
        assert page.samples.rowHeight(r) >= page.samples.sizeHintForRow(r)
    data_screen = window.grab().toImage()
    shots = os.environ.get("LM_WORKBENCH_SHOTS")
    if shots:
        data_screen.save(os.path.join(shots, "instruct-data-f5-1024x768.png"))

    view.apply_preset_step({"task": "instruct", "show": "trained"}, {})
    qtbot.wait(50)
    assert page.pages.currentWidget() is page.trained_page
    assert window.grab().toImage() != data_screen  # another screen
    label = page.batch_label
    scroller = window.view_host._scrollers["finetune"]
    from PySide6.QtCore import QPoint, QRect

    viewport = scroller.viewport()
    rect = QRect(label.mapTo(viewport, QPoint(0, 0)), label.size()).intersected(viewport.rect())
    assert label.isVisible() and rect.height() == label.height() > 0  # the batch line in sight, whole
    if shots:
        window.grab().save(os.path.join(shots, "instruct-trained-f5-1024x768.png"))
    from lm_workbench.ui.finetune.trained_tokens import _short

    assert all(_short(t).strip() for t in page.tokens.tokens)  # newline and space tokens are visible chips
