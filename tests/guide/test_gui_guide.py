"""The Guide tab in the window: five pages walked (each opens its view beside the page panel), each answered wrong
then right through the panel's own controls, PageDown moving to the next page, and the progress exported as CSV."""

from __future__ import annotations

import csv

from PySide6.QtCore import Qt

from lm_workbench.guide.check import answer_of
from lm_workbench.lectures.verify import ModelCache

# page id -> a wrong answer (the right one is computed on the loaded model)
WALK = {"tokens-first": "3", "static-vs-contextual": None, "bert-masking-rate": "0.9", "nsp-sentence-pairs": "7",
        "attention-heads": None}


def _cell(view, answer: str):
    return next(b for b in view.panel.answers.buttons if b.objectName() == f"guideCell:{answer}")


def test_five_pages_wrong_then_right_and_the_csv(open_window, qtbot, fresh_home, tmp_path, minilm):
    window = open_window("minilm", "guide", size=(1024, 768))
    view = window.view_host.widget("guide")
    guide = view.session.guide
    tokenizer = window.loaded.tokenizer
    for page_id, wrong in WALK.items():
        index = guide.index(page_id)
        page = guide.pages[index]
        view.open_page(index)
        qtbot.waitUntil(lambda: window.view_host.current_entry().id == page.view, timeout=20000)
        assert window.guide_dock.isVisible() and view.panel.title.text() == page.title
        if page_id == "static-vs-contextual":  # "-1": the last layer, in the view as in the claim metric
            assert window.view_host.preset_state("embeddings")[0]["layer"] == str(window.loaded.info.layers)
        if page_id == "tokens-first":  # by hand: the tokenizer's own count
            right = str(len(tokenizer(page.step.inputs["text"])["input_ids"]))
        elif page_id == "nsp-sentence-pairs":
            right = str(tokenizer(page.step.inputs["text"], page.step.inputs["pair"])["input_ids"].count(
                tokenizer.sep_token_id))
        else:
            exp = answer_of(page, "minilm", ModelCache(lambda _spec: minilm), None)  # its own copy: not the lane's
            right = str(exp.value if page.exercise.kind != "number" else exp.shown)
        kind = page.exercise.kind
        if kind == "choose":
            wrong = next(o.label for o in page.exercise.options if o.label != right)
        if kind == "click-token":
            qtbot.waitUntil(lambda: len(view.panel.answers.buttons) > 5, timeout=20000)
            wrong = next(b.objectName().split(":", 1)[1] for b in view.panel.answers.buttons
                         if b.objectName() != f"guideCell:{right}")
        for answer, mark in ((wrong, "✘"), (right, "✔")):
            if kind in ("choose", "click-token"):
                qtbot.mouseClick(_cell(view, answer), Qt.MouseButton.LeftButton)
            else:
                view.panel.answers.edit.setText(answer)
                qtbot.mouseClick(view.panel.answers.check_button, Qt.MouseButton.LeftButton)
            qtbot.waitUntil(lambda: view.panel.feedback.text().startswith(mark), timeout=30000)
        assert view.panel.feedback.text().startswith("✔ Right")
    before = view.session.index
    window.lectures.runner.next()  # PageDown: the next page, through the lecture runner
    assert view.session.index == before + 1 and view.panel.title.text() == guide.pages[before + 1].title
    rows = list(csv.DictReader(open(view.export_csv(str(tmp_path / "progress.csv")), encoding="utf-8")))
    walked = {r["page"]: r for r in rows if r["page"] in WALK}
    assert len(rows) == len(guide.pages) and len(walked) == 5
    assert all((r["attempts"], r["right"], r["wrong"], r["answered"]) == ("2", "1", "1", "True")
               for r in walked.values())
    assert all(float(r["seconds"]) >= 0 for r in walked.values())
    assert view.reset_progress(confirm=False)
    assert view.session.progress.rows(guide)[0]["attempts"] == 0
