"""Lecture presets in the window, end to end on the embedded MiniLM: every available built-in preset steps
through its steps (Next/Previous, PageDown/PageUp) and each step shows what its caption says."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.support.lecture_play import WAIT, current, install_course_models, step_to
from lm_workbench.lectures.library import builtin_presets, data_path, find_builtin

pytestmark = pytest.mark.timeout(240)

STEP_SECONDS = 9.0  # the lecture budget is 3 s a step; a shared 2-core test machine gets a 3x margin


@pytest.fixture
def lecture_window(open_window, minilm):  # minilm: torch and the model's files are warm before the window loads it
    def make():
        return open_window("minilm", about=False)
    return make


def first_draw(registry, name: str, tokenizer, text: str, seed: int, **config):
    """The objective's own first draw from ``seed``, called directly (as the lab promises to show)."""
    obj = registry.objective(name)
    cfg = dataclasses.replace(obj.default_config(), **config)
    ids = tokenizer(text)["input_ids"]
    return obj.make_batch([ids], tokenizer, np.random.default_rng(seed), cfg, example_ids=[0]).previews[0]


def test_bert_masking_preset_steps_with_fixed_seeds(lecture_window, qtbot):
    window = lecture_window()
    preset = find_builtin("bert-masking")
    lab = window.view("masking_lab")
    window.about_panel.set_expanded(True)
    assert window.lectures.start(preset)
    assert not window.about_panel.is_expanded()  # the captions explain while the lecture runs
    text = preset.steps[0].inputs["text"]
    seconds = [step_to(qtbot, window, 0, lambda: lab.result is not None and lab.result["seed"] == 1)]
    assert window.lectures.bar.isVisible() and window.lectures.bar.text().startswith("Step 1/3: BERT picks 15%")
    assert current(window) == "masking_lab" and window.text_input.text() == text
    assert lab.objective_name() == "mlm" and lab.form.values()["mask_rate"] == pytest.approx(0.15)
    expected = first_draw(lab.registry, "mlm", window.loaded.tokenizer, text, 1, mask_rate=0.15)
    assert lab.grid.row("input").ids() == expected.input_ids  # the class sees what the teacher rehearsed

    window.activateWindow()  # the keys are window shortcuts
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT)
    window.text_input.editor.setFocus()
    qtbot.keyClick(window.text_input.editor, Qt.Key.Key_PageDown)  # a clicker, even with the text box focused
    assert window.lectures.runner.index == 1
    seconds.append(step_to(qtbot, window, 1, lambda: lab.result["seed"] == 2))
    assert lab.grid.row("input").ids() == first_draw(lab.registry, "mlm", window.loaded.tokenizer, text, 2).input_ids
    assert window.lectures.bar.text().startswith("Step 2/3:")
    bar_h = window.lectures.bar.height()
    line = window.lectures.bar.caption.fontMetrics().lineSpacing()
    assert window.lectures.bar.caption.height() >= 2 * line  # two lines' room for any caption: views never jump

    seconds.append(step_to(qtbot, window, 2, lambda: bool(lab.stats.rates) and lab.result["seed"] == 1))
    assert window.lectures.bar.height() == bar_h  # a caption of another length: the same bar
    assert "Over 1000 draws from seed 1" in lab.stats.summary.text()
    assert lab.stats.rates["selected"] == pytest.approx(0.15, abs=0.04)
    assert lab.stats.rates["mask"] == pytest.approx(0.8, abs=0.05)
    assert max(seconds) < STEP_SECONDS, seconds

    qtbot.keyClick(window.text_input.editor, Qt.Key.Key_PageUp)
    assert window.lectures.runner.index == 1 and window.lectures.bar.text().startswith("Step 2/3:")
    window.lectures.bar.end_button.click()
    assert not window.lectures.runner.active and window.lectures.bar.isHidden()
    assert window.about_panel.is_expanded()
    assert not window.lectures.next_action.isEnabled()  # PageDown scrolls as usual again


def test_bart_noising_preset_shows_each_function_and_t5_needs_its_course_model(lecture_window, qtbot):
    window = lecture_window()
    lab = window.view("masking_lab")
    preset = find_builtin("bart-t5-noising")
    assert window.lectures.start(preset)
    kinds_wanted = ["moved", "masked", "deleted", "masked", "moved"]  # what each function leaves in the input
    for index, kind in enumerate(kinds_wanted):
        config = preset.steps[index].settings["config"]
        seconds = step_to(qtbot, window, index, lambda: lab.result is not None and lab.shown_key[4] == "bart"
                          and lab.shown_key[5] == repr(lab.form.config()) and lab.form.values() == {
                              **lab.form.values(), **config})
        assert seconds < STEP_SECONDS
        assert lab.tokenizer_spec() == "minilm" and lab.seed_spin.value() == 3
        shown = set(lab.grid.row("input").kinds()) | set(lab.grid.row("original").kinds())
        assert kind in shown, (index, shown)
    assert window.lectures.runner.go(5)
    assert "not available here: needs the course t5 model" in window.lectures.bar.text()
    assert "lm-workbench course-models --families t5" in window.lectures.bar.text()
    assert lab.shown_key[4] == "bart"  # nothing was applied


def test_static_vs_contextual_preset_lists_both_neighbour_kinds(lecture_window, qtbot):
    window = lecture_window()
    view = window.view("embeddings")
    preset = find_builtin("static-vs-contextual")
    assert window.lectures.start(preset)
    for index, word in enumerate(["play", "bank", "mouse"]):
        def shown(word=word):
            row = view.state.current_occurrence()
            return row is not None and view.state.table.words[row] == word and view.neighbours.static.rowCount() > 0
        seconds = step_to(qtbot, window, index, shown)
        assert seconds < STEP_SECONDS or index == 0  # the first step embeds the corpus (with a cold cache)
        assert current(window) == "embeddings" and view.picker.spec_text() == "6"
        st = view.state
        assert st.corpus.lines == preset.steps[0].inputs["corpus"]["lines"]
        row = st.current_occurrence()
        t = st.table
        same = [r for r, w in enumerate(t.words) if w == word and t.occurrences[r].line != t.occurrences[row].line]
        # static: every other occurrence of the word is the same vector (all tie at 1.0)
        assert all(view.neighbours.static.cell_text(i, "score") == "1.0000" for i in range(len(same)))
        # contextual: the order is cosine at layer 6, computed here from the vectors
        v = np.asarray(t.vectors[6], dtype=np.float64)
        cos = {r: v[row] @ v[r] / np.linalg.norm(v[row]) / np.linalg.norm(v[r]) for r in same}
        best = sorted(same, key=lambda r: -cos[r])[:4]
        assert [view.neighbours.contextual.row_index(i) for i in range(4)] == best
        assert t.labels[best[0]] == t.labels[row]  # the nearest is the same sense
    assert window.lectures.bar.text().startswith("Step 3/3: \"mouse\" (the animal)")


def test_attention_preset_selects_layer_and_head_then_steps_through_one_head(lecture_window, qtbot):
    window = lecture_window()
    view = window.view("attention")
    preset = find_builtin("attention-pair")
    assert window.lectures.start(preset)
    step_to(qtbot, window, 0, lambda: view.side() is not None)
    assert current(window) == "attention"
    assert (window.text_input.text(), window.text_input.pair()) == (preset.steps[0].inputs["text"],
                                                                    preset.steps[0].inputs["pair"])
    assert view.controls.layer_spin.value() == 0 and len(view.controls.heads.heads()) == 12
    assert view.side().query_tokens.count("[SEP]") == 2  # the pair is encoded as a pair
    seconds = step_to(qtbot, window, 1, lambda: view.controls.heads.heads() == [3])
    assert seconds < STEP_SECONDS
    assert view.controls.layer_spin.value() == 2 and view.controls.hide_special.isChecked()
    matrix, queries, _keys = view.current_matrix()
    assert "[CLS]" not in queries and np.allclose(matrix.sum(axis=1), 1.0, atol=1e-5)
    # step 3: the step-by-step panel for "it" (branch cla's panel), stepped by the same clicker keys
    seconds = step_to(qtbot, window, 2,
                      lambda: view.walkthrough_panel.isVisible() and view.walkthrough_panel.walkthrough() is not None)
    assert seconds < STEP_SECONDS
    tokens = list(view.encoding().tokenized.tokens)
    assert view.walkthrough_panel.choice() == (2, 3, tokens.index("it")) and view.walkthrough_panel.step() == 0
    assert window.clicker.active() is view.walkthrough_panel
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT)
    qtbot.keyClick(window, Qt.Key.Key_PageDown)  # the panel's next step, not the lecture's
    assert view.walkthrough_panel.step() == 1 and window.lectures.runner.index == 2
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    qtbot.keyClick(window, Qt.Key.Key_PageUp)  # the panel is at its first step: back to the lecture's step 2
    assert window.lectures.runner.index == 1 and not view.walkthrough_panel.isVisible()
    assert window.clicker.active() is window.lectures.runner


def test_scalar_mix_preset_starts_each_run(lecture_window, qtbot):
    window = lecture_window()
    view = window.view("probing")
    assert window.lectures.start(find_builtin("scalar-mix-pos-vs-sense"))
    qtbot.waitUntil(lambda: not view.run_button.isEnabled(), timeout=WAIT)
    assert current(window) == "probing" and view.state.task == "demo" and view.mix_check.isChecked()
    assert not view.probe_check.isChecked() and view.mix_steps.value() == 150
    window.lectures.runner.next()
    assert view.state.task == str(data_path("word_sense.tsv")) and view.state.kind == "sentence"
    assert not view.run_button.isEnabled() and view.summary.text() == "Running…"
    view.cancel()
    qtbot.waitUntil(lambda: view.run_button.isEnabled(), timeout=WAIT)
    window.lectures.runner.next()
    assert "course elmo model" in window.lectures.bar.text()


def test_unavailable_presets_say_why_and_never_run(open_window, qtbot, tmp_path, monkeypatch):
    from huggingface_hub import constants
    from PySide6.QtWidgets import QMenu

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))  # no larger model cached
    window = open_window(about=False)
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Lectures")
    actions = {a.text(): a for a in menu.actions()}
    for preset in builtin_presets():
        status = window.lectures.status(preset)
        assert actions[preset.title].isEnabled() == status.available
        if preset.name == "cloze-vs-prefix":  # no course BERT in this test's home, no bert-base-uncased cached
            assert not status.available and "course bert model" in actions[preset.title].toolTip()
            assert "bert-base-uncased" in status.reason
            assert not window.lectures.start(preset)
            assert "not available here" in window.message_bar.text() and not window.lectures.runner.active
    assert isinstance(menu, QMenu)
    window.lectures.show_start_page()
    page = window.lectures.start_page
    items = [page.presets.item(i) for i in range(page.presets.count())]
    assert len(items) == len(builtin_presets())
    disabled = [i.text() for i in items if not i.flags() & Qt.ItemFlag.ItemIsEnabled]
    assert any("Cloze" in t and "course bert model" in t for t in disabled)
    page.close()


@pytest.fixture
def course_models_here(tiny_models, monkeypatch, tmp_path):
    """The tiny BERT (masked LM) and GPT-2 installed as this machine's course models, and an empty hub cache,
    so the presets that prefer a larger cached model fall back to the course models."""
    return install_course_models(tiny_models, monkeypatch, tmp_path)


def first_token_probabilities(loaded, scored) -> dict[str, float]:
    """answer -> the probability of its first token at the answer slot, from the model's own logits on the prompt
    the tab scored (a forward pass of our own, not the engine's scoring)."""
    import torch

    ids = torch.tensor([scored.token_ids])
    with torch.no_grad():
        logits = loaded.model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits[0].float()
    row = logits[scored.answer_positions[0]] if loaded.family.name == "ENCODER" else logits[-1]
    probs = torch.softmax(row, dim=-1)
    return {a.answer: float(probs[a.token_ids[0]]) for a in scored.answers}


def test_cloze_vs_prefix_preset_on_the_course_models(open_window, qtbot, course_models_here):
    window = open_window(about=False)
    view = window.view("prompting")
    preset = find_builtin("cloze-vs-prefix")
    status = window.lectures.status(preset)
    assert status.available, status.reason
    sentence = preset.steps[0].settings["x"]
    course = course_models_here / "data" / "course-models"

    def scored_on(folder) -> bool:
        loaded = window.loaded
        return loaded is not None and Path(loaded.info.folder).is_relative_to(folder) and \
            view.state.scored is not None

    assert window.lectures.start(preset)
    seconds = [step_to(qtbot, window, 0, lambda: scored_on(course / "bert"))]
    assert current(window) == "prompting" and window.lectures.bar.text().startswith("Step 1/2: Cloze")
    st = view.state
    assert st.mode == "cloze" and st.set_name == "sentiment" and st.x == sentence
    assert st.template == "[x] Overall, it was a [z] movie."  # the set's first cloze template
    assert [r.template for r in st.rows][:1] == [st.template] and all("[z]" in r.template for r in st.rows)
    scored = st.scored
    assert scored.labels == ["pos", "neg"] and sum(scored.label_probs) == pytest.approx(1.0, abs=1e-6)
    assert window.loaded.tokenizer.mask_token_id in scored.token_ids
    for answer in scored.answers:  # the first answer token's probability, against our own forward pass
        assert np.exp(answer.token_log_probs[0]) == pytest.approx(
            first_token_probabilities(window.loaded, scored)[answer.answer], abs=1e-5)
    assert "has not learned enough language for prompting" in view.model_notice.text()  # too small: said so

    window.lectures.runner.next()
    seconds.append(step_to(qtbot, window, 1, lambda: scored_on(course / "gpt2") and view.state.mode == "prefix"))
    assert window.lectures.bar.text().startswith("Step 2/2: Prefix")
    st = view.state
    assert st.template == "[x] Overall, this movie is [z]" and st.x == sentence
    assert all(r.template.rstrip().endswith("[z]") for r in st.rows)  # prefix templates end with the answer
    scored = st.scored
    assert scored.answer_positions == [len(scored.tokens)]  # a decoder: the answer comes after the prompt
    probs = first_token_probabilities(window.loaded, scored)
    for answer in scored.answers:
        assert np.exp(answer.token_log_probs[0]) == pytest.approx(probs[answer.answer], abs=1e-5)
    assert "has not learned enough language for prompting" in view.model_notice.text()
    assert view.model_notice.text().startswith("course-models/gpt2 has")  # named shortly, not by its whole path
    offered = [view.other_models.itemText(i) for i in range(view.other_models.count())]
    assert window.loaded.info.folder not in offered and str(course / "bert" / "model") in offered
    recent = window.model_panel.recent_list
    assert {recent.item(i).text() for i in range(recent.count())} >= {"bert/model", "gpt2/model"}
    assert max(seconds) < STEP_SECONDS, seconds


def test_preset_model_candidates_prefer_a_cached_model(course_models_here, tmp_path, monkeypatch):
    """A cached hub model listed before the course model wins; without it the course model is used."""
    from huggingface_hub import constants

    from lm_workbench.lectures.availability import installed_course_models, resolve_model

    preset = find_builtin("cloze-vs-prefix")
    course = installed_course_models()
    assert resolve_model(preset.model, "minilm", course) == course["bert"]
    cache = tmp_path / "hub"
    (cache / "models--distilbert-base-uncased" / "snapshots").mkdir(parents=True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    assert resolve_model(preset.model, "minilm", course) == "distilbert-base-uncased"
    assert resolve_model(preset.steps[1].model, "minilm", course) == course["gpt2"]


def test_lora_vs_full_preset_counts_then_runs_the_bench(open_window, qtbot, tiny_models, fresh_home):
    """On the tiny BERT (the preset's MiniLM would only be slower): step 1 counts what each method trains,
    against closed forms; step 2 runs both on the bench and overlays their curves; stepping back and forth
    does not run them again."""
    import transformers

    from lm_workbench.engine.data.tasks import read_classification
    from lm_workbench.engine.finetune.demo import demo_path

    folder = tiny_models["bert"]
    preset = dataclasses.replace(find_builtin("lora-vs-full"), model=str(folder))
    window = open_window(about=False)
    view = window.view("finetune")
    assert window.lectures.status(preset).available
    assert window.lectures.start(preset)
    step_to(qtbot, window, 0, lambda: set(view.state.counts) == {"full", "lora"})
    assert current(window) == "finetune" and view.tabs.currentWidget() is view.bench_page
    assert view.state.bench == ["full", "lora"] and view.state.epochs == 1 and view.state.task == "seq-cls"
    labels = len(read_classification(demo_path("seq-cls")).labels)
    config = transformers.AutoConfig.from_pretrained(folder)
    task_model = transformers.AutoModelForSequenceClassification.from_pretrained(folder, num_labels=labels)
    total = sum(p.numel() for p in task_model.parameters())
    d, layers, r = config.hidden_size, config.num_hidden_layers, view.methods["lora"].default_config().rank
    assert view.state.counts["full"] == (total, total)
    assert view.state.counts["lora"][0] == layers * 2 * r * (d + d) + d * labels + labels  # query, value; head
    cells = view.bench.table.cells()
    assert [c[0] for c in cells] == ["full", "lora"] and float(cells[0][1]) == pytest.approx(100.0)
    assert "lora" in view.bench.counts_label.text() and "(100%)" in view.bench.counts_label.text()
    assert view.form_scroll.isHidden() and not view.form_button.isChecked()  # the bench gets the room
    view.form_button.click()
    assert view.form_scroll.isVisible()

    view.state.training = {"threads": 1, "log_every": 1}
    window.lectures.runner.next()
    qtbot.waitUntil(lambda: len(view.state.results) == 2 or bool(view.message_bar.text()), timeout=240_000)
    assert not view.message_bar.text()
    assert window.lectures.bar.text().startswith("Step 2/2: Training curves")
    full_id, lora_id = list(view.state.results)
    assert [view.state.results[i].method for i in (full_id, lora_id)] == ["full", "lora"]
    for run_id in (full_id, lora_id):
        assert view.bench.curves.point_count(run_id, "loss") >= 2
    assert [c[0] for c in view.bench.table.cells()] == ["full", "lora"]

    window.lectures.runner.previous()
    window.lectures.runner.next()
    qtbot.wait(300)
    assert list(view.state.results) == [full_id, lora_id] and not view.active  # shown again, not re-run


def test_a_step_whose_setting_the_view_refuses_says_so(open_window, qtbot, minilm):
    from lm_workbench.lectures.schema import parse_preset

    preset = parse_preset({"format": "lm-workbench-preset/1", "name": "bad-mode", "title": "Bad mode",
                           "model": "minilm", "steps": [{"view": "prompting", "caption": "one",
                                                         "settings": {"mode": "sideways"}}]}, "bad.json")
    window = open_window("minilm", about=False)
    assert window.lectures.start(preset)
    qtbot.waitUntil(lambda: "mode must be cloze or prefix" in window.message_bar.text(), timeout=WAIT)
    assert "Bad mode, step 1" in window.message_bar.text() and window.lectures.runner.active
