"""AllenNLP's published ELMo format written from numpy: options.json + weights.hdf5 for a tiny biLM.

The hdf5 arrays carry the names, shapes and orientation of AllenNLP's published
files (TF's ``x @ W``), random but seeded.
"""

from __future__ import annotations

import json

import h5py
import numpy as np

OPTIONS = {
    "lstm": {"dim": 6, "projection_dim": 4, "n_layers": 2, "cell_clip": 0.6, "proj_clip": 0.5,
             "use_skip_connections": True},
    "char_cnn": {"activation": "relu", "embedding": {"dim": 3}, "filters": [[1, 4], [2, 3], [3, 5]],
                 "n_highway": 2, "max_characters_per_token": 50, "n_characters": 262},
}

def published_arrays(seed: int = 0) -> dict[str, np.ndarray]:
    """Every weight of a biLM of ``OPTIONS``, by its name in weights.hdf5, float32."""
    rng = np.random.default_rng(seed)
    cnn, lstm = OPTIONS["char_cnn"], OPTIONS["lstm"]
    e, f, p, d = cnn["embedding"]["dim"], 12, lstm["projection_dim"], lstm["dim"]
    w = {"char_embed": rng.normal(0, 1, (261, e))}
    for k, (width, count) in enumerate(cnn["filters"]):
        w[f"CNN/W_cnn_{k}"] = rng.normal(0, 0.5, (1, width, e, count))
        w[f"CNN/b_cnn_{k}"] = rng.normal(0, 0.5, count)
    for h in range(cnn["n_highway"]):
        for part in ("carry", "transform"):
            w[f"CNN_high_{h}/W_{part}"] = rng.normal(0, 0.3, (f, f))
            w[f"CNN_high_{h}/b_{part}"] = rng.normal(0, 1.0, f)
    w["CNN_proj/W_proj"] = rng.normal(0, 0.4, (f, p))
    w["CNN_proj/b_proj"] = rng.normal(0, 0.3, p)
    for direction in range(2):
        for layer in range(lstm["n_layers"]):
            prefix = f"RNN_{direction}/RNN/MultiRNNCell/Cell{layer}/LSTMCell"
            w[f"{prefix}/W_0"] = rng.normal(0, 0.8, (p + p, 4 * d))  # rows: input, then state
            w[f"{prefix}/B"] = rng.normal(0, 0.5, 4 * d)  # every gate block different
            w[f"{prefix}/W_P_0"] = rng.normal(0, 0.8, (d, p))
    return {name: a.astype(np.float32) for name, a in w.items()}


def write_published(folder, arrays, name="elmo_tiny"):
    """``NAME_options.json`` (``OPTIONS``) and ``NAME_weights.hdf5`` (``arrays``) in ``folder``; returns both paths."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}_options.json").write_text(json.dumps(OPTIONS))
    with h5py.File(folder / f"{name}_weights.hdf5", "w") as h5:
        for key, value in arrays.items():
            h5.create_dataset(key, data=value)  # "RNN_0/RNN/..." makes the nested groups
    return folder / f"{name}_options.json", folder / f"{name}_weights.hdf5"
