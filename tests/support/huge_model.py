"""A model folder too large for any machine's memory, in a few bytes of disk."""

from __future__ import annotations

import json
import struct


def sparse_huge_model(folder):
    """A model folder whose weights header promises 256 GiB (a sparse file: no disk used)."""
    folder.mkdir()
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 65536, "n_layer": 48,
              "n_head": 64, "vocab_size": 1048576, "n_positions": 1024}
    (folder / "config.json").write_text(json.dumps(config))
    shape = [1048576, 65536]
    nbytes = shape[0] * shape[1] * 4
    header = json.dumps({"transformer.wte.weight": {"dtype": "F32", "shape": shape,
                                                    "data_offsets": [0, nbytes]}}).encode()
    with open(folder / "model.safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header)
        f.truncate(8 + len(header) + nbytes)
