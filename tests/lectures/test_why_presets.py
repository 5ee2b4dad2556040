"""The two "why did the model say that" lecture presets: ``presets check`` accepts them (every step available
once the course GPT-2 is here), and each plays in the window on the tiny GPT-2 installed as the course model,
every step's view state checked against computations made here: attention and gradients by plain autograd,
rollout by the matrix product, patching by what causality fixes (a token before the first difference has
nothing to restore; the last block's output at the read position restores everything)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.support.lecture_play import current, install_course_models, step_to
from lm_workbench.cli.main import main
from lm_workbench.lectures.library import data_path, find_builtin

pytestmark = pytest.mark.timeout(180)

FILES = {"attention-not-explanation": "08-attention-not-explanation.json", "where-is-a-fact": "09-where-is-a-fact.json"}


@pytest.fixture
def course_models_here(tiny_models, monkeypatch, tmp_path):
    """The tiny GPT-2 installed as this machine's course GPT-2 (and an empty hub cache)."""
    return install_course_models(tiny_models, monkeypatch, tmp_path, ("gpt2",))


@pytest.mark.parametrize("name", FILES)
def test_presets_check_accepts_them_with_every_step_available(course_models_here, capsys, name):
    preset = find_builtin(name)
    assert main(["presets", "check", str(data_path(FILES[name])), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["available"] is True and report["steps_available"] == [True] * len(preset.steps)
    assert report["model"] == "course:gpt2"  # offline: the course model this machine builds


def _tiny_gpt2(window):
    import transformers as tf

    folder = window.loaded.info.folder
    return (tf.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval(),
            tf.AutoTokenizer.from_pretrained(folder))


def test_attention_is_not_explanation_plays_each_step(open_window, qtbot, course_models_here):
    window = open_window(about=False)
    preset = find_builtin("attention-not-explanation")
    text = preset.steps[0].inputs["text"]
    course = course_models_here / "data" / "course-models" / "gpt2"
    assert window.lectures.start(preset)
    attention = window.view("attention")
    step_to(qtbot, window, 0, lambda: window.loaded is not None and Path(window.loaded.info.folder)
            .is_relative_to(course) and attention.current_matrix()[0] is not None)
    assert current(window) == "attention" and window.lectures.bar.text().startswith("Step 1/3: Raw attention")
    settings, _ = attention.preset_state()
    assert settings["layer"] == 1 and settings["heads"] == "all"
    model, tokenizer = _tiny_gpt2(window)
    ids = torch.tensor([tokenizer(text)["input_ids"]])
    emb = model.get_input_embeddings()(ids).detach().requires_grad_(True)
    out = model(inputs_embeds=emb, output_attentions=True)
    weights = [a[0].detach().double().numpy() for a in out.attentions]  # [heads, queries, keys] per layer
    np.testing.assert_allclose(attention.current_matrix()[0], weights[1].mean(0), atol=1e-5)

    view, panel = window.view("predictions"), window.view("predictions").explain
    window.lectures.runner.next()
    step_to(qtbot, window, 1, lambda: panel.strip.isVisible() and panel.explain_button.isEnabled())
    assert current(window) == "predictions" and window.lectures.bar.text().startswith("Step 2/3: Why this")
    assert view.preset_state()[0] == {"method": "grad-input", "layer": 1, "explain": True}
    top = int(torch.argmax(out.logits[0, -1]))
    assert view.candidates()[0].id == top
    out.logits[0, -1, top].backward()
    np.testing.assert_allclose(panel.strip.scores(), (emb * emb.grad).sum(-1)[0].detach().double().numpy(),
                               rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(panel.strip.attention(), weights[1].mean(0)[-1], atol=1e-6)  # the band: layer 1

    window.lectures.runner.next()  # the same text: the predictions stay, only the explanation is redone
    step_to(qtbot, window, 2, lambda: panel.summary.text().startswith("attention rollout")
            and panel.explain_button.isEnabled())
    assert view.preset_state()[0] == {"method": "rollout", "layer": 1, "explain": True}
    mixed = [0.5 * w.mean(0) + 0.5 * np.eye(w.shape[-1]) for w in weights]
    mixed = [m / m.sum(-1, keepdims=True) for m in mixed]
    np.testing.assert_allclose(panel.strip.scores(), (mixed[1] @ mixed[0])[-1], atol=1e-6)
    np.testing.assert_allclose(panel.strip.attention(), weights[1].mean(0)[-1], atol=1e-6)
    with pytest.raises(ValueError, match="method must be one of"):
        view.apply_preset_step({"method": "saliency"}, {})


def test_where_is_a_fact_plays_resid_attn_mlp(open_window, qtbot, course_models_here):
    window = open_window(about=False)
    preset = find_builtin("where-is-a-fact")
    first = preset.steps[0].settings
    assert window.lectures.start(preset)
    view = window.view("patching")
    model = tokenizer = None
    for index, site in enumerate(("resid", "attn", "mlp")):
        if index:
            window.lectures.runner.next()
        step_to(qtbot, window, index, lambda: window.loaded is not None and view.state.result is not None
                and not view.state.running and view.state.result.site == site)
        assert current(window) == "patching" and window.lectures.bar.text().startswith(f"Step {index + 1}/4: {site}")
        assert view.preset_state()[0] == {k: first[k] for k in ("clean", "corrupt", "target", "contrast")} | {
            "site": site, "corrupt_by": "text", "subject": ""}
        assert view.site_combo.currentData() == site and view.clean_edit.text() == first["clean"]
        if model is None:
            model, tokenizer = _tiny_gpt2(window)
        clean, corrupt = tokenizer(first["clean"])["input_ids"], tokenizer(first["corrupt"])["input_ids"]
        assert len(clean) == len(corrupt)
        answer, wrong = (tokenizer(first[k])["input_ids"] for k in ("target", "contrast"))
        assert len(answer) == len(wrong) == 1  # one token each, as patching needs
        result = view.state.result
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([clean])).logits[0, -1]
        assert result.clean_metric == pytest.approx(float(logits[answer[0]] - logits[wrong[0]]), abs=1e-4)
        effect = np.array(view.state.matrix())
        assert effect.shape == (model.config.n_layer, len(clean)) and np.isfinite(effect).all()
        differ = next(i for i, (a, b) in enumerate(zip(clean, corrupt)) if a != b)
        np.testing.assert_allclose(effect[:, :differ], 0.0, atol=1e-5)  # the same tokens before: nothing to restore
        if site == "resid":
            assert effect[-1, -1] == pytest.approx(1.0, abs=1e-4)  # the last block at the read position: all of it

    # the last step: ROME's noise on the subject instead of a second text
    last = preset.steps[3].settings
    step_to(qtbot, window, 3, lambda: view.state.result is not None and not view.state.running
            and view.state.result.noise is not None)
    assert window.lectures.bar.text().startswith("Step 4/4: ROME")
    assert view.corrupt_by_combo.currentData() == "noise" and view.subject_edit.text() == last["subject"]
    noise = view.state.result.noise
    ids = tokenizer(first["clean"], return_offsets_mapping=True)
    start = first["clean"].index(last["subject"])
    end = start + len(last["subject"])
    assert noise.positions == [i for i, (a, b) in enumerate(ids["offset_mapping"]) if b > a and a < end and b > start]
    effect = np.array(view.state.matrix())
    np.testing.assert_allclose(effect[:, :noise.positions[0]], 0.0, atol=1e-5)  # nothing noised before the subject
    assert effect[-1, -1] == pytest.approx(1.0, abs=1e-4)
