"""Load the published AllenNLP / bilm-tf ELMo files: ``options.json`` + ``weights.hdf5``.

Layout of weights.hdf5 (TensorFlow variables, ``x @ W`` orientation)::

    char_embed                      [n_characters - 1, E]   no padding row: ours is row 0 = zeros
    CNN/W_cnn_{k}                   [1, width_k, E, count_k]
    CNN/b_cnn_{k}                   [count_k]
    CNN_high_{h}/W_carry, W_transform   [F, F]   b_carry, b_transform [F]
    CNN_proj/W_proj [F, P], b_proj [P]       (absent when F == P)
    RNN_{d}/RNN/MultiRNNCell/Cell{l}/LSTMCell/
        W_0   [I + P, 4D]   rows: input then recurrent state; columns: gates i, j, f, o
        B     [4D]          TF adds forget_bias = 1.0 to f at run time; we add it here, once
        W_P_0 [D, P]        (absent when P == D)
    d = 0: forward direction, d = 1: backward.

There is no softmax in these files: the loaded model has ``vocab_size = 0``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

from lm_workbench.engine.elmo.bilm import ElmoModel
from lm_workbench.engine.elmo.config import ElmoConfig

FORGET_BIAS = 1.0


class ElmoWeightsError(ValueError):
    """A weights.hdf5 that does not match its options.json."""


def read_options(path: str | Path) -> ElmoConfig:
    try:
        options = json.loads(Path(path).read_text(encoding="utf-8"))
        return ElmoConfig.from_options_json(options)
    except (OSError, json.JSONDecodeError) as exc:
        raise ElmoWeightsError(f"cannot read ELMo options {path}: {exc}") from exc
    except KeyError as exc:
        raise ElmoWeightsError(f"ELMo options {path} lack the field {exc}") from exc


def load_allennlp_elmo(options_file: str | Path, weight_file: str | Path) -> ElmoModel:
    """An ``ElmoModel`` (eval mode) holding a published biLM's weights."""
    import h5py

    config = read_options(options_file)
    model = ElmoModel(config)
    with h5py.File(weight_file, "r") as h5:
        with torch.no_grad():
            _load_char_cnn(model, h5, config)
            for direction, layers in enumerate((model.forward_layers, model.backward_layers)):
                for index, lstm in enumerate(layers):
                    _load_lstm(lstm, h5, f"RNN_{direction}/RNN/MultiRNNCell/Cell{index}/LSTMCell")
    return model.eval()


def _array(h5, name: str, shape: tuple[int, ...]) -> torch.Tensor:
    if name not in h5:
        raise ElmoWeightsError(f"weights.hdf5 has no dataset {name!r}")
    data = np.asarray(h5[name][...], dtype=np.float32)
    if data.shape != shape:
        raise ElmoWeightsError(f"{name} is {data.shape} in weights.hdf5, the options imply {shape}")
    return torch.from_numpy(data)


def _load_char_cnn(model: ElmoModel, h5, config: ElmoConfig) -> None:
    cnn = model.token_encoder
    e, f, p = config.char_embedding_dim, config.n_filters, config.projection_dim
    rows = cnn.char_embedding.weight.shape[0]
    cnn.char_embedding.weight.zero_()
    cnn.char_embedding.weight[1:] = _array(h5, "char_embed", (rows - 1, e))
    for k, ((width, count), conv) in enumerate(zip(config.filters, cnn.convolutions)):
        w = _array(h5, f"CNN/W_cnn_{k}", (1, width, e, count))
        conv.weight.copy_(w[0].permute(2, 1, 0))  # [width, E, count] -> Conv1d's [count, E, width]
        conv.bias.copy_(_array(h5, f"CNN/b_cnn_{k}", (count,)))
    for h, highway in enumerate(cnn.highways):
        for part in ("carry", "transform"):
            linear = getattr(highway, part)
            linear.weight.copy_(_array(h5, f"CNN_high_{h}/W_{part}", (f, f)).T)  # x @ W -> W.T @ x
            linear.bias.copy_(_array(h5, f"CNN_high_{h}/b_{part}", (f,)))
    if f != p:
        cnn.projection.weight.copy_(_array(h5, "CNN_proj/W_proj", (f, p)).T)
        cnn.projection.bias.copy_(_array(h5, "CNN_proj/b_proj", (p,)))


def _load_lstm(lstm, h5, prefix: str) -> None:
    i, d, p = lstm.input_size, lstm.cell_size, lstm.projection_size
    kernel = _array(h5, f"{prefix}/W_0", (i + p, 4 * d))
    lstm.input_weight.copy_(kernel[:i])
    lstm.hidden_weight.copy_(kernel[i:])
    bias = _array(h5, f"{prefix}/B", (4 * d,)).clone()
    bias[2 * d : 3 * d] += FORGET_BIAS  # gate order i, j, f, o: f is the third block
    lstm.bias.copy_(bias)
    if lstm.projection is not None:
        lstm.projection.copy_(_array(h5, f"{prefix}/W_P_0", (d, p)))
