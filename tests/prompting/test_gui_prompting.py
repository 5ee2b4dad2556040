"""The Prompting tab on tiny models: inline template errors, scoring equal to the engine, evaluation with its
confusion matrix and a stored run, streaming generation with Cancel, prompt sets saved and loaded."""

from __future__ import annotations

import csv
import math
import os

import pytest
import torch
from PySide6.QtCore import Qt

from lm_workbench.ui.prompting.prompt_sets import OPEN as OPEN_TEXT
from lm_workbench.ui.window.view_registry import ViewRegistry, builtin_views

pytestmark = pytest.mark.timeout(120)

REVIEWS = [
    ("I loved every minute of this film.", "pos"), ("The acting was wooden and dull.", "neg"),
    ("A warm, funny and lovely story.", "pos"), ("I walked out halfway through.", "neg"),
    ("Great cast, great music.", "pos"), ("A boring mess with no plot.", "neg"),
    ("Charming from start to end.", "pos"), ("Terrible dialogue all the way.", "neg"),
]


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _registry() -> ViewRegistry:
    builtin = builtin_views()
    return ViewRegistry([builtin.get("tokens"), builtin.get("prompting")])


def _labelled(tmp_path):
    path = tmp_path / "reviews.tsv"
    path.write_text("sentence\tlabel\n" + "".join(f"{t}\t{label}\n" for t, label in REVIEWS), encoding="utf-8")
    return path


def _retype(qtbot, edit, text: str) -> None:
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(edit, text)


def test_inline_error_then_scoring_equals_the_engine(open_window, qtbot, tiny_models, fresh_home):
    from lm_workbench.engine.prompting.scoring import score_example
    from lm_workbench.engine.prompting.template import Template
    from lm_workbench.engine.prompting.verbalizer import Verbalizer

    window = open_window(str(tiny_models["bert"]), "prompting", registry=_registry())
    view = window.view("prompting")
    assert window.about_panel.title() == "Prompting" and "Calibrate Before Use" in window.about_panel.plain_text()
    assert view.model_notice.isVisible() and "near chance (chance is 50% with 2 labels)" in view.model_notice.text()
    assert not view.other_models_row.isVisible()  # no other model is known in this fresh home

    editor = view.editor
    _retype(qtbot, editor.template_edit, "[x] Overall, it was a movie.")
    assert editor.template_error.isVisible() and "no answer slot" in editor.template_error.text()
    assert not view.score_button.isEnabled()
    _retype(qtbot, editor.template_edit, "[x] Overall it was [y] and [z].")
    assert "unknown slot [y]" in editor.template_error.text() and not view.score_button.isEnabled()
    _retype(qtbot, editor.template_edit, "[x] Overall, it was a [z] movie.")
    assert not editor.template_error.isVisible() and view.score_button.isEnabled()
    _retype(qtbot, editor.verbalizer_edit, "pos=great,good;neg=terrible,dreadful")
    assert "pos: great →" in editor.tokenizations.text() and "dreadful →" in editor.tokenizations.text()

    window.activateWindow()
    editor.x_edit.setFocus()
    qtbot.keyClick(editor.x_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # Ctrl+Enter scores
    qtbot.waitUntil(lambda: view.state.scored is not None and not view.ctx.jobs.busy(), timeout=30000)

    loaded = window.loaded
    expected = score_example(loaded, Template.parse(view.state.template, "cloze"),
                             Verbalizer.parse("pos=great,good;neg=terrible,dreadful"), view.state.x,
                             multi_token="left-to-right", top_k=10)
    table = view.score_page.labels_table
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == expected.labels == ["pos", "neg"]
    shown = [float(table.item(r, 1).text()) for r in range(table.rowCount())]
    assert shown == pytest.approx(expected.label_probs, abs=5e-5) and sum(shown) == pytest.approx(1, abs=1e-3)
    # independently: a label's probability is the softmax over labels of log(sum of its answers' probabilities)
    by_label = {label: math.log(sum(math.exp(a.log_prob) for a in expected.answers if a.label == label))
                for label in expected.labels}
    z = sum(math.exp(v) for v in by_label.values())
    assert shown == pytest.approx([math.exp(by_label[label]) / z for label in expected.labels], abs=5e-5)
    # contextual calibration of this one input: divided by p_cf of "N/A", "" and [MASK] in the same prompt
    p_cf = [sum(score_example(loaded, Template.parse(view.state.template, "cloze"),
                              Verbalizer.parse("pos=great,good;neg=terrible,dreadful"), cf).label_probs[i]
                for cf in ("N/A", "", "[MASK]")) / 3 for i in range(2)]
    q = [p / c for p, c in zip(expected.label_probs, p_cf)]
    calibrated = [float(table.item(r, 2).text()) for r in range(table.rowCount())]
    assert calibrated == pytest.approx([v / sum(q) for v in q], abs=5e-5)
    chips = view.score_page.tokens.tokens()
    assert [c.text for c in chips] == expected.tokens
    assert [c.kind for c in chips].count("answer") == 1 and chips[expected.answer_positions[0]].kind == "answer"
    top = view.score_page.top_table
    assert top.rowCount() == 10 and top.item(0, 2).text() == str(expected.top_k[0].id)


def test_evaluation_fills_table_and_confusion_and_stores_a_run(open_window, qtbot, tiny_models, fresh_home,
                                                              tmp_path):
    import numpy as np

    window = open_window(str(tiny_models["bert"]), "prompting", registry=_registry())
    view = window.view("prompting")
    page = view.evaluate_page
    view.pages.setCurrentWidget(page)
    page.choose_data(str(_labelled(tmp_path)))
    assert page.data_combo.currentText() == "reviews.tsv"
    qtbot.mouseClick(page.add_button, Qt.MouseButton.LeftButton)
    _retype(qtbot, view.editor.template_edit, "[x] All in all, it was [z].")
    qtbot.mouseClick(page.add_button, Qt.MouseButton.LeftButton)
    assert page.table.rowCount() == 2
    qtbot.mouseClick(page.evaluate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: all(r.run_id is not None for r in view.state.rows), timeout=60000)

    for r, row in enumerate(view.state.rows):
        result = row.result
        assert len(result.gold) == len(REVIEWS) and result.calibrated is not None
        gold, predicted = result.gold, result.raw.predicted
        assert float(page.table.item(r, 0).text()) == pytest.approx(
            sum(g == p for g, p in zip(gold, predicted)) / len(gold), abs=1e-3)
        assert page.table.item(r, 2).text() == f"{result.calibrated.accuracy:.3f}"
        assert page.table.item(r, 4).text() == str(row.run_id) and page.table.item(r, 5).text() == row.template
    page.table.selectRow(1)
    result = view.state.rows[1].result
    matrix = page.confusion.matrix()
    counts = np.zeros((2, 2))
    for g, p in zip(result.gold, result.raw.predicted):
        counts[result.labels.index(g), result.labels.index(p)] += 1
    assert np.array_equal(matrix, counts) and matrix.sum() == len(REVIEWS)
    page.matrix_combo.setCurrentText("calibrated")
    assert np.array_equal(page.confusion.matrix(), np.asarray(result.calibrated.confusion, dtype=float))

    run = window.run_services.store.get_run(view.state.rows[0].run_id)
    assert run["kind"] == "prompt-eval"
    table = page.export_table(tmp_path / "cmp.csv")
    rows = list(csv.reader(table.open(encoding="utf-8")))
    assert rows[0][:4] == ["template", "verbalizer", "accuracy", "macro_f1"] and len(rows) == 3
    png, svg = page.export_picture(tmp_path / "c.png"), page.export_picture(tmp_path / "c.svg")
    assert png.read_bytes()[:4] == b"\x89PNG" and b"<svg" in svg.read_bytes()[:400]

    # Few-shot: k = 2 balanced demonstrations from the same file, the whole prompt shown, then accuracy against k
    from lm_workbench.engine.prompting.fewshot import Demonstration, full_prompt
    from lm_workbench.engine.prompting.template import Template
    from lm_workbench.engine.prompting.verbalizer import Verbalizer

    shots = view.fewshot_page
    view.pages.setCurrentWidget(shots)
    shots.k_spin.setValue(2)
    shots.selection_combo.setCurrentText("balanced")
    qtbot.mouseClick(shots.build_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(view.state.fewshot.prompt) and not view.ctx.jobs.busy(), timeout=30000)
    demos = view.state.fewshot.demonstrations
    assert sorted(d.label for d in demos) == ["neg", "pos"] and all(Demonstration(d.x, d.label) in
                                                                     [Demonstration(t, lab) for t, lab in REVIEWS]
                                                                     for d in demos)
    assert shots.prompt_view.toPlainText() == full_prompt(
        Template.parse(view.state.template), Verbalizer.parse(view.state.verbalizer), demos, view.state.x)
    shots.ks_edit.setText("0, 1")
    shots.seeds_spin.setValue(2)
    qtbot.mouseClick(shots.curve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(view.state.fewshot.curve) == 2 and not view.ctx.jobs.busy(), timeout=60000)
    assert [len(view.state.fewshot.curve[k]) for k in (0, 1)] == [1, 2]  # k = 0 has nothing to draw per seed
    xs, ys = shots.mean_curve.getData()
    assert list(xs) == [0, 1] and ys[1] == pytest.approx(sum(view.state.fewshot.curve[1]) / 2)
    assert "Best mean accuracy" in shots.summary.text()
    k_rows = list(csv.reader(shots.export_table(tmp_path / "k.csv").open(encoding="utf-8")))
    assert k_rows[0][:2] == ["k", "mean_accuracy"] and [r[0] for r in k_rows[1:]] == ["0", "1"]
    assert b"<svg" in shots.export_picture(tmp_path / "k.svg").read_bytes()[:400]

    # 4 demonstrations do not fit the tiny model's 64-token window: the evaluation says some were dropped
    shots.k_spin.setValue(4)
    view.pages.setCurrentWidget(page)
    qtbot.mouseClick(page.evaluate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: all(r.run_id is not None for r in view.state.rows), timeout=60000)
    assert "4 demonstrations" in page.summary.text() and "did not fit the model's window" in page.summary.text()
    assert all(r.result.dropped for r in view.state.rows)


def test_generation_streams_tokens_and_cancel_stops_it(open_window, qtbot, tiny_models, fresh_home):
    from lm_workbench.engine.prompting.generation import generate_job
    from lm_workbench.engine.progress import run_to_completion

    from lm_workbench.settings import Settings

    settings = Settings(recent_models=[str(tiny_models["bert"])])
    window = open_window(str(tiny_models["gpt2"]), "prompting", registry=_registry(), settings=settings)
    view = window.view("prompting")
    assert view.other_models_row.isVisible() and view.other_models.currentText() == str(tiny_models["bert"])
    page = view.generate_page
    view.pages.setCurrentWidget(page)
    page.prompt_edit.setPlainText("The film was")
    page.max_tokens.setValue(12)
    while_running = []
    view.state.events.generation_changed.connect(
        lambda: while_running.append((len(view.state.generated), view.ctx.jobs.busy())))
    qtbot.mouseClick(page.generate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(view.state.generation_end), timeout=30000)
    assert any(n > 0 and busy for n, busy in while_running)  # tokens arrived before the job ended
    expected = run_to_completion(generate_job(window.loaded, "The film was", max_new_tokens=12))
    assert [t[0] for t in view.state.generated] == expected.token_ids
    assert f"greedy; stopped by {expected.stopped_by}" in page.summary.text() and expected.text in page.summary.text()
    chips = page.stream.tokens()
    assert [c.token_id for c in chips] == expected.token_ids
    assert chips[0].probability == pytest.approx(expected.tokens[0].prob)
    # hovering a token shows its probability
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    centre = page.stream.chip_rect(1).center().toPoint()
    QApplication.sendEvent(page.stream, QHelpEvent(QEvent.Type.ToolTip, centre, page.stream.mapToGlobal(centre)))
    assert QToolTip.text() == page.stream.tooltip_text(1) and f"p = {expected.tokens[1].prob:.4f}" in QToolTip.text()
    assert f"id {expected.token_ids[1]}" in QToolTip.text()
    QToolTip.hideText()

    page.max_tokens.setValue(50)
    stop = {"how": page.cancel_button.click}  # Cancel once the first token is in; then Esc, the window's key
    view.state.events.generation_changed.connect(
        lambda: len(view.state.generated) == 1 and page.cancel_button.isEnabled() and stop["how"]())
    for how in (page.cancel_button.click, lambda: qtbot.keyClick(window, Qt.Key.Key_Escape)):
        stop["how"] = how
        window.activateWindow()
        qtbot.mouseClick(page.generate_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: view.state.generation_end == "cancelled", timeout=30000)
        assert len(view.state.generated) < 40 and page.generate_button.isEnabled()
    if os.environ.get("PROMPTING_SCREENSHOT"):
        window.grab().save(os.environ["PROMPTING_SCREENSHOT"])


def test_prompt_sets_built_in_and_saved_then_loaded(open_window, qtbot, tiny_models, fresh_home, tmp_path):
    import json

    window = open_window(str(tiny_models["bert"]), "prompting", registry=_registry())
    view = window.view("prompting")
    bar, state = view.set_bar, view.state
    assert "sentiment" in bar.plugins() and bar.combo.findText(OPEN_TEXT) == bar.combo.count() - 1
    assert bar.combo.findData("sentiment") > 0
    bar.use_plugin("sentiment")  # through the entry-point group, as a third party's set would come
    assert all(r.template.endswith(".") or "[z]" in r.template for r in state.rows)
    assert {r.verbalizer for r in state.rows} == {"pos=great,good;neg=terrible,bad", "pos=positive;neg=negative"}
    assert view.editor.template_edit.text() == state.rows[0].template and state.data_path.endswith("sentiment.tsv")
    assert view.evaluate_page.table.rowCount() == len(state.rows) == 6  # 3 cloze templates x 2 verbalizers

    _retype(qtbot, view.editor.template_edit, "Review: [x] In short: [z].")
    saved = bar.save(tmp_path / "mine.json")
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert data["format"] == "lm-workbench-prompt-set" and len(data["examples"]) == 40
    assert [t["text"] for t in data["templates"]][-1] == "Review: [x] In short: [z]."

    state.remove_row(0)
    _retype(qtbot, view.editor.template_edit, "[x] It was [z].")
    assert bar.load(saved)
    assert len(state.rows) == 4 * 2 and state.rows[-1].template == "Review: [x] In short: [z]."
    assert view.editor.template_edit.text() == data["templates"][0]["text"]
    assert state.data_path.endswith("mine.tsv") and len(open(state.data_path, encoding="utf-8").readlines()) == 41

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**data, "templates": [{"text": "[x] no slot", "mode": "cloze"}]}), encoding="utf-8")
    assert not bar.load(bad)
    assert "template 1" in window.message_bar.text() and "no answer slot" in window.message_bar.text()
