"""Published-format weights (options.json + weights.hdf5) and the workbench's safetensors folders.

The hdf5 file (``tests/support/elmo_published.py``) has the names, shapes and orientation of AllenNLP's
published files; the model it loads into must equal ``tests/support/elmo_reference.py``, a
numpy ELMo written from bilm-tf's TensorFlow equations that reads the file's arrays as they are.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from lm_workbench.engine.elmo.bilm import ElmoModel
from lm_workbench.engine.elmo.characters import batch_to_char_ids
from lm_workbench.engine.elmo.checkpoint import is_elmo_folder, load_elmo, save_elmo
from lm_workbench.engine.elmo.config import preset
from lm_workbench.engine.elmo.hdf5_weights import ElmoWeightsError, load_allennlp_elmo
from tests.support.elmo_published import OPTIONS, published_arrays, write_published
from tests.support.elmo_reference import elmo_layers, one_torch_thread  # noqa: F401 (autouse fixture)

SENTENCES = [["The", "cat", "sat", "."], ["Ünïcode", "x" * 60], ["a"]]


def _layers(model: ElmoModel) -> tuple[list[np.ndarray], torch.Tensor]:
    with torch.no_grad():
        out = model(batch_to_char_ids(SENTENCES))
    return [layer.double().numpy() for layer in out.layers], out.mask


def _max_difference(model, reference) -> float:
    layers, mask = _layers(model)
    worst = 0.0
    for b, tokens in enumerate(SENTENCES):
        for got, want in zip(layers, reference[b]):
            worst = max(worst, float(np.abs(got[b, : len(tokens)] - want).max()))
    return worst


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    arrays = published_arrays()
    files = write_published(tmp_path_factory.mktemp("elmo_published"), arrays)
    clips: dict[str, int] = {}
    reference = [elmo_layers(tokens, {k: v.astype(np.float64) for k, v in arrays.items()}, OPTIONS, clips)
                 for tokens in SENTENCES]
    return arrays, files, reference, clips


def test_loaded_model_equals_numpy_tf_elmo_on_a_padded_batch(published):
    arrays, (options_file, weights_file), reference, clips = published
    assert clips["cell"] > 0 and clips["proj"] > 0  # both clips are exercised by this data
    model = load_allennlp_elmo(options_file, weights_file)
    layers, mask = _layers(model)
    assert len(layers) == 3 and all(layer.shape == (3, 4, 8) for layer in layers)
    assert mask.tolist() == [[True] * 4, [True, True, False, False], [True, False, False, False]]
    assert _max_difference(model, reference) < 1e-5
    for layer in layers:  # padding positions are zeros
        assert np.all(layer[1, 2:] == 0) and np.all(layer[2, 1:] == 0)
    # the loader added TF's forget bias (gate block f = the third) and nothing else
    bias = model.forward_layers[0].bias.detach().numpy()
    file_bias = arrays["RNN_0/RNN/MultiRNNCell/Cell0/LSTMCell/B"]
    np.testing.assert_allclose(bias - file_bias, np.repeat([0.0, 0.0, 1.0, 0.0], 6), atol=1e-6)


def test_a_loader_that_swapped_gates_or_forgot_the_forget_bias_would_fail(published, tmp_path):
    arrays, _, reference, _ = published
    swapped = dict(arrays)
    for name, value in arrays.items():
        if name.endswith("/W_0") or name.endswith("/B"):
            blocks = np.split(value, 4, axis=-1)  # i, j, f, o
            swapped[name] = np.concatenate([blocks[2], blocks[1], blocks[0], blocks[3]], axis=-1)
    assert _max_difference(load_allennlp_elmo(*write_published(tmp_path, swapped)), reference) > 1e-3

    model = load_allennlp_elmo(*published[1])
    with torch.no_grad():
        for lstm in [*model.forward_layers, *model.backward_layers]:
            lstm.bias[12:18] -= 1.0
    assert _max_difference(model, reference) > 1e-3


def test_published_folder_loads_by_path_and_bad_files_say_why(published, tmp_path):
    arrays, (options_file, _), reference, _ = published
    folder = options_file.parent
    assert is_elmo_folder(folder)
    assert _max_difference(load_elmo(folder), reference) < 1e-5
    broken = {k: v for k, v in arrays.items() if k != "CNN_high_1/W_carry"}
    with pytest.raises(ElmoWeightsError, match="CNN_high_1/W_carry"):
        load_allennlp_elmo(*write_published(tmp_path / "missing", broken))
    wrong = dict(arrays, **{"CNN_proj/W_proj": np.zeros((12, 5), np.float32)})
    with pytest.raises(ElmoWeightsError, match=r"CNN_proj/W_proj is \(12, 5\)"):
        load_allennlp_elmo(*write_published(tmp_path / "wrong", wrong))
    with pytest.raises(ValueError, match="neither an ELMo folder"):
        load_elmo(tmp_path)


def test_safetensors_folder_round_trip(tmp_path):
    torch.manual_seed(0)
    model = ElmoModel(preset("course", vocab_size=30)).eval()
    folder = save_elmo(model, tmp_path / "elmo")
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "model.safetensors"]
    assert json.loads((folder / "config.json").read_text())["options"]["n_tokens_vocab"] == 30
    assert is_elmo_folder(folder)
    loaded = load_elmo(folder)
    assert loaded.config == model.config
    for (name, a), (name_b, b) in zip(model.state_dict().items(), loaded.state_dict().items()):
        assert name == name_b and torch.equal(a, b)
    ids = batch_to_char_ids([["round", "trip"], ["ok"]])
    words = torch.tensor([[0, 5, 6, 1], [0, 7, 1, -100]])
    with torch.no_grad():
        assert torch.equal(model(ids).stacked(), loaded(ids).stacked())
        assert torch.equal(model.bilm_loss(ids, words).loss, loaded.bilm_loss(ids, words).loss)
