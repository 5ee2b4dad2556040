"""ELMo in the views (real widgets): no attention, the token-similarity matrix instead; clear hints elsewhere."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lm_workbench.engine.elmo.bilm import ElmoModel
from lm_workbench.engine.elmo.characters import batch_to_char_ids
from lm_workbench.engine.elmo.checkpoint import save_elmo
from lm_workbench.engine.elmo.config import ElmoConfig
from tests.support.elmo_entry_point import bilm_registered  # noqa: F401 (fixture)

pytestmark = pytest.mark.timeout(120)

SENTENCE = "The bank rose , the river bank flooded ."
WAIT = 30000


@pytest.fixture(scope="module")
def elmo_dir(tmp_path_factory):
    torch.manual_seed(5)
    config = ElmoConfig(char_embedding_dim=4, filters=((1, 4), (2, 6)), n_highway=1, lstm_dim=12, projection_dim=5,
                        n_layers=2)
    return save_elmo(ElmoModel(config), tmp_path_factory.mktemp("elmo-gui") / "tiny-elmo")


def _cosines(vectors: np.ndarray) -> np.ndarray:
    """Independent reference: cosine of every pair of rows, one pair at a time."""
    n = len(vectors)
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            a, b = vectors[i].astype(np.float64), vectors[j].astype(np.float64)
            out[i, j] = a @ b / (np.sqrt(a @ a) * np.sqrt(b @ b))
    return out


def test_attention_view_says_no_attention_and_shows_token_similarity(open_window, qtbot, elmo_dir):
    window = open_window(str(elmo_dir), "attention")
    view = window.view("attention")
    window.text_input.editor.setFocus()
    qtbot.keyClicks(window.text_input.editor, SENTENCE)
    qtbot.waitUntil(lambda: view.similarity() is not None and view.encoding().tokenized.text == SENTENCE,
                    timeout=WAIT)
    assert not view.has_attention()
    assert view.notice.isVisible() and "has no attention" in view.notice.text()
    assert not view.head_scroll.isVisible() and not view.grid.isVisible() and view.heatmap.isVisible()
    assert not view.controls.heads.isVisible() and view.controls.layer_spin.maximum() == 2

    words = SENTENCE.split()
    with torch.no_grad():
        layers = ElmoModel.forward(window.loaded.model, batch_to_char_ids([words])).layers
    for layer in (2, 0):
        view.controls.layer_spin.setValue(layer)
        want = _cosines(layers[layer][0].numpy())
        np.testing.assert_allclose(view.similarity(), want, atol=1e-5)
        np.testing.assert_allclose(view.heatmap.matrix(), want, atol=1e-5)
        assert view.heatmap.title().startswith(f"Layer {layer}")
    # layer 0 is the character-CNN vector: both "bank"s are the same word, so identical vectors
    first, second = words.index("bank"), len(words) - 1 - words[::-1].index("bank")
    assert view.similarity()[first, second] == pytest.approx(1.0, abs=1e-6)
    matrix, rows, cols = view.current_matrix()
    assert rows == cols == words and matrix.shape == (len(words), len(words))


@pytest.mark.parametrize("view_id, words", [("predictions", "Predictions are not available for ELMo"),
                                            ("lens", "logit lens is not available for ELMo")])
def test_predictions_and_lens_say_not_available(open_window, qtbot, elmo_dir, view_id, words):
    window = open_window(str(elmo_dir), view_id)
    view = window.view(view_id)
    window.text_input.editor.setFocus()
    qtbot.keyClicks(window.text_input.editor, "a few words")
    qtbot.waitUntil(lambda: words in view.notice.text(), timeout=WAIT)
    assert view.notice.isVisible()


def test_pretrain_form_offers_elmo_with_its_presets_and_count(open_window, qtbot, fresh_home, bilm_registered):
    from lm_workbench.engine.elmo.bilm import ElmoModel as Model
    from lm_workbench.engine.elmo.presets import ELMO_PRESETS

    window = open_window(view="pretrain", size=(1280, 860), about=False)
    form = window.view("pretrain").form
    qtbot.waitUntil(lambda: form.ready, timeout=30000)
    form.family_combo.setCurrentIndex(form.family_combo.findData("elmo"))
    assert form.objective_name() == "bilm"
    presets = [form.preset_combo.itemData(i) for i in range(form.preset_combo.count())]
    assert presets == ["tiny", "course"] and not form.heads_spin.isEnabled()
    form.preset_combo.setCurrentIndex(form.preset_combo.findData("course"))
    assert (form.layers_spin.value(), form.hidden_spin.value()) == (2, 64)
    form.layers_spin.setValue(1)
    form.vocab_spin.setValue(1000)
    qtbot.waitUntil(lambda: form.parameter_count is not None and "counting" not in form.params_label.text(),
                    timeout=30000)
    from dataclasses import replace

    want = sum(p.numel() for p in Model(replace(ELMO_PRESETS["course"], n_layers=1, vocab_size=1000)).parameters())
    assert form.parameter_count == want
    spec = form.spec()
    assert (spec.family, spec.objective, spec.preset, spec.layers, spec.heads) == ("elmo", "bilm", "course", 1, None)
    assert "--family elmo --objective bilm" in spec.cli_command()
    form.family_combo.setCurrentIndex(form.family_combo.findData("bert"))  # back: the transformer presets
    assert form.preset_combo.findData("base") >= 0 and form.heads_spin.isEnabled()
