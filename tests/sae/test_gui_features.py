"""The Features tab with the real widgets on the tiny GPT-2: the token × feature strip equals the SAE's formula
on the hidden states of a plain forward pass; Show feature fills the contexts, histogram and logit effect; Steer
shows steered beside unsteered; a screenshot is written when LM_WORKBENCH_SHOTS names a folder."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

from lm_workbench.engine.sae.files import save_sae
from lm_workbench.engine.sae.kinds import SparseAutoencoder
from lm_workbench.runs.provenance import fingerprint_model_folder
from tests.support.tiny_models import corpus_lines

pytestmark = pytest.mark.timeout(120)

WAIT = 30000
TEXT = "The cat sat on the mat"


def test_the_features_tab(open_window, qtbot, tiny_models, tmp_path):
    import transformers as tf

    folder = str(tiny_models["gpt2"])
    sae = SparseAutoencoder("standard", 32, 64, seed=3)
    with torch.no_grad():
        sae.b_enc.fill_(0.05)  # some features fire on every token
    save_sae(tmp_path / "sae", sae, hook_name="blocks.0.hook_resid_post", model_name=folder,
             fingerprint=fingerprint_model_folder(folder))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(corpus_lines(12)), encoding="utf-8")
    window = open_window(folder, "features", about=False)
    view = window.view("features")
    window.text_input.set_text(TEXT)
    view.set_inputs(str(tmp_path / "sae"), str(corpus), 0, 6.0)
    qtbot.waitUntil(lambda: view.state.strip is not None, timeout=WAIT)

    model = tf.AutoModelForCausalLM.from_pretrained(folder).eval()
    tok = tf.AutoTokenizer.from_pretrained(folder)
    with torch.no_grad():
        hidden = model(**tok(TEXT, return_tensors="pt"), output_hidden_states=True).hidden_states[1][0]
        f = torch.relu((hidden - sae.b_dec) @ sae.W_enc + sae.b_enc)
    strip = view.state.strip
    order = f.max(0).values.argsort(descending=True)[: len(strip["features"])].tolist()
    assert strip["features"] == order
    np.testing.assert_allclose(view.strip_map.matrix(), f[:, order].numpy(), atol=1e-5)

    view.show_button.click()
    qtbot.waitUntil(lambda: view.state.feature_view is not None, timeout=WAIT)
    stats = view.state.feature_view["stats"]
    assert stats.feature == order[0] and stats.contexts and stats.contexts[0].activation == stats.max_activation
    assert "promotes" in view.contexts.text() and sum(stats.histogram) > 0

    view.steer_button.click()
    qtbot.waitUntil(lambda: view.state.steering is not None, timeout=WAIT)
    assert "unsteered" in view.steering.text() and view.state.steering.strength == 6.0
    view.search_edit.setText(" the")
    view.search_edit.returnPressed.emit()
    qtbot.waitUntil(lambda: view.state.search is not None, timeout=WAIT)
    the = tok(" the", add_special_tokens=False)["input_ids"][0]
    best = int((sae.W_dec @ model.get_output_embeddings().weight[the]).argmax())
    assert view.state.search["promoting"][0][0] == best and view.state.search["firing"] is not None
    assert f"{best} (" in view.search_line.text()

    view.grid_button.click()
    qtbot.waitUntil(lambda: view.state.grid is not None, timeout=WAIT)
    shown = view.grid_map.matrix()
    assert shown.shape == (2, 6)  # every block x the strengths
    zero = view.state.grid.strengths.index(0.0)
    np.testing.assert_allclose(shown[:, zero], 0.0, atol=1e-5)  # no vector, no gain
    assert np.isfinite(shown).all() and np.abs(shown).max() > 0
    # model B: the same text's features in B's SAE (a tiny Llama), beside A's
    from PySide6.QtCore import Qt

    llama = str(tiny_models["llama"])
    sae_b = SparseAutoencoder("topk", 32, 40, 5, seed=8)
    save_sae(tmp_path / "sae_b", sae_b, hook_name="blocks.0.hook_resid_post", model_name=llama,
             fingerprint=fingerprint_model_folder(llama))
    qtbot.keyClicks(window.compare.panel.field, llama)
    qtbot.mouseClick(window.compare.panel.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.compare.loaded is not None, timeout=WAIT)
    view.set_inputs(str(tmp_path / "sae"), str(corpus), 0, 6.0, sae_dir_b=str(tmp_path / "sae_b"))
    qtbot.waitUntil(lambda: view.state.strip_b is not None, timeout=WAIT)
    b_model = tf.AutoModelForCausalLM.from_pretrained(llama).eval()
    b_tok = tf.AutoTokenizer.from_pretrained(llama)
    with torch.no_grad():
        hidden_b = b_model(**b_tok(TEXT, return_tensors="pt"), output_hidden_states=True).hidden_states[1][0]
        pre = (hidden_b - sae_b.b_dec) @ sae_b.W_enc + sae_b.b_enc
        values, index = pre.topk(5, dim=-1)
        f_b = torch.zeros_like(pre).scatter(-1, index, values.clamp(min=0))
    strip_b = view.state.strip_b
    np.testing.assert_allclose(view.strip_b_map.matrix(), f_b[:, strip_b["features"]].numpy(), atol=1e-5)
    assert view.strip_b_map.isVisible() and view.state.site_b == "blocks.0.hook_resid_post"
    if os.environ.get("LM_WORKBENCH_SHOTS"):
        window.grab().save(os.path.join(os.environ["LM_WORKBENCH_SHOTS"], "features.png"))


def test_a_lecture_step_trains_its_sae_once_and_opens_the_grid(open_window, qtbot, tiny_models, tmp_path):
    """A step's SAE recipe: trained in the background (progress), kept in the data folder, the strongest feature
    on the text chosen, then the step's ``show`` (the grid) run."""
    from lm_workbench.paths import data_dir

    folder = str(tiny_models["gpt2"])
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(corpus_lines(40)), encoding="utf-8")
    recipe = {"site": "blocks.0.hook_resid_post", "kind": "topk", "sparsity": 4, "expansion": 2, "steps": 4,
              "batch": 64, "buffer_tokens": 256, "seed": 0, "corpus": str(corpus)}
    window = open_window(folder, "features", about=False)
    view = window.view("features")
    window.text_input.set_text(TEXT)
    view.apply_preset_step({"sae": recipe, "corpus": str(corpus), "strength": 2.0, "show": "grid"}, {})
    qtbot.waitUntil(lambda: view.state.grid is not None, timeout=WAIT)
    [kept] = list((data_dir() / "saes").iterdir())
    assert view.state.sae_dir == str(kept) and view.state.strength == 2.0
    qtbot.waitUntil(lambda: view.state.strip is not None, timeout=WAIT)
    assert view.state.feature == view.state.strip["features"][0]
    assert view.state.grid.strengths == [-2.0, 0.0, 1.0, 2.0, 4.0, 8.0]
    stamp = (kept / "sae_weights.safetensors").stat().st_mtime_ns
    view.apply_preset_step({"sae": recipe, "corpus": str(corpus), "strength": 2.0, "show": "feature"}, {})
    qtbot.waitUntil(lambda: view.state.feature_view is not None, timeout=WAIT)  # the next step: the same SAE, kept
    assert (kept / "sae_weights.safetensors").stat().st_mtime_ns == stamp
    assert view.state.feature_view["stats"].feature == view.state.strip["features"][0]
    with pytest.raises(ValueError, match="show must be one of"):
        view.apply_preset_step({"show": "everything"}, {})
