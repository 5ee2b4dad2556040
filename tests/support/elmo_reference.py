"""An independent numpy ELMo, written from bilm-tf's TensorFlow equations (not a test module).

It reads the weights in weights.hdf5's own layout and orientation (TF: ``x @ W``),
so it shares no mapping with the engine's loader. One sentence at a time, no padding,
float64 throughout.
"""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def one_torch_thread():
    """The ELMo tests' tensors are tiny: on a shared 2-core machine two OpenMP threads spin-wait
    each other and run these ~30x slower than one. Import this fixture into a test module to use it."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# AllenNLP's ids after the +1 shift: bytes are byte + 1, then these markers.
BOS, EOS, BOW, EOW, PAD = 257, 258, 259, 260, 261


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def char_ids(word: str, max_chars: int = 50) -> list[int]:
    if word in ("<S>", "</S>"):
        inner = [BOS if word == "<S>" else EOS]
    else:
        inner = [b + 1 for b in word.encode("utf-8")[: max_chars - 2]]
    ids = [BOW, *inner, EOW]
    return ids + [PAD] * (max_chars - len(ids))


def tf_lstm_step(x, h, c, kernel, bias, w_proj, cell_clip, proj_clip, forget_bias=1.0, gate_order="ijfo"):
    """TF LSTMCell (num_proj, cell_clip, proj_clip): returns (h, c, c_before_clip, m_before_clip)."""
    z = np.concatenate([x, h], axis=-1) @ kernel + bias
    gates = dict(zip(gate_order, np.split(z, 4, axis=-1)))
    c_new = sigmoid(gates["f"] + forget_bias) * c + sigmoid(gates["i"]) * np.tanh(gates["j"])
    c_clipped = np.clip(c_new, -cell_clip, cell_clip) if cell_clip else c_new
    m = sigmoid(gates["o"]) * np.tanh(c_clipped)
    if w_proj is not None:
        m = m @ w_proj
    m_clipped = np.clip(m, -proj_clip, proj_clip) if proj_clip else m
    return m_clipped, c_clipped, c_new, m


def char_cnn(words: list[str], w: dict[str, np.ndarray], options: dict) -> np.ndarray:
    """[T] words -> [T, P] token representations (bilm-tf's _build_word_char_embeddings)."""
    cnn, lstm = options["char_cnn"], options["lstm"]
    max_chars = cnn["max_characters_per_token"]
    table = np.vstack([np.zeros((1, w["char_embed"].shape[1])), w["char_embed"]])  # row 0: padding
    emb = table[np.array([char_ids(t, max_chars) for t in words])]  # [T, C, E]
    act = np.tanh if cnn["activation"] == "tanh" else (lambda v: np.maximum(v, 0.0))
    pooled = []
    for k, (width, _count) in enumerate(cnn["filters"]):
        kernel = w[f"CNN/W_cnn_{k}"][0]  # [width, E, count]
        windows = [np.einsum("tie,ien->tn", emb[:, p : p + width], kernel) for p in range(max_chars - width + 1)]
        conv = np.stack(windows, axis=1) + w[f"CNN/b_cnn_{k}"]  # [T, positions, count]
        pooled.append(act(conv.max(axis=1)))
    x = np.concatenate(pooled, axis=-1)
    for h in range(cnn.get("n_highway") or 0):
        gate = sigmoid(x @ w[f"CNN_high_{h}/W_carry"] + w[f"CNN_high_{h}/b_carry"])
        x = gate * np.maximum(x @ w[f"CNN_high_{h}/W_transform"] + w[f"CNN_high_{h}/b_transform"], 0.0) + (1 - gate) * x
    if x.shape[1] != lstm["projection_dim"]:
        x = x @ w["CNN_proj/W_proj"] + w["CNN_proj/b_proj"]
    return x


def run_direction(x: np.ndarray, w: dict, options: dict, direction: int, clips: dict | None = None) -> list[np.ndarray]:
    """Every layer's output [T, P] of one direction (0 forward, 1 backward), skip connections added.

    ``clips``, if given, counts the values each clip changed ("cell", "proj").
    """
    lstm = options["lstm"]
    seq = x if direction == 0 else x[::-1]
    outputs = []
    for layer in range(lstm["n_layers"]):
        prefix = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
        h = np.zeros(lstm["projection_dim"])
        c = np.zeros(lstm["dim"])
        out = []
        for step in seq:
            h, c, c_raw, m_raw = tf_lstm_step(step, h, c, w[f"{prefix}/W_0"], w[f"{prefix}/B"],
                                              w.get(f"{prefix}/W_P_0"), lstm.get("cell_clip"), lstm.get("proj_clip"))
            if clips is not None:
                clips["cell"] = clips.get("cell", 0) + int((np.abs(c_raw) > lstm["cell_clip"]).sum())
                clips["proj"] = clips.get("proj", 0) + int((np.abs(m_raw) > lstm["proj_clip"]).sum())
            out.append(h)
        out = np.stack(out)
        if lstm["use_skip_connections"] and layer > 0:
            out = out + seq
        seq = out
        outputs.append(out if direction == 0 else out[::-1])
    return outputs


def elmo_layers(tokens: list[str], w: dict[str, np.ndarray], options: dict, clips: dict | None = None):
    """ELMo's L+1 layers [len(tokens), 2P] for one sentence, <S> and </S> removed."""
    x = char_cnn(["<S>", *tokens, "</S>"], w, options)
    forward, backward = run_direction(x, w, options, 0, clips), run_direction(x, w, options, 1, clips)
    layers = [np.concatenate([x, x], axis=-1)]
    layers += [np.concatenate([f, b], axis=-1) for f, b in zip(forward, backward)]
    return [layer[1:-1] for layer in layers]


def tiny_elmo(folder, seed: int = 5):
    """(a tiny random biLM, the folder it is saved in as a workbench ELMo): 2 layers, 5-wide projections."""
    import torch

    from lm_workbench.engine.elmo.bilm import ElmoModel
    from lm_workbench.engine.elmo.checkpoint import save_elmo
    from lm_workbench.engine.elmo.config import ElmoConfig

    torch.manual_seed(seed)
    config = ElmoConfig(char_embedding_dim=4, filters=((1, 4), (2, 6)), n_highway=1, lstm_dim=12, projection_dim=5,
                        n_layers=2)
    model = ElmoModel(config).eval()
    return model, save_elmo(model, folder)
