"""The Embeddings map names the model and inputs it came from (issue 49.5): a changed input (another map method
not computed yet, another corpus) greys it with Run again; another model clears it. Tiny BERT and GPT-2 models."""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.timeout(120)
WAIT = 30000
TEXT = "\n".join(["the bank of the river was steep", "she went to the bank to get money",
                  "a bat flew out of the cave", "he swung the bat at the ball", "they play in the park"])


def test_the_map_is_named_greyed_when_stale_and_cleared_with_another_model(open_window, qtbot, tiny_models,
                                                                          fresh_home):
    window = open_window(str(tiny_models["bert"]), "embeddings", size=(1024, 768), about=False)
    view = window.view("embeddings")
    view.use_text(TEXT)
    qtbot.waitUntil(lambda: view.state.coords is not None and not view.busy(), timeout=WAIT)
    line = view.map_origin
    qtbot.waitUntil(lambda: line.text() != "", timeout=WAIT)
    assert line.text().startswith("From bert") and "PCA" in line.text() and not line.stale()
    assert view.map.point_count() > 0
    map_box = view.map.parentWidget()
    assert not line.greyed(map_box)

    # another method, not computed yet (t-SNE waits for Compute map): the map is stale, greyed, with Run again
    combo = view.method.method_combo
    combo.setCurrentIndex(combo.findData("tsne"))
    assert line.stale() and line.greyed(map_box) and line.again_button.isVisible()
    assert line.text().startswith("Stale") and "bert" in line.text() and "PCA" in line.text()
    shots = os.environ.get("LMW_SHOTS")
    if shots:
        window.grab().save(os.path.join(shots, "embeddings-stale-1024.png"))
    combo.setCurrentIndex(combo.findData("pca"))  # back: PCA recomputes at once and the map is current again
    qtbot.waitUntil(lambda: not line.stale() and not view.busy(), timeout=WAIT)
    assert not line.greyed(map_box) and not line.again_button.isVisible()

    # another model: the old model's map is gone (the corpus stays and is embedded again by the new model)
    seen = []  # what the tab shows as the model changes, before the new model's map arrives
    view.ctx.model_changed.connect(lambda _loaded: seen.append((view.map.point_count(), line.text(), line.isHidden())))
    window.load_model(str(tiny_models["gpt2"]))
    qtbot.waitUntil(lambda: window.loaded is not None and "gpt2" in str(window.loaded.info.spec), timeout=WAIT)
    qtbot.waitUntil(lambda: line.text() == "" or "gpt2" in line.text(), timeout=WAIT)
    assert seen and seen[0] == (0, "", True)  # cleared at once
    qtbot.waitUntil(lambda: view.state.coords is not None and not view.busy(), timeout=WAIT)
    assert line.text().startswith("From gpt2")
